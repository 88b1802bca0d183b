/**
 * The framework-neutral receiver: token check, envelope reading, duplicate handling and dispatch
 * to the partner's handlers, using Web APIs only (Request, Response, Web Crypto, TextDecoder).
 * The node adapter (`node-adapter.ts`) feeds the same core from `node:http` and Express.
 * @module
 */
import { createConsoleLogger, type Logger } from '../logger.js';
import { unreadableJson } from '../transport/json-depth.js';
import {
  rememberedWebhookTokens,
  rememberedWebhookTokensVersion,
  secretsPattern,
} from '../transport/secrets.js';
import { readLimited } from './body-collector.js';
import { BodyDeadlines } from './body-deadlines.js';
import { createDispatcher, isThenable, type Soon, withTimeLimit } from './dispatch.js';
import { publish } from '../transport/diagnostics.js';
import { createMemoryDuplicateStore, type DuplicateStore } from './duplicates.js';
import {
  WebhookBodyTimeoutError,
  WebhookConfigurationError,
  WebhookDeliveryInProgressError,
  WebhookError,
  WebhookHandlerError,
  WebhookMethodNotAllowedError,
  WebhookPayloadError,
  WebhookPayloadTooLargeError,
  WebhookRawBodyRequiredError,
  WebhookUnsupportedMediaTypeError,
  WebhookVerificationError,
} from './errors.js';
import { TEST_EVENT } from './delivery.js';
import {
  envelopeDeliveryId,
  envelopeWebhookId,
  parseWebhookEvent,
  RESERVATION_EVENT_TYPES,
  UNKNOWN_EVENT,
  type WebhookEvent,
  type WebhookEventOf,
} from './events.js';
import { type HeaderReader, type HeadersInput, readHeaders } from './headers.js';
import { createNodeHandler, type NodeWebhookHandler } from './node-adapter.js';
import { matchingTokenIndex, presentedTokens, type TokenSource } from './tokens.js';

/** Default `maxBodyBytes`: 1 MiB, far above any reservation event. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Default `handlerTimeoutMs`: 30 seconds for all the handlers of one delivery. */
export const DEFAULT_HANDLER_TIMEOUT_MS = 30_000;
/** Default `tokensTimeoutMs`: 10 seconds for the token provider to answer. */
export const DEFAULT_TOKENS_TIMEOUT_MS = 10_000;
/** Default `bodyTimeoutMs`: 10 seconds from the headers to the body's last byte. */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;
/**
 * How much longer than `handlerTimeoutMs` a duplicate store's claim must last: the claim starts
 * at the store before its answer reaches the receiver, and the handler's outcome is written after
 * the handler's time is up.
 */
export const CLAIM_MARGIN_MS = 5_000;

/** A raw request body: the bytes or text exactly as received. */
export type RawBody = string | Uint8Array | ArrayBuffer | ArrayBufferView;

/**
 * Where the receiver writes what it refused and why: the client's {@link Logger}, so one logger
 * serves both. `console` fits. Never given a token.
 */
export type WebhookLogger = Logger;

// The default: refusals and failures only, so a busy endpoint's console is not flooded.
const consoleWarnings: WebhookLogger = createConsoleLogger('[restaurant-partner-sdk/webhooks]');

/** What {@link WebhookReceiverOptions.onError} is told besides the error. */
export interface WebhookErrorContext {
  /** The HTTP status answered. */
  status: number;
  /** The verified event, when the failure came after verification (a handler that threw). */
  event?: WebhookEvent;
}

/** Options of {@link createWebhookReceiver}. */
export interface WebhookReceiverOptions {
  /**
   * The accepted webhook tokens. A list, or a function asked on every delivery (never cached),
   * so that a token removed from your secret store stops verifying at once. During a rotation
   * list both the old and the new token.
   */
  tokens: TokenSource;
  /**
   * A header that may carry the token besides `Authorization: Bearer <token>`, for example
   * `x-webhook-token` (its value is the token, or `Bearer <token>`).
   */
  tokenHeader?: string;
  /** Largest body accepted, in bytes; larger ones get 413 before the rest is read. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Longest time from the request's headers to the last byte of its body, in milliseconds (the
   * token check counts: it comes first). A sender that stalls or trickles is answered 408 and its
   * connection closed; no handler runs. Default 10 s.
   */
  bodyTimeoutMs?: number;
  /**
   * Where processed deliveries are remembered, to answer a repeated delivery 200 without running
   * the handler again. Default: an in-memory store (10 000 deliveries, 24 h). `false` turns the
   * check off. Several processes share `createRedisDuplicateStore` from
   * `restaurant-partner-sdk/redis`; a store with leases (`claim`) that it does not renew
   * (`renewsClaims`) must hold a claim at least `handlerTimeoutMs` + 5 s, or the receiver
   * refuses it.
   *
   * A delivery is keyed by the webhook it was sent for, then its event, reservation id and
   * delivery id (`webhook-12:RESERVATION_CONFIRMED:4021:evt_...`): two webhooks' deliveries never
   * pass for each other's duplicates, even if their ids repeat, and a delivery retried after a
   * token rotation is still a duplicate. The webhook's id is read from the delivery (`webhook_id`,
   * as the fake sends it), else taken from the `webhookId` option. A delivery with neither is keyed
   * by a fingerprint of the webhook token that verified it instead (`token-<16 hex digits>:...`,
   * from a SHA-256 digest: never the token): each webhook has its own token, but a delivery
   * retried with a rotated token is then run again.
   */
  duplicateStore?: DuplicateStore | false;
  /**
   * The id of the webhook this receiver serves (`webhook.id`), for deliveries that do not say
   * which webhook they were sent for: it keys them in the duplicate store instead of the token,
   * so a delivery retried after `regenerateToken` is still recognised. Leave it out when one
   * receiver serves several webhooks (their deliveries are then told apart by token).
   */
  webhookId?: string | number;
  /**
   * Where refused deliveries and failed handlers are logged (any client `Logger`).
   * Default: `console.warn` / `console.error` for refusals and failures only; `false` for none.
   */
  logger?: WebhookLogger | false;
  /**
   * Longest time the handlers of one delivery may take, in milliseconds. Past it the delivery is
   * answered 500, logged, and its id is not marked as processed (so a retry runs it again);
   * the handler's `signal` aborts. Default 30 s; keep it below the service's own delivery timeout.
   */
  handlerTimeoutMs?: number;
  /**
   * Longest time a `tokens` function may take to answer, in milliseconds. Past it the delivery is
   * answered 500 and logged. Default 10 s.
   */
  tokensTimeoutMs?: number;
  /** Called for every delivery answered outside 2xx (after logging). Must not throw. */
  onError?: (error: WebhookError, context: WebhookErrorContext) => void;
}

/** What a handler is given besides the event. */
export interface WebhookHandlerContext {
  /** Aborts when the handler runs past `handlerTimeoutMs` (the delivery is then answered 500). */
  signal: AbortSignal;
}

/**
 * A handler of one event type. Throwing (or rejecting), or running past `handlerTimeoutMs`,
 * answers 500 and leaves the delivery unmarked, so a retry of it runs the handler again (the fake
 * retries; the spec does not say whether the live service does).
 */
export type WebhookHandler<Event extends WebhookEvent = WebhookEvent> = (
  event: Event,
  context: WebhookHandlerContext,
) => unknown;

/** Input of {@link WebhookReceiver.verify}. */
export interface VerifyInput {
  /** The raw body as received: a string, `Uint8Array`, `Buffer` or `ArrayBuffer`. Not a parsed object. */
  body: RawBody;
  /** The request headers: a fetch `Headers`, node's `req.headers`, or a `Map`-like object. */
  headers: HeadersInput;
}

/** Input of {@link WebhookReceiver.receive}: a request from any framework. */
export interface ReceiveInput {
  /** HTTP method; anything but POST gets 405. Omit when the framework already routed POST only. */
  method?: string;
  headers: HeadersInput;
  /**
   * The raw body, or a function reading it that stops with a 413 error past `maxBytes`. Past
   * `bodyTimeoutMs` the result is a 408 without waiting for it: stop reading then (close the
   * connection), as `nodeHandler()` and `handle()` do.
   */
  body: RawBody | BodyReader;
}

/** Reads a request body: at most `maxBytes` (past it, rejects). */
export type BodyReader = (maxBytes: number) => Promise<Uint8Array>;

/** What the receiver answers to one delivery. */
export interface WebhookResult {
  status: number;
  /** JSON body of the answer: `{ received: true }` (plus `duplicate: true`) or `{ error }`. */
  body: Record<string, unknown>;
  headers: Record<string, string>;
  /** The verified event, when verification succeeded. */
  event?: WebhookEvent;
  /** Why the delivery was refused, when it was. */
  error?: WebhookError;
  /** True when the delivery id had already been processed. */
  duplicate?: boolean;
}

/** The receiver built by {@link createWebhookReceiver}. */
export interface WebhookReceiver {
  /**
   * Checks the token and reads the envelope; resolves to the typed event. Runs no handler and
   * does not touch the duplicate store.
   * @throws {WebhookError} with the `status` to answer.
   */
  verify(input: VerifyInput): Promise<WebhookEvent>;
  /**
   * Registers a handler for one event `type` (`'unknown'` for event names this version does not
   * know), or `'*'` for every event that has no handler of its own. Several handlers of one type
   * run in order. Returns the receiver, for chaining.
   */
  on<Name extends WebhookEvent['type']>(
    type: Name,
    handler: WebhookHandler<WebhookEventOf<Name>>,
  ): WebhookReceiver;
  on(type: '*', handler: WebhookHandler): WebhookReceiver;
  /** Same as `on('unknown', handler)`: events whose name this SDK version does not know. */
  onUnknown(handler: WebhookHandler<WebhookEventOf<typeof UNKNOWN_EVENT>>): WebhookReceiver;
  /** Verifies, de-duplicates and dispatches one delivery; never throws. For any framework. */
  receive(input: ReceiveInput): Promise<WebhookResult>;
  /** Fetch-style handler (Hono, Next.js route handlers, Bun, Deno, Cloudflare Workers). Never throws. */
  handle(request: Request): Promise<Response>;
  /** A `(req, res, next?)` handler for `node:http` and Express that reads the raw body itself. */
  nodeHandler(): NodeWebhookHandler;
}

const describeValue = (value: unknown): string => {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined (was the body read by another middleware?)';
  if (Array.isArray(value)) return 'an array (a parsed JSON body?)';
  if (typeof value === 'object')
    return `${value.constructor?.name === 'Object' ? 'a plain object' : `a ${value.constructor?.name ?? 'object'}`} (a parsed body?)`;
  return `a ${typeof value}`;
};

/** The raw body as bytes or text; a parsed object, a stream or nothing is a mounting mistake. */
function asRawBody(body: unknown): Uint8Array | string {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  throw new WebhookRawBodyRequiredError(describeValue(body));
}

const HANDLER_KEYS: ReadonlySet<string> = new Set([
  ...RESERVATION_EVENT_TYPES,
  TEST_EVENT,
  UNKNOWN_EVENT,
  '*',
]);
const encoder = new TextEncoder();
// One decoder for every delivery: a non-streaming decode keeps no state between calls.
const utf8 = new TextDecoder('utf-8', { fatal: true });
// JSON media types, and the generic ones a sender may put on JSON (the live service's headers are
// not published: refusing `text/plain` JSON would lose every event). Only a Content-Type naming
// another format (a form, XML, HTML, multipart) is refused with 415.
const READABLE_MEDIA_TYPE =
  /^(?:application\/(?:[\w.+-]+\+)?json|text\/(?:[\w.+-]+\+)?json|text\/plain|application\/octet-stream)$/i;
const BYTE_ORDER_MARK = '\uFEFF';

const hex = (bytes: ArrayBuffer): string =>
  Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, '0')).join('');

async function bodyDigestId(bytes: Uint8Array): Promise<string> {
  return `sha256:${hex(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>))}`;
}

/**
 * Reads a fetch `Request` body, cancelling the stream past `maxBytes`. `reading.stop` cancels it
 * from outside (the body's time ran out): the reader holds the stream's lock, so only it can.
 */
async function readRequestBody(
  request: Request,
  maxBytes: number,
  reading: { stop(): void },
): Promise<Uint8Array> {
  if (request.bodyUsed) throw new WebhookRawBodyRequiredError('a Request whose body was already read');
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  reading.stop = () => void reader.cancel().catch(() => undefined);
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readLimited(reader, maxBytes);
  } catch (error) {
    throw new WebhookPayloadError('The request body could not be read', [], { cause: error });
  }
  if (!bytes) throw new WebhookPayloadTooLargeError(maxBytes);
  return bytes;
}

// The pattern of the last token list seen: the list rarely changes, and redacting is for refusals only.
let redaction: { tokens: readonly string[]; key: string; version: number; pattern: RegExp | undefined } = {
  tokens: [],
  key: '',
  version: -1,
  pattern: undefined,
};

/**
 * `text` without the accepted tokens, nor any webhook token the client read from the service, in
 * any letter case, percent-encoded or JSON-escaped (a handler's error may quote a token as a URL
 * or a JSON body quoted it). Accepted tokens are redacted whatever their length: they are known
 * to be secrets.
 */
const redactTokens = (text: string, tokens: readonly string[]): string => {
  const version = rememberedWebhookTokensVersion();
  if (redaction.tokens !== tokens || redaction.version !== version) {
    const key = tokens.join('\n');
    if (redaction.key !== key || redaction.version !== version) {
      redaction = {
        tokens,
        key,
        version,
        pattern: secretsPattern([...tokens, ...rememberedWebhookTokens()], 1),
      };
    } else redaction = { ...redaction, tokens };
  }
  return redaction.pattern ? text.replace(redaction.pattern, '[redacted]') : text;
};

/**
 * The delivery within its webhook: its event name, its reservation's id (empty without one) and
 * its id. A retry repeats all three, and ids that repeat across event types or reservations (a
 * service numbering each kind apart) still make two keys. Encoded, so that a `:` in what the
 * sender wrote cannot run into the next part.
 */
function deliveryPart(event: WebhookEvent): string {
  const id = (event.reservation as { id?: unknown } | null | undefined)?.id;
  const reservationId = typeof id === 'number' || (typeof id === 'string' && id !== '') ? String(id) : '';
  return `${encodeURIComponent(event.event)}:${encodeURIComponent(reservationId)}:${event.id}`;
}

/**
 * Creates a webhook receiver: it checks each delivery's token in constant time, reads the
 * envelope tolerantly into a typed event, drops repeated deliveries, and runs your handlers.
 *
 * @example Express: mount before express.json(), or on a route without it
 * ```ts
 * import { createWebhookReceiver } from 'restaurant-partner-sdk/webhooks';
 * const receiver = createWebhookReceiver({ tokens: [process.env.WEBHOOK_TOKEN!] })
 *   .on('RESERVATION_CONFIRMED', async (event) => markConfirmed(event.reservation.id))
 *   .on('RESERVATION_CANCELLED', async (event) => release(event.reservation.id));
 * app.post('/webhooks/reservations', receiver.nodeHandler());
 * ```
 * @example Fetch-style (Hono, Next.js, Bun, Deno)
 * ```ts
 * export const POST = (request: Request) => receiver.handle(request);
 * ```
 */
export function createWebhookReceiver(options: WebhookReceiverOptions): WebhookReceiver {
  const tokenSource = validateOptions(options);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const tokenHeader = options.tokenHeader?.toLowerCase();
  const duplicateStore =
    options.duplicateStore === false ? undefined : (options.duplicateStore ?? createMemoryDuplicateStore());
  const logger = options.logger === false ? undefined : (options.logger ?? consoleWarnings);
  const handlerTimeoutMs = options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS;
  const tokensTimeoutMs = options.tokensTimeoutMs ?? DEFAULT_TOKENS_TIMEOUT_MS;
  checkClaimLength(duplicateStore, handlerTimeoutMs);
  const ownWebhookId = options.webhookId === undefined ? undefined : String(options.webhookId);
  const handlersByType = new Map<string, WebhookHandler[]>();
  // Fingerprints of webhook tokens (keying deliveries that name no webhook), computed once per token.
  const fingerprints = new Map<string, Promise<string>>();

  function acceptedTokens(): readonly string[] | Promise<readonly string[]> {
    // A list is used as it is (checked at creation), without a trip through the microtask queue.
    if (typeof tokenSource !== 'function') return tokenSource;
    return providedTokens(tokenSource);
  }

  async function providedTokens(
    provider: Exclude<TokenSource, readonly string[]>,
  ): Promise<readonly string[]> {
    let tokens: unknown;
    try {
      tokens = await withTimeLimit(
        provider,
        tokensTimeoutMs,
        () =>
          new WebhookConfigurationError(
            `The webhook token provider did not answer within ${tokensTimeoutMs} ms (option tokensTimeoutMs)`,
          ),
      );
    } catch (error) {
      if (error instanceof WebhookConfigurationError) throw error;
      throw new WebhookConfigurationError('The webhook token provider failed', { cause: error });
    }
    if (
      !Array.isArray(tokens) ||
      tokens.length === 0 ||
      !tokens.every((token) => typeof token === 'string' && token !== '')
    ) {
      throw new WebhookConfigurationError(
        'The webhook token provider must return a non-empty list of non-empty strings',
      );
    }
    const padded = tokens.findIndex(hasSurroundingWhitespace);
    if (padded !== -1)
      throw new WebhookConfigurationError(
        `The webhook token provider returned ${paddedTokenProblem(padded)}`,
      );
    return tokens;
  }

  /** The accepted tokens and the one the delivery presented (at once for a token list). */
  function authenticate(readHeader: HeaderReader): Soon<Verified> {
    const presented = presentedTokens(readHeader, tokenHeader);
    // Checked first so that token-less traffic never costs a call to the partner's secret store.
    if (presented.length === 0) throw new WebhookVerificationError('missing');
    const pending = acceptedTokens();
    if (Array.isArray(pending)) return matchToken(presented, pending);
    return matchLater(pending as Promise<readonly string[]>, presented);
  }

  const matchLater = (pending: Promise<readonly string[]>, presented: readonly string[]): Promise<Verified> =>
    pending.then((tokens) => matchToken(presented, tokens));

  function matchToken(presented: readonly string[], tokens: readonly string[]): Verified {
    const index = matchingTokenIndex(presented, tokens);
    if (index === -1) throw new WebhookVerificationError('mismatch');
    return new Verified(tokens, tokens[index]!);
  }

  /** What the headers must say before the body is read: a readable media type, a length in bounds. */
  function checkHeaders(readHeader: HeaderReader): void {
    const contentType = readHeader('content-type')[0]?.split(';')[0]?.trim();
    // A missing Content-Type is tolerated too: the body is read as JSON all the same.
    if (contentType && !READABLE_MEDIA_TYPE.test(contentType))
      throw new WebhookUnsupportedMediaTypeError(contentType);
    const declaredLength = Number(readHeader('content-length')[0]);
    if (Number.isFinite(declaredLength) && declaredLength > maxBodyBytes)
      throw new WebhookPayloadTooLargeError(maxBodyBytes);
  }

  /** Calls `read` under the body's time limit, which started at `startedAt` (the headers). */
  function readBodyInTime(read: BodyReader, startedAt: number): Promise<Uint8Array> {
    return withTimeLimit(
      () => read(maxBodyBytes),
      Math.max(0, startedAt + bodyTimeoutMs - Date.now()),
      () => new WebhookBodyTimeoutError(bodyTimeoutMs),
    );
  }

  /** `verify()`: the token, the headers and the body as an event, without the duplicate store. */
  async function verifyDelivery(headers: HeadersInput, body: ReceiveInput['body']): Promise<WebhookEvent> {
    // A parsed body is a mistake in the partner's app, reported before anything about the request.
    const given = typeof body === 'function' ? undefined : asRawBody(body);
    const readHeader = readHeaders(headers);
    await authenticate(readHeader);
    checkHeaders(readHeader);
    return readEvent(given ?? (await readBodyInTime(body as BodyReader, Date.now())));
  }

  /** The body as an event: its size, UTF-8, JSON and envelope (at once unless it needs a digest). */
  function readEvent(given: Uint8Array | string): Soon<WebhookEvent> {
    const bytes = typeof given === 'string' ? undefined : given;
    const size = bytes ? bytes.byteLength : given.length;
    // A string's UTF-8 size is at least its length: the exact size is only needed near the limit.
    if (
      size > maxBodyBytes ||
      (bytes === undefined &&
        size * 3 > maxBodyBytes &&
        encoder.encode(given as string).byteLength > maxBodyBytes)
    ) {
      throw new WebhookPayloadTooLargeError(maxBodyBytes);
    }

    let text: string;
    try {
      // The decoder drops a leading byte-order mark; a string body that kept one is read the same way.
      text =
        typeof given === 'string'
          ? given.startsWith(BYTE_ORDER_MARK)
            ? given.slice(1)
            : given
          : utf8.decode(bytes!);
    } catch (error) {
      throw new WebhookPayloadError('Webhook body is not valid UTF-8', [], { cause: error });
    }
    // Parsed, a body of a few hundred KiB nesting `[[[[...` costs tens of MB: refused unparsed.
    const unreadable = unreadableJson(text);
    if (unreadable) throw new WebhookPayloadError(`Webhook body refused: ${unreadable.message}`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      if (text.trim() === '') throw new WebhookPayloadError('Webhook body is empty');
      throw new WebhookPayloadError('Webhook body is not valid JSON', [], { cause: error });
    }
    // The body's digest stands in for a delivery id only when the envelope carries none.
    if (envelopeDeliveryId(json) !== undefined) return parseWebhookEvent(json, undefined);
    return bodyDigestId(bytes ?? encoder.encode(given as string)).then((fallbackId) =>
      parseWebhookEvent(json, fallbackId),
    );
  }

  /** Where the delivery is kept in the duplicate store (see the `duplicateStore` option). */
  function duplicateKey(event: WebhookEvent, token: string): string | Promise<string> {
    const webhookId = envelopeWebhookId(event) ?? ownWebhookId;
    if (webhookId !== undefined) return `webhook-${encodeURIComponent(webhookId)}:${deliveryPart(event)}`;
    return tokenKey(event, token);
  }

  async function tokenKey(event: WebhookEvent, token: string): Promise<string> {
    let fingerprint = fingerprints.get(token);
    if (!fingerprint) {
      // Domain-separated and shortened: the key never carries the token, nor a digest of it alone.
      fingerprint = crypto.subtle
        .digest('SHA-256', encoder.encode(`restaurant-partner-sdk webhook\n${token}`))
        .then((digest) => hex(digest).slice(0, 16));
      if (fingerprints.size >= 64) fingerprints.clear();
      fingerprints.set(token, fingerprint);
    }
    return `token-${await fingerprint}:${deliveryPart(event)}`;
  }

  function log(level: keyof WebhookLogger, message: string, details: Record<string, unknown>): void {
    try {
      logger?.[level]?.(message, details);
    } catch {
      // A broken logger must not turn an answer into a crash.
    }
  }

  function report(error: WebhookError, tokens: readonly string[], event?: WebhookEvent): void {
    const details: Record<string, unknown> = { status: error.status, error: error.name };
    // The delivery's own fields come from a verified sender, yet are text it chose: redacted too.
    if (event)
      Object.assign(details, {
        deliveryId: redactTokens(event.id, tokens),
        event: redactTokens(event.event, tokens),
      });
    if (error.cause instanceof Error)
      details.cause = redactTokens(`${error.cause.name}: ${error.cause.message}`, tokens);
    const line = `Webhook delivery answered ${error.status}: ${redactTokens(error.message, tokens)}`;
    log(error.status >= 500 ? 'error' : 'warn', line, details);
    try {
      options.onError?.(error, event ? { status: error.status, event } : { status: error.status });
    } catch {
      // Same for onError.
    }
  }

  function refusal(error: WebhookError, tokens: readonly string[], event?: WebhookEvent): WebhookResult {
    report(error, tokens, event);
    publish('webhookDelivery', () => ({
      eventType: event?.type,
      result: error.status >= 500 ? 'failed' : 'refused',
      status: error.status,
      duplicate: false,
    }));
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (error.status === 401) headers['www-authenticate'] = 'Bearer';
    if (error.status === 405) headers.allow = 'POST';
    // The rest of an oversized or trickling body is not worth reading.
    if (error.status === 413 || error.status === 408) headers.connection = 'close';
    // The service stores the answer as `last_response`; the message says what was wrong, never a token.
    const message =
      error instanceof WebhookHandlerError ? 'The webhook handler failed; retry later' : error.message;
    return event
      ? { status: error.status, body: { error: message }, headers, error, event }
      : { status: error.status, body: { error: message }, headers, error };
  }

  const accepted = (event: WebhookEvent, duplicate: boolean): WebhookResult => {
    publish('webhookDelivery', () => ({ eventType: event.type, result: 'accepted', status: 200, duplicate }));
    return duplicate
      ? {
          status: 200,
          body: { received: true, duplicate: true },
          headers: { 'content-type': 'application/json' },
          event,
          duplicate: true,
        }
      : { status: 200, body: { received: true }, headers: { 'content-type': 'application/json' }, event };
  };

  const { process, processKeyed } = createDispatcher({
    duplicateStore,
    handlersByType,
    handlerTimeoutMs,
    debug: typeof logger?.debug === 'function',
    log,
    refusal,
    accepted,
    redact: redactTokens,
  });

  function processOnce(event: WebhookEvent, verified: Verified): Soon<WebhookResult> {
    if (!duplicateStore) return process(event, undefined, verified.tokens);
    let key: Soon<string>;
    try {
      key = duplicateKey(event, verified.token);
    } catch (cause) {
      return unkeyed(cause, event, verified);
    }
    if (!(key instanceof Promise)) return processKeyed(event, key, verified.tokens);
    return keyLater(key, event, verified);
  }

  const keyLater = (key: Promise<string>, event: WebhookEvent, verified: Verified): Promise<WebhookResult> =>
    key.then(
      (known) => processKeyed(event, known, verified.tokens),
      (cause: unknown) => unkeyed(cause, event, verified),
    );

  const unkeyed = (cause: unknown, event: WebhookEvent, verified: Verified): WebhookResult =>
    refusal(
      new WebhookConfigurationError('The delivery could not be keyed for the duplicate store', { cause }),
      verified.tokens,
      event,
    );

  /** Method, raw body, token and headers: the delivery ready for its body, or the refusal. */
  function open(
    method: string | undefined,
    headers: HeadersInput,
    body: ReceiveInput['body'],
  ): Soon<OpenDelivery | WebhookResult> {
    let verified: Soon<Verified>;
    let readHeader: HeaderReader;
    let given: Uint8Array | string | undefined;
    try {
      if (method !== undefined && method !== 'POST' && method.toUpperCase() !== 'POST')
        throw new WebhookMethodNotAllowedError(method);
      // A parsed body is a mistake in the partner's app, reported before anything about the request.
      given = typeof body === 'function' ? undefined : asRawBody(body);
      readHeader = readHeaders(headers);
      verified = authenticate(readHeader);
    } catch (cause) {
      return refusal(asWebhookError(cause), NO_TOKENS);
    }
    if (!(verified instanceof Promise)) return checkOpen(verified, readHeader, given);
    return openLater(verified, readHeader, given);
  }

  function checkOpen(
    verified: Verified,
    readHeader: HeaderReader,
    given: Uint8Array | string | undefined,
  ): OpenDelivery | WebhookResult {
    try {
      checkHeaders(readHeader);
    } catch (cause) {
      return refusal(asWebhookError(cause), verified.tokens);
    }
    return new OpenDelivery(verified, given);
  }

  const openLater = (
    verified: Promise<Verified>,
    readHeader: HeaderReader,
    given: Uint8Array | string | undefined,
  ): Promise<OpenDelivery | WebhookResult> =>
    verified.then(
      (known) => checkOpen(known, readHeader, given),
      (cause: unknown) => refusal(asWebhookError(cause), NO_TOKENS),
    );

  /** The body arrived: the event, then its answer. */
  function finish(delivery: OpenDelivery, body: Uint8Array | string): Soon<WebhookResult> {
    let event: Soon<WebhookEvent>;
    try {
      event = readEvent(body);
    } catch (cause) {
      return refuse(delivery, cause);
    }
    if (!(event instanceof Promise)) return processOnce(event, delivery.verified);
    return eventLater(event, delivery);
  }

  const eventLater = (event: Promise<WebhookEvent>, delivery: OpenDelivery): Promise<WebhookResult> =>
    event.then(
      (known) => processOnce(known, delivery.verified),
      (cause: unknown) => refuse(delivery, cause),
    );

  const refuse = (delivery: OpenDelivery, cause: unknown): WebhookResult =>
    refusal(asWebhookError(cause), delivery.verified.tokens);

  const steps: DeliverySteps = {
    open,
    finish,
    refuse,
    maxBodyBytes,
    bodyTimeoutMs,
    bodyDeadlines: new BodyDeadlines(),
  };

  const receiver: WebhookReceiver = {
    async verify(input) {
      try {
        return await verifyDelivery(input?.headers, input?.body);
      } catch (error) {
        throw asWebhookError(error);
      }
    },
    on(type: string, handler: WebhookHandler<never>) {
      if (!HANDLER_KEYS.has(type)) {
        // A typo such as RESERVATION_CANCELED would otherwise never fire, silently.
        throw new TypeError(
          `on(${JSON.stringify(type)}): not an event type; expected one of ${[...HANDLER_KEYS].join(', ')}`,
        );
      }
      if (typeof handler !== 'function')
        throw new TypeError(`on(${JSON.stringify(type)}, handler): handler must be a function`);
      handlersByType.set(type, [...(handlersByType.get(type) ?? []), handler as WebhookHandler]);
      return receiver;
    },
    onUnknown(handler) {
      return receiver.on(UNKNOWN_EVENT, handler);
    },
    async receive(input) {
      // The body's time limit counts from here: the headers have arrived.
      const startedAt = Date.now();
      const opened = await open(input.method, input.headers, input.body);
      if (!(opened instanceof OpenDelivery)) return opened;
      let body = opened.given;
      if (body === undefined) {
        try {
          body = await readBodyInTime(input.body as BodyReader, startedAt);
        } catch (cause) {
          return refuse(opened, cause);
        }
      }
      return finish(opened, body);
    },
    async handle(request) {
      const reading = { stop: () => {} };
      const result = await receiver.receive({
        method: request.method,
        headers: request.headers,
        body: (maxBytes) => readRequestBody(request, maxBytes, reading),
      });
      // A trickling body is not read on after its 408.
      if (result.status === 408) reading.stop();
      return new Response(JSON.stringify(result.body), { status: result.status, headers: result.headers });
    },
    nodeHandler() {
      return createNodeHandler(receiver, steps);
    },
  };
  return receiver;
}

/** The accepted tokens of one delivery, and the one it presented. */
class Verified {
  constructor(
    readonly tokens: readonly string[],
    readonly token: string,
  ) {}
}

const NO_TOKENS: readonly string[] = [];

/** A delivery whose method, token and headers passed, with its body when it came with it. */
export class OpenDelivery {
  constructor(
    readonly verified: Verified,
    readonly given: Uint8Array | string | undefined,
  ) {}
}

/**
 * The receiver's steps for an adapter that reads the body itself (`nodeHandler()`): `open` with
 * the headers, then `finish` with the body, or `refuse` when it could not be read.
 */
export interface DeliverySteps {
  open(
    method: string | undefined,
    headers: HeadersInput,
    body: ReceiveInput['body'],
  ): Soon<OpenDelivery | WebhookResult>;
  finish(delivery: OpenDelivery, body: Uint8Array | string): Soon<WebhookResult>;
  refuse(delivery: OpenDelivery, cause: unknown): WebhookResult;
  readonly maxBodyBytes: number;
  readonly bodyTimeoutMs: number;
  /** One timer for every body being read (see `bodyTimeoutMs`). */
  readonly bodyDeadlines: BodyDeadlines;
}

/** `createWebhookReceiver` refusing its options: the same options are refused again, so not retryable. */
const optionsRefused = (message: string): WebhookConfigurationError =>
  new WebhookConfigurationError(message, { retryable: false });

/**
 * A store with leases must hold a claim longer than a handler may run, or one delivery could run
 * twice; one that renews its claims holds them as long as the handler runs, whatever their length.
 */
function checkClaimLength(store: DuplicateStore | undefined, handlerTimeoutMs: number): void {
  if (!store?.claim) return;
  const claimTtlMs = store.claimTtlMs;
  if (typeof claimTtlMs !== 'number' || !(claimTtlMs > 0)) {
    throw optionsRefused(
      'createWebhookReceiver: a duplicateStore with claim() must say how long a claim lasts (claimTtlMs)',
    );
  }
  if (store.renewsClaims !== true && claimTtlMs < handlerTimeoutMs + CLAIM_MARGIN_MS) {
    throw optionsRefused(
      `createWebhookReceiver: the duplicate store's claims last ${claimTtlMs} ms (claimTtlMs), less than handlerTimeoutMs (${handlerTimeoutMs} ms) + ${CLAIM_MARGIN_MS} ms: ` +
        'a claim that ends while its handler runs lets another receiver run the same delivery. Raise claimTtlMs or lower handlerTimeoutMs',
    );
  }
}

const asWebhookError = (error: unknown): WebhookError =>
  error instanceof WebhookError
    ? error
    : new WebhookConfigurationError('The webhook receiver failed unexpectedly', { cause: error });

// A presented token never has surrounding whitespace (headers are trimmed), so an accepted one
// that has it could never match: every delivery would get 401 with nothing saying why.
const hasSurroundingWhitespace = (token: string): boolean => token.trim() !== token;
const paddedTokenProblem = (index: number): string =>
  `tokens[${index}] with leading or trailing whitespace, which no delivery can match (a token read from a file often ends with a newline: trim it)`;

const RECEIVER_OPTIONS: ReadonlySet<string> = new Set<keyof WebhookReceiverOptions>([
  'tokens',
  'tokenHeader',
  'maxBodyBytes',
  'bodyTimeoutMs',
  'duplicateStore',
  'logger',
  'handlerTimeoutMs',
  'tokensTimeoutMs',
  'onError',
  'webhookId',
]);

function validateOptions(options: WebhookReceiverOptions): TokenSource {
  if (!options || typeof options !== 'object')
    throw optionsRefused('createWebhookReceiver(options): options are required');
  // A misspelt option (`tokenheader`) would otherwise be ignored without a word.
  const unknown = Object.keys(options).filter((key) => !RECEIVER_OPTIONS.has(key));
  if (unknown.length > 0) {
    throw optionsRefused(
      `createWebhookReceiver: unknown option ${unknown.map((key) => JSON.stringify(key)).join(', ')}; expected ${[...RECEIVER_OPTIONS].join(', ')}`,
    );
  }
  const { tokens, maxBodyBytes, tokenHeader, handlerTimeoutMs, tokensTimeoutMs, bodyTimeoutMs } = options;
  if (typeof tokens === 'string') {
    throw optionsRefused(
      'createWebhookReceiver: tokens must be a list of strings or a function, got a single string; wrap it in [ ]',
    );
  }
  if (typeof tokens !== 'function') {
    if (!Array.isArray(tokens) || tokens.length === 0) {
      throw optionsRefused(
        'createWebhookReceiver: tokens must be a non-empty list of tokens or a function returning one',
      );
    }
    const badIndex = tokens.findIndex((token) => typeof token !== 'string' || token === '');
    if (badIndex !== -1)
      throw optionsRefused(`createWebhookReceiver: tokens[${badIndex}] must be a non-empty string`);
    const padded = tokens.findIndex(hasSurroundingWhitespace);
    if (padded !== -1) throw optionsRefused(`createWebhookReceiver: ${paddedTokenProblem(padded)}`);
  }
  if (maxBodyBytes !== undefined && (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 1)) {
    throw optionsRefused('createWebhookReceiver: maxBodyBytes must be a positive integer');
  }
  for (const [name, value] of [
    ['handlerTimeoutMs', handlerTimeoutMs],
    ['tokensTimeoutMs', tokensTimeoutMs],
    ['bodyTimeoutMs', bodyTimeoutMs],
  ] as const) {
    // setTimeout cannot wait longer than 2^31 - 1 ms; a larger value would fire at once.
    if (value !== undefined && !(typeof value === 'number' && value > 0 && value <= 2_147_483_647)) {
      throw optionsRefused(
        `createWebhookReceiver: ${name} must be a number of milliseconds between 1 and 2147483647`,
      );
    }
  }
  const { webhookId } = options;
  if (
    webhookId !== undefined &&
    !((typeof webhookId === 'string' && webhookId !== '') || Number.isSafeInteger(webhookId))
  ) {
    throw new WebhookConfigurationError(
      "createWebhookReceiver: webhookId must be the webhook's id (a non-empty string or an integer)",
    );
  }
  if (tokenHeader !== undefined && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(tokenHeader)) {
    throw optionsRefused('createWebhookReceiver: tokenHeader must be a valid header name');
  }
  // Kept by reference: a partner who edits the list in place rotates without a new receiver.
  return tokens;
}
