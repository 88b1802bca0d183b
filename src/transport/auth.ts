/**
 * HTTP Basic authentication (spec: "Authorization: Basic <base64(uuid:token)>"). The token lives
 * only inside this closure: nothing else in the SDK can read it back, so it cannot leak through
 * an object dump, an error or a log line.
 * @module
 */

/** Builds the Authorization header on demand; exposes nothing else. */
export interface BasicAuth {
  /** The `Authorization` header value. */
  header(): string;
  /**
   * `value` with every copy of the credentials replaced (a string anywhere inside it, deeply), for
   * what a server answered: a proxy or a debug page may echo the token back in an error body.
   */
  redact<T>(value: T): T;
}

const REDACTED = '[REDACTED]';
// Too short a token would match ordinary text; a real one is far longer.
const MIN_REDACTABLE_LENGTH = 6;

// Deeper parts of an answer are dropped rather than walked: a hostile answer must not overflow the stack.
const MAX_DEPTH = 64;

function replaceAll(value: unknown, secrets: readonly string[], seen: WeakSet<object>, depth = 0): unknown {
  if (typeof value === 'string') return secrets.reduce((text, secret) => (text.includes(secret) ? text.split(secret).join(REDACTED) : text), value);
  if (typeof value !== 'object' || value === null || seen.has(value)) return value;
  if (depth >= MAX_DEPTH) return '[Truncated]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => replaceAll(item, secrets, seen, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [replaceAll(key, secrets, seen), replaceAll(item, secrets, seen, depth + 1)]));
}

function base64(text: string): string {
  // btoa takes Latin-1 only; encode as UTF-8 first so any partner id or token survives.
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Creates the Basic credentials of one partner. */
export function createBasicAuth(partnerId: string, apiToken: string): BasicAuth {
  const encoded = base64(`${partnerId}:${apiToken}`);
  const value = `Basic ${encoded}`;
  // Longest first, so the token inside `uuid:token` does not leave the uuid behind half-replaced.
  const secrets = [`${partnerId}:${apiToken}`, encoded, apiToken].filter((secret) => secret.length >= MIN_REDACTABLE_LENGTH);
  return {
    header: () => value,
    redact: <T>(answer: T): T => (secrets.length === 0 ? answer : (replaceAll(answer, secrets, new WeakSet()) as T)),
  };
}
