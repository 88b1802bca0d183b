/**
 * Scrubbing secrets by value. Whatever a server sends back (an echoed `Authorization` header, a
 * zod message quoting a field it set to the token, a `next` link carrying it, an undici parser
 * error holding the raw bytes) must never reach an error, a log line or a hook payload, so every
 * such text is searched for the secrets themselves, in every form they travel in: the API token,
 * `partnerId:token`, its base64 (the Basic credential), URL-encoded forms, and every webhook token
 * this process has seen.
 * @module
 */
import { AbortError, PartnerSdkError } from '../errors.js';
import { base64 } from './auth.js';

const REDACTED = '[REDACTED]';
/**
 * Shorter secrets are not searched for: they would match ordinary text. 4 characters and up are,
 * in any letter case (HTTP lower-cases header names, and a server may upper-case what it echoes).
 */
const MIN_SECRET_LENGTH = 4;
/** Deeper parts of a value are dropped rather than walked: a hostile answer must not overflow the stack. */
const MAX_DEPTH = 64;
/** Webhook tokens remembered (the most recent ones); old tokens stop being valid at regeneration anyway. */
const MAX_WEBHOOK_TOKENS = 10_000;

// Shared by every client of the process: a webhook token one client saw must not leak through another.
const webhookTokens = new Set<string>();
let webhookTokensVersion = 0;

/** Records a webhook token read from an answer, so it is scrubbed from every error and log line from now on. */
export function rememberWebhookToken(token: unknown): void {
  if (typeof token !== 'string' || token.length < MIN_SECRET_LENGTH || webhookTokens.has(token)) return;
  if (webhookTokens.size >= MAX_WEBHOOK_TOKENS)
    webhookTokens.delete(webhookTokens.values().next().value as string);
  webhookTokens.add(token);
  webhookTokensVersion += 1;
}

/**
 * Unreserved characters (RFC 3986): no encoder escapes them, so they only ever travel as they are.
 * Every other character may be escaped, by one encoder and not another, even within one string
 * (`new URL()` leaves `\` raw in a query where `encodeURIComponent` writes `%5C`).
 */
const UNRESERVED = /^[A-Za-z0-9_.~-]$/;
const encoder = new TextEncoder();
const hex = (value: number, digits: number): string => value.toString(16).padStart(digits, '0');
const escapeForPattern = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/**
 * A pattern (to be used case-insensitively) matching `secret` in every form it travels in, each
 * character independently: as is, in any letter case; percent-encoded (`%2F`, `%2f`, a space as
 * `+`); JSON-escaped (`\"`, `\\`, `\/`, `\u0022`), however many times (a JSON string inside a
 * JSON string doubles the backslashes). Listing whole encoded forms missed mixed ones: a URL
 * serializer that escapes `"` but keeps `\` produced a form no single encoder writes.
 */
function patternOf(secret: string): string {
  let pattern = '';
  for (const char of secret) {
    if (UNRESERVED.test(char)) {
      // Escaped: `.` must match a dot only.
      pattern += escapeForPattern(char);
      continue;
    }
    const forms = [escapeForPattern(char)];
    // Each UTF-8 byte as %XX (the `i` flag takes either case of hex digits).
    forms.push(Array.from(encoder.encode(char), (byte) => `%${hex(byte, 2)}`).join(''));
    if (char === ' ') forms.push('\\+');
    // A JSON string escapes `"` and `\` (and may escape `/`) with one backslash, or more when
    // the JSON was itself put in a JSON string; any character may be written `\uXXXX`.
    if (char === '"' || char === '/') forms.push(`\\\\*${escapeForPattern(char)}`);
    if (char === '\\') forms.push('\\\\+');
    let unicodeEscape = '';
    for (let index = 0; index < char.length; index += 1)
      unicodeEscape += `\\\\+u${hex(char.charCodeAt(index), 4)}`;
    forms.push(unicodeEscape);
    pattern += `(?:${forms.join('|')})`;
  }
  return pattern;
}

/**
 * One case-insensitive pattern matching every form of every secret (see {@link patternOf}), or
 * undefined when there is none. Longest secrets first, so a token inside `uuid:token` does not
 * leave part of the credential behind.
 */
export function secretsPattern(secrets: Iterable<string>, minLength = MIN_SECRET_LENGTH): RegExp | undefined {
  const kept = [...new Set(secrets)]
    .filter((secret) => typeof secret === 'string' && secret.length >= minLength)
    .sort((a, b) => b.length - a.length);
  if (kept.length === 0) return undefined;
  return new RegExp(kept.map(patternOf).join('|'), 'gi');
}

/** The webhook tokens this process has seen (from answers of the partner API), newest last. */
export function rememberedWebhookTokens(): ReadonlySet<string> {
  return webhookTokens;
}

/** Changes whenever a new webhook token is remembered: a pattern built before it is out of date. */
export function rememberedWebhookTokensVersion(): number {
  return webhookTokensVersion;
}

/** The secrets one client must never show, and the one place that scrubs them out. */
export interface Secrets {
  /** `text` with every form of every secret replaced. */
  scrubText(text: string): string;
  /** A deep copy of `value` with every string (and object key) scrubbed. */
  scrub<T>(value: T): T;
  /**
   * The error made safe to hand to a caller: message, stack and every field scrubbed, and each
   * foreign error in its `cause` chain (undici's, ky's with its `Request`) replaced by a plain copy
   * keeping only its name, code and scrubbed message.
   */
  scrubError<T>(error: T): T;
}

/** The secrets of one partner: the API token, `partnerId:token` and its base64 (the Basic credential). */
export function createSecrets(partnerId: string, apiToken: string): Secrets {
  const credential = `${partnerId}:${apiToken}`;
  const encoded = base64(credential);
  // Without its padding, base64 also matches where a server echoed it unpadded; base64url too.
  const unpadded = encoded.replace(/=+$/, '');
  const own = [credential, encoded, unpadded, unpadded.replace(/\+/g, '-').replace(/\//g, '_'), apiToken];
  let pattern: RegExp | undefined;
  let formsVersion = -1;
  // One case-insensitive pattern of every form, rebuilt when a new webhook token is seen.
  const currentPattern = (): RegExp | undefined => {
    if (formsVersion !== webhookTokensVersion) {
      pattern = secretsPattern([...own, ...webhookTokens]);
      formsVersion = webhookTokensVersion;
    }
    return pattern;
  };

  const scrubText = (text: string): string => {
    const secretsPattern = currentPattern();
    return secretsPattern ? text.replace(secretsPattern, REDACTED) : text;
  };

  const scrubValue = (value: unknown, seen: WeakSet<object>, depth: number): unknown => {
    if (typeof value === 'string') return scrubText(value);
    if (typeof value !== 'object' || value === null) return value;
    if (value instanceof Error) return scrubError(value, seen);
    // A time carries no secret, and a caller reads it as a Date (`AmbiguousCreateError.holdUntil`).
    if (value instanceof Date) return new Date(value.getTime());
    if (seen.has(value)) return '[Circular]';
    if (depth >= MAX_DEPTH) return '[Truncated]';
    seen.add(value);
    if (Array.isArray(value)) return value.map((item) => scrubValue(item, seen, depth + 1));
    // Raw bytes (undici keeps the unparsed answer) are shown by size only.
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `[${value.byteLength} bytes]`;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [scrubText(key), scrubValue(item, seen, depth + 1)]),
    );
  };

  /** A foreign error as a plain Error: name, code, message and stack scrubbed, cause copied the same way. */
  const copyForeign = (error: Error, seen: WeakSet<object>): Error => {
    const copy = new Error(scrubText(String(error.message)));
    copy.name = scrubText(String(error.name));
    copy.stack = scrubText(String(error.stack ?? `${copy.name}: ${copy.message}`));
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' || typeof code === 'number')
      Object.defineProperty(copy, 'code', { value: code, enumerable: true });
    if (error.cause !== undefined)
      Object.defineProperty(copy, 'cause', {
        value: scrubValue(error.cause, seen, 1),
        enumerable: false,
        writable: true,
        configurable: true,
      });
    return copy;
  };

  const scrubError = (error: Error, seen: WeakSet<object>): Error => {
    if (seen.has(error)) return error;
    seen.add(error);
    // The SDK's own errors keep their class (the caller's API) and are scrubbed in place.
    if (!(error instanceof PartnerSdkError)) return copyForeign(error, seen);
    const record = error as unknown as Record<string, unknown>;
    error.message = scrubText(error.message);
    if (typeof error.stack === 'string') error.stack = scrubText(error.stack);
    for (const key of Object.keys(record)) {
      if (key === 'cause') continue;
      Object.defineProperty(error, key, {
        value: scrubValue(record[key], seen, 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    // An AbortError's cause is the caller's own reason, handed back as given.
    if (error.cause !== undefined && !(error instanceof AbortError)) {
      Object.defineProperty(error, 'cause', {
        value: scrubValue(error.cause, seen, 1),
        enumerable: false,
        writable: true,
        configurable: true,
      });
    }
    return error;
  };

  return {
    scrubText,
    scrub: <T>(value: T): T => scrubValue(value, new WeakSet(), 0) as T,
    scrubError: <T>(error: T): T =>
      error instanceof Error
        ? (scrubError(error, new WeakSet()) as T)
        : (scrubValue(error, new WeakSet(), 0) as T),
  };
}
