/**
 * The SDK's error family. Every error the SDK throws extends {@link PartnerSdkError}, and every
 * error that carries an HTTP answer extends {@link PartnerApiError}.
 *
 * This module imports nothing of ours at run time (one type only), so any layer (and the webhook
 * receiver) can use it.
 * No error ever holds the API token: URLs are redacted and request headers are never kept.
 *
 * @example
 * ```ts
 * try {
 *   await client.reservations.create(restaurantId, { start_time, adults: 2 });
 * } catch (error) {
 *   if (error instanceof NoAvailabilityError) offerAnotherTime();
 *   else if (error instanceof AmbiguousCreateError) repeatLater(error.idempotencyKey, error.holdUntil);
 *   else if (isPartnerSdkError(error) && error.retryable) repeatLater();
 *   else throw error;
 * }
 * ```
 * @module
 */
import type { Reservation } from './resources/reservations.schemas.js';

/** One problem with a value: where it is (`path`, joined as `field`) and what rule it broke. */
export interface FieldIssue {
  /** Dotted path of the offending field, for example `adults` or `description.fr`. */
  field: string;
  /** Path segments as given by zod. */
  path: (string | number)[];
  /** The rule broken, as zod names it (`too_big`, `too_small`, `invalid_type`, ...). */
  code: string;
  /** A sentence a person can read. */
  message: string;
}

/**
 * Whether the request of a failed call may have reached the service, over all its attempts:
 * - `'no'`: nothing left this machine (input refused, the wait for a rate-limit slot ended, the
 *   connection could not be opened, the deadline or your abort came before sending);
 * - `'maybe'`: a request left, or may have, and no answer came back (a timeout, a dropped
 *   connection, your abort while it was in flight, an error from your own `fetch`): the service
 *   may have carried it out;
 * - `'yes'`: the service, or something in front of it, answered.
 */
export type RequestSent = 'no' | 'maybe' | 'yes';

const SENT_ORDER: Record<RequestSent, number> = { no: 0, maybe: 1, yes: 2 };

/** The stronger of two {@link RequestSent} values (`'yes'` over `'maybe'` over `'no'`). */
export function strongerSent(a: RequestSent, b: RequestSent): RequestSent {
  return SENT_ORDER[a] >= SENT_ORDER[b] ? a : b;
}

/** Options every SDK error takes. */
export interface SdkErrorOptions {
  cause?: unknown;
  /** Whether the call's request may have reached the service; `'no'` when omitted. */
  sent?: RequestSent | undefined;
  /** Whether repeating the same call later can succeed; `false` when omitted. */
  retryable?: boolean | undefined;
}

/** 408, 425, 429 and every 5xx: the service (or a gateway) may answer otherwise later. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || (status >= 500 && status <= 599);
}

/** Base class of every error thrown by this SDK. */
export class PartnerSdkError extends Error {
  override name = 'PartnerSdkError';
  /** Whether the call's request may have reached the service (see {@link RequestSent}); `'no'` for errors raised before any request. */
  readonly sent: RequestSent;
  /**
   * Whether repeating the same call later (same input, same idempotency key) can succeed. `false`
   * means it fails the same way until something changes (the input, the credentials, the
   * reservation's state): a job queue should stop retrying and fail the job. `true` means the
   * failure was about the moment (a rate limit, a failing or unreachable service, an unknown
   * outcome still being settled): retry later, with a backoff (`retryAfterMs` and `holdUntil`
   * say how much later, where they are set). It says a repeat can succeed, not that it is
   * harmless: `reservations.create` is safe to repeat with its key, while another write that
   * failed with `sent` other than `'no'` may have taken effect. Kept as an own field, so
   * `JSON.stringify(error)` shows it.
   */
  readonly retryable: boolean;
  constructor(message?: string, options?: SdkErrorOptions) {
    // No `cause` property at all when there is none: printed errors would show `[cause]: undefined`.
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.sent = options?.sent ?? 'no';
    this.retryable = options?.retryable ?? false;
  }
}

/** Details shared by errors that concern one HTTP call. */
export interface RequestErrorDetails {
  /** HTTP method, upper case. */
  method?: string;
  /** The URL called, with credentials and secret query values removed. */
  url?: string;
  /** How many attempts were made, retries included. */
  attempts?: number;
  /** Whether the request may have reached the service; each class has its own default. */
  sent?: RequestSent | undefined;
  cause?: unknown;
}

/** Details of an HTTP answer outside 2xx. */
export interface ApiErrorDetails extends RequestErrorDetails {
  status: number;
  /** Response headers (never the request's, which carry credentials). */
  headers?: Record<string, string>;
  /** Parsed JSON body, or the raw text when it was not JSON, or undefined when empty. */
  body?: unknown;
}

function describe(method: string | undefined, url: string | undefined): string {
  return method && url ? ` (${method} ${url})` : '';
}

/**
 * The service answered with a status outside 2xx. Base of every HTTP error. `retryable` is true
 * for 408, 425, 429 and every 5xx, false for every other status (a redirect that is not followed
 * included).
 */
export class PartnerApiError extends PartnerSdkError {
  override name = 'PartnerApiError';
  readonly status: number;
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly headers: Record<string, string>;
  readonly body: unknown;
  /** How many attempts were made, retries included. */
  readonly attempts: number;

  constructor(message: string, details: ApiErrorDetails) {
    // An answer came back: the request was sent.
    super(`${message}${describe(details.method, details.url)}`, {
      cause: details.cause,
      sent: 'yes',
      retryable: isRetryableStatus(details.status),
    });
    this.status = details.status;
    this.method = details.method;
    this.url = details.url;
    this.headers = details.headers ?? {};
    this.body = details.body;
    this.attempts = details.attempts ?? 1;
  }

  /** The service's own explanation (`detail`, `message` or `error` of the body), if any. */
  get detail(): string | undefined {
    const body = this.body as Record<string, unknown> | undefined;
    if (typeof body === 'string') return body || undefined;
    for (const key of ['detail', 'message', 'error'] as const) {
      if (body && typeof body[key] === 'string') return body[key];
    }
    return undefined;
  }
}

/** Field name to messages, read from a `{field: [messages]}` body (Django REST style) when present. */
function readFieldErrors(body: unknown): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  if (!body || typeof body !== 'object' || Array.isArray(body)) return result;
  const source = (body as Record<string, unknown>).errors ?? (body as Record<string, unknown>).fields ?? body;
  if (!source || typeof source !== 'object') return result;
  // Nested maps (`{"description": {"fr": ["..."]}}`) are named by dotted path, a few levels deep.
  const visit = (map: Record<string, unknown>, prefix: string, depth: number) => {
    for (const [key, value] of Object.entries(map)) {
      if (depth === 0 && (key === 'detail' || key === 'code')) continue;
      const field = `${prefix}${key}`;
      if (Array.isArray(value))
        result[field] = value.map((item) =>
          typeof item === 'string' ? item : (JSON.stringify(item) ?? String(item)),
        );
      else if (typeof value === 'string') result[field] = [value];
      else if (value && typeof value === 'object' && depth < 4)
        visit(value as Record<string, unknown>, `${field}.`, depth + 1);
    }
  };
  visit(source as Record<string, unknown>, '', 0);
  return result;
}

// A hostile or verbose answer must not make a message that floods a log line.
const MAX_FIELD_SUMMARY_LENGTH = 300;

/** `email: Enter a valid email address.; phone: ...`, cut to a bounded length. */
function summarizeFieldErrors(fieldErrors: Record<string, string[]>): string {
  const summary = Object.entries(fieldErrors)
    .map(([field, messages]) => `${field}: ${messages.join(' ')}`)
    .join('; ');
  return summary.length > MAX_FIELD_SUMMARY_LENGTH
    ? `${summary.slice(0, MAX_FIELD_SUMMARY_LENGTH - 1)}…`
    : summary;
}

/**
 * 400 or 422: the service refused the input. `fieldErrors` maps each field to its messages, and
 * the message names them too (`HTTP 400: Invalid input. email: Enter a valid email address.`).
 * Not retryable: the same input is refused again.
 */
export class BadRequestError extends PartnerApiError {
  override name = 'BadRequestError';
  constructor(message: string, details: ApiErrorDetails) {
    const summary = summarizeFieldErrors(readFieldErrors(details.body));
    super(summary ? `${message}${/[.!?]$/.test(message) ? '' : '.'} ${summary}` : message, details);
  }
  /** Field name to messages, read from a `{field: [messages]}` body (Django REST style) when present. */
  get fieldErrors(): Record<string, string[]> {
    return readFieldErrors(this.body);
  }
}
/** 401: the partner id or API token was refused. Never retried, and not retryable: fix the credentials. */
export class AuthenticationError extends PartnerApiError {
  override name = 'AuthenticationError';
}
/** 403: authenticated, but not allowed to do this. Not retryable. */
export class PermissionDeniedError extends PartnerApiError {
  override name = 'PermissionDeniedError';
}
/** 404: the restaurant, reservation or webhook does not exist or is not visible to this partner. Not retryable. */
export class NotFoundError extends PartnerApiError {
  override name = 'NotFoundError';
}
/** 409: the request conflicts with the current state (for example cancelling after arrival). Not retryable. */
export class ConflictError extends PartnerApiError {
  override name = 'ConflictError';
  /** Machine-readable `code` from the body, when the service gives one. */
  get code(): string | undefined {
    const body = this.body as Record<string, unknown> | undefined;
    return body && typeof body === 'object' && typeof body.code === 'string' ? body.code : undefined;
  }
}
/**
 * 409 with `code: "no_availability"`: the restaurant has no table for that time and party. Not
 * retryable: offer another time (a table may free up, but waiting for it is your decision).
 */
export class NoAvailabilityError extends ConflictError {
  override name = 'NoAvailabilityError';
}
/** 429: the rate limit was exceeded and the client's own retries ran out. Retryable. */
export class RateLimitError extends PartnerApiError {
  override name = 'RateLimitError';
  /**
   * The wait the service asked for in `Retry-After` (delay seconds, or an HTTP date measured
   * from the answer's own `Date`, else from the client's clock), in milliseconds, at most 60 s;
   * undefined when the answer had no readable `Retry-After`.
   */
  readonly retryAfterMs: number | undefined;
  constructor(message: string, details: ApiErrorDetails & { retryAfterMs?: number | undefined }) {
    super(message, details);
    this.retryAfterMs = details.retryAfterMs;
  }
}
/**
 * 5xx: the service failed. The client retries it only where repeating the request cannot do harm;
 * retryable (a create that got one ends in a look-up, then {@link AmbiguousCreateError}, instead).
 * A 503's `Retry-After` is honoured as a 429's is (`retryAfterMs`).
 */
export class ServerError extends PartnerApiError {
  override name = 'ServerError';
  readonly retryAfterMs: number | undefined;
  constructor(message: string, details: ApiErrorDetails & { retryAfterMs?: number | undefined }) {
    super(message, details);
    this.retryAfterMs = details.retryAfterMs;
  }
}

/**
 * No HTTP answer was received (DNS failure, refused or reset connection). `sent` tells whether the
 * request may have left: `'no'` only when the connection itself could not be opened. Retryable.
 */
export class ConnectionError extends PartnerSdkError {
  override name = 'ConnectionError';
  readonly method: string | undefined;
  readonly url: string | undefined;
  /** How many attempts were made, retries included. */
  readonly attempts: number;
  constructor(message: string, details: RequestErrorDetails = {}) {
    super(`${message}${describe(details.method, details.url)}`, {
      cause: details.cause,
      sent: details.sent ?? 'maybe',
      retryable: true,
    });
    this.method = details.method;
    this.url = details.url;
    this.attempts = details.attempts ?? 1;
  }
}
/**
 * An attempt took longer than `timeoutMs`, or the call's `deadlineMs` passed (or
 * `waitForConfirmation` waited its time). Retryable.
 */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError';
}

/**
 * An answer was larger than the client's `maxResponseBytes`. The body was refused while it was
 * read (never held in memory beyond the limit). Retryable only when the answer was a 5xx (or
 * another retryable status: a failing gateway's page); a 2xx that large comes back as large, so
 * raise `maxResponseBytes` instead.
 */
export class ResponseTooLargeError extends PartnerSdkError {
  override name = 'ResponseTooLargeError';
  readonly method: string | undefined;
  readonly url: string | undefined;
  /** HTTP status of the answer whose body was refused. */
  readonly status: number;
  /** The limit that was passed, in bytes. */
  readonly maxResponseBytes: number;
  /** How many attempts were made, retries included. */
  readonly attempts: number;
  constructor(details: RequestErrorDetails & { status: number; maxResponseBytes: number }) {
    super(
      `The answer (HTTP ${details.status}) is larger than maxResponseBytes (${details.maxResponseBytes} bytes)${describe(details.method, details.url)}`,
      { sent: 'yes', retryable: isRetryableStatus(details.status) },
    );
    this.method = details.method;
    this.url = details.url;
    this.status = details.status;
    this.maxResponseBytes = details.maxResponseBytes;
    this.attempts = details.attempts ?? 1;
  }
}
/** True when an answer was refused for passing `maxResponseBytes`. */
export const isResponseTooLargeError = (error: unknown): error is ResponseTooLargeError =>
  error instanceof ResponseTooLargeError;
/**
 * The caller's `signal` aborted the call (during a request, a throttle wait or a retry sleep).
 * `sent` tells whether its request may have reached the service before the abort.
 *
 * Retryable: the abort was yours, and nothing the service said stops a repeat from succeeding. A
 * worker that aborts its calls because it is shutting down must leave the job to be retried, not
 * fail it for good. When you aborted because the work is no longer wanted, you know it: don't
 * repeat.
 */
export class AbortError extends PartnerSdkError {
  override name = 'AbortError';
  /** How many attempts were made, retries included (0: aborted before the first was sent). */
  readonly attempts: number;
  constructor(
    message?: string,
    options?: { cause?: unknown; sent?: RequestSent | undefined; attempts?: number | undefined },
  ) {
    super(message, { cause: options?.cause, sent: options?.sent, retryable: true });
    this.attempts = options?.attempts ?? 0;
  }
}

/** Shared shape of the two validation errors. */
abstract class ValidationError extends PartnerSdkError {
  readonly issues: FieldIssue[];
  constructor(prefix: string, issues: FieldIssue[], sent: RequestSent) {
    super(`${prefix}: ${issues.map((issue) => `${issue.field || '(root)'}: ${issue.message}`).join('; ')}`, {
      sent,
    });
    this.issues = issues;
  }
  /** The first offending field, for the common one-problem case. */
  get field(): string | undefined {
    return this.issues[0]?.field;
  }
}

/**
 * Our own check of a request refused it, before any request was spent (at one request per
 * second, a wasted request costs a second). `issues` names each field and rule. Not retryable.
 */
export class InputValidationError extends ValidationError {
  override name = 'InputValidationError';
  constructor(issues: FieldIssue[]) {
    super('Invalid input', issues, 'no');
  }
}

// Names under which an answer may carry a secret: a webhook's token (the spec does not name its
// field, so every name the client reads it from) or a credential echoed back.
const SECRET_FIELD = /^(?:auth_?token|authToken|token|secret|api_?token|apiToken|password)$/i;

// Deeper parts of a body are dropped rather than walked: a hostile answer must not overflow the stack.
const MAX_REDACTION_DEPTH = 64;

/** A copy of `value` with the values of secret-named fields replaced, for bodies kept on errors. */
function redactSecretFields(value: unknown, seen = new WeakSet<object>(), depth = 0): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_REDACTION_DEPTH) return '[Truncated]';
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => redactSecretFields(item, seen, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value))
    copy[key] =
      SECRET_FIELD.test(key) && item != null ? '[REDACTED]' : redactSecretFields(item, seen, depth + 1);
  return copy;
}

/**
 * The service answered with a shape outside the documented contract. `issues` names the fields.
 * `body` is the answer with secret-named fields (a webhook's `auth_token`) redacted. Not
 * retryable: the same call gets the same answer until the service (or `responseValidation`)
 * changes. (A create that gets one looks its key up and ends in {@link AmbiguousCreateError}
 * instead.)
 */
export class ResponseValidationError extends ValidationError {
  override name = 'ResponseValidationError';
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly body: unknown;
  constructor(
    issues: FieldIssue[],
    details: { method?: string | undefined; url?: string | undefined; body?: unknown } = {},
  ) {
    // An answer came back, outside the contract: the request was sent.
    super(`Unexpected response${describe(details.method, details.url)}`, issues, 'yes');
    this.method = details.method;
    this.url = details.url;
    // A webhook answer that fails its check still carries the webhook's token.
    this.body = redactSecretFields(details.body);
  }
}

/**
 * A create failed in a way that leaves its outcome unknown (a 5xx, a dropped connection or a
 * timeout after the request was sent, a malformed 2xx, a redirect, your abort or the deadline after
 * sending) and looking its key up did not find it, or could not tell. The booking may still be
 * committed later (an origin behind a gateway can finish after the gateway's 504).
 *
 * Retryable, and the recovery is one recipe: **repeat the same create, with the same input and
 * `idempotencyKey`, later** (at or after `holdUntil` at the latest; in a job queue, retry with a
 * backoff until then). It is always safe: while the key is held, a repeat sends nothing and only
 * looks the key up (it returns the booking when found, or throws this error again with the same
 * `holdUntil`); after the hold, a last look-up decides, and only then may a create be sent. A
 * create without your own key got a random key, held the same way: repeat with
 * `{ idempotencyKey: error.idempotencyKey }`. Never book again with a new key: that can book twice.
 * `findByIdempotencyKey` reads the key without booking, to check.
 */
export class AmbiguousCreateError extends PartnerSdkError {
  override name = 'AmbiguousCreateError';
  /** The key the create was sent with (yours, or the random one the client chose): repeat with it. */
  readonly idempotencyKey: string;
  readonly restaurantId: number | string;
  /** How many times the create was attempted, retries included (0: nothing was sent by this call). */
  readonly attempts: number;
  /**
   * Until when (on the client's clock) a repeat with the same key sends nothing but a look-up:
   * from then on, a repeat makes a last look-up and may book. Undefined when no hold was recorded.
   */
  readonly holdUntil: Date | undefined;
  constructor(
    message: string,
    details: {
      idempotencyKey: string;
      restaurantId: number | string;
      attempts?: number;
      cause?: unknown;
      sent?: RequestSent | undefined;
      /** Until when a repeat with the same key sends nothing (on the client's clock). */
      holdUntil?: Date | undefined;
    },
  ) {
    super(message, { cause: details.cause, sent: details.sent ?? 'maybe', retryable: true });
    this.idempotencyKey = details.idempotencyKey;
    this.restaurantId = details.restaurantId;
    this.attempts = details.attempts ?? 1;
    // A copy: the caller's Date stays theirs to change.
    this.holdUntil = details.holdUntil === undefined ? undefined : new Date(details.holdUntil.getTime());
  }
}

/**
 * A create reused an idempotency key for another booking: the key is already tied to a booking
 * (or a create still running) whose restaurant, start time, party size or guest fields differ.
 * Nothing was sent. `fields` names the fields that differ. Use a new key for a new booking (derive
 * it from your order id and what makes the booking different), or repeat the first booking's
 * input exactly. Not retryable: the same call is refused again.
 */
export class IdempotencyKeyReuseError extends PartnerSdkError {
  override name = 'IdempotencyKeyReuseError';
  readonly idempotencyKey: string;
  readonly restaurantId: number | string;
  /** The fields whose values differ from the booking the key already names (`start_time`, `adults`, ...). */
  readonly fields: string[];
  constructor(details: { idempotencyKey: string; restaurantId: number | string; fields: string[] }) {
    super(
      `Idempotency key ${JSON.stringify(details.idempotencyKey)} already names a booking with other values of ${details.fields.join(', ')}; nothing was sent. Use a new key for a new booking.`,
      { retryable: false },
    );
    this.idempotencyKey = details.idempotencyKey;
    this.restaurantId = details.restaurantId;
    this.fields = [...details.fields];
  }
}

/**
 * The booking ledger could not be read or written (its Redis is unreachable or too slow), so a
 * create with your own idempotency key was not sent: without the ledger the client cannot tell
 * whether another process is booking, or has booked, with that key. Nothing was sent; repeat the
 * create once the ledger's store is back (retryable).
 */
export class BookingLedgerUnavailableError extends PartnerSdkError {
  override name = 'BookingLedgerUnavailableError';
  readonly idempotencyKey: string;
  constructor(message: string, details: { idempotencyKey: string; cause?: unknown }) {
    super(message, { cause: details.cause, retryable: true });
    this.idempotencyKey = details.idempotencyKey;
  }
}

/**
 * `waitForConfirmation` saw the reservation cancelled (by the restaurant or the customer) before it
 * was confirmed. `reservation` is the cancelled reservation as last read. Not retryable: a
 * cancelled reservation stays cancelled.
 */
export class ReservationCancelledError extends PartnerSdkError {
  override name = 'ReservationCancelledError';
  readonly reservation: Reservation;
  constructor(message: string, reservation: Reservation) {
    super(message, { sent: 'yes', retryable: false });
    this.reservation = reservation;
  }
}

/** True for any error thrown by this SDK. */
export const isPartnerSdkError = (error: unknown): error is PartnerSdkError =>
  error instanceof PartnerSdkError;
/** True for an HTTP answer outside 2xx. */
export const isPartnerApiError = (error: unknown): error is PartnerApiError =>
  error instanceof PartnerApiError;
/** True for a 400 or 422: the service refused the input (see `fieldErrors`). */
export const isBadRequestError = (error: unknown): error is BadRequestError =>
  error instanceof BadRequestError;
/** True for a 401: the partner id or API token was refused. */
export const isAuthenticationError = (error: unknown): error is AuthenticationError =>
  error instanceof AuthenticationError;
/** True for a 403. */
export const isPermissionDeniedError = (error: unknown): error is PermissionDeniedError =>
  error instanceof PermissionDeniedError;
/** True for a 404: not found, or not visible to this partner. */
export const isNotFoundError = (error: unknown): error is NotFoundError => error instanceof NotFoundError;
/** True for a 409 (no availability included). */
export const isConflictError = (error: unknown): error is ConflictError => error instanceof ConflictError;
/** True when the restaurant had no table for the request. */
export const isNoAvailabilityError = (error: unknown): error is NoAvailabilityError =>
  error instanceof NoAvailabilityError;
/** True when the rate limit was exceeded beyond retries. */
export const isRateLimitError = (error: unknown): error is RateLimitError => error instanceof RateLimitError;
/** True for a 5xx. */
export const isServerError = (error: unknown): error is ServerError => error instanceof ServerError;
/** True when no HTTP answer was received (timeouts included). */
export const isConnectionError = (error: unknown): error is ConnectionError =>
  error instanceof ConnectionError;
/** True when an attempt took longer than `timeoutMs`. */
export const isTimeoutError = (error: unknown): error is TimeoutError => error instanceof TimeoutError;
/** True when the caller's `signal` aborted the call. */
export const isAbortError = (error: unknown): error is AbortError => error instanceof AbortError;
/** True when our own input check refused a call. */
export const isInputValidationError = (error: unknown): error is InputValidationError =>
  error instanceof InputValidationError;
/** True when the service answered outside the contract. */
export const isResponseValidationError = (error: unknown): error is ResponseValidationError =>
  error instanceof ResponseValidationError;
/** True when a create's outcome is unknown. */
export const isAmbiguousCreateError = (error: unknown): error is AmbiguousCreateError =>
  error instanceof AmbiguousCreateError;
/** True when `waitForConfirmation` saw the reservation cancelled. */
export const isReservationCancelledError = (error: unknown): error is ReservationCancelledError =>
  error instanceof ReservationCancelledError;
/** True for an {@link IdempotencyKeyReuseError}. */
export const isIdempotencyKeyReuseError = (error: unknown): error is IdempotencyKeyReuseError =>
  error instanceof IdempotencyKeyReuseError;
/** True for a {@link BookingLedgerUnavailableError}. */
export const isBookingLedgerUnavailableError = (error: unknown): error is BookingLedgerUnavailableError =>
  error instanceof BookingLedgerUnavailableError;

/**
 * The call's place in the rate-limit queue already puts its slot past its deadline: it is refused
 * at once, never sent, instead of waiting for a slot it could not use. Shed load, retry later, or
 * give the call a longer `deadlineMs`. Retryable: the queue drains.
 */
export class RateLimitWaitTooLongError extends PartnerSdkError {
  override name = 'RateLimitWaitTooLongError';
  /** The limiter's estimate of the wait for a slot, in milliseconds. */
  readonly estimatedWaitMs: number;
  /** The time the call had left, in milliseconds. */
  readonly maxWaitMs: number;
  /** The call's priority. */
  readonly priority: 'interactive' | 'background';
  constructor(details: {
    estimatedWaitMs: number;
    maxWaitMs: number;
    priority: 'interactive' | 'background';
  }) {
    super(
      `A ${details.priority} call would wait about ${Math.ceil(details.estimatedWaitMs)} ms for a rate-limit slot, ` +
        `longer than the ${Math.max(0, Math.floor(details.maxWaitMs))} ms it has left; refused without being sent`,
      { retryable: true },
    );
    this.estimatedWaitMs = details.estimatedWaitMs;
    this.maxWaitMs = details.maxWaitMs;
    this.priority = details.priority;
  }
}
/** True when a call was refused because its rate-limit wait would outlast its deadline. */
export const isRateLimitWaitTooLongError = (error: unknown): error is RateLimitWaitTooLongError =>
  error instanceof RateLimitWaitTooLongError;

/** The state that keeps a reservation from being rebooked. */
export type UnrebookableState = 'cancelled' | 'arrived' | 'no_show';

/**
 * `reservations.rebook` refused the reservation to move: it is already cancelled, the guest
 * arrived, or was marked a no-show (`state` says which). Nothing was booked or cancelled; only the
 * reservation was read (and, when it is cancelled, your key looked up, in case an earlier rebook
 * with it already finished). Repeating will not help.
 */
export class ReservationNotRebookableError extends PartnerSdkError {
  override name = 'ReservationNotRebookableError';
  readonly restaurantId: number | string;
  readonly reservationId: number | string;
  readonly state: UnrebookableState;
  constructor(details: {
    restaurantId: number | string;
    reservationId: number | string;
    state: UnrebookableState;
  }) {
    const what = { cancelled: 'is cancelled', arrived: 'is marked arrived', no_show: 'is marked a no-show' };
    super(
      `Reservation ${details.reservationId} ${what[details.state]}, so it cannot be rebooked; nothing was booked or cancelled`,
      { sent: 'yes' },
    );
    this.restaurantId = details.restaurantId;
    this.reservationId = details.reservationId;
    this.state = details.state;
  }
}

/**
 * `reservations.rebook` booked the new time but the restaurant did not confirm it: the new booking
 * was cancelled before it was confirmed (`reason: 'cancelled'`: the restaurant refused it, or an
 * earlier rebook with this key cancelled it past its deadline), or it was not confirmed before
 * `confirmationDeadlineMs` (`reason: 'deadline'`: the client then cancelled it). Either way the old booking is untouched and the only live one. Repeating the rebook
 * with the same key ends the same way; to try again, rebook with a new key.
 */
export class RebookNotConfirmedError extends PartnerSdkError {
  override name = 'RebookNotConfirmedError';
  readonly reason: 'cancelled' | 'deadline';
  readonly idempotencyKey: string;
  readonly restaurantId: number | string;
  /** The old booking, still live. */
  readonly reservationId: number | string;
  /** The new booking, cancelled. */
  readonly newReservationId: number;
  constructor(
    message: string,
    details: {
      reason: 'cancelled' | 'deadline';
      idempotencyKey: string;
      restaurantId: number | string;
      reservationId: number | string;
      newReservationId: number;
      cause?: unknown;
    },
  ) {
    super(message, { cause: details.cause, sent: 'yes' });
    this.reason = details.reason;
    this.idempotencyKey = details.idempotencyKey;
    this.restaurantId = details.restaurantId;
    this.reservationId = details.reservationId;
    this.newReservationId = details.newReservationId;
  }
}

/** The step at which a rebook stopped: booking the new time, waiting for its confirmation, cancelling the new one (not confirmed in time), or cancelling the old one. */
export type RebookStep = 'create' | 'confirm' | 'cancel-new' | 'cancel-old';

/**
 * `reservations.rebook` stopped midway (a failure whose outcome is unknown, your abort, the
 * restaurant's service unreachable) and may have left two live bookings: the old one and the new
 * one. **Repeat the rebook with the same `idempotencyKey`** (later, from your queue's retry): it
 * picks the saga up where it stopped, books nothing more, and ends with exactly one live booking.
 * `step` says where it stopped; `newReservationId` is the new booking once known; `cause` is the
 * failure.
 */
export class RebookIncompleteError extends PartnerSdkError {
  override name = 'RebookIncompleteError';
  readonly step: RebookStep;
  readonly idempotencyKey: string;
  readonly restaurantId: number | string;
  /** The old booking. */
  readonly reservationId: number | string;
  /** The new booking, when it is known to exist. */
  readonly newReservationId: number | undefined;
  constructor(
    message: string,
    details: {
      step: RebookStep;
      idempotencyKey: string;
      restaurantId: number | string;
      reservationId: number | string;
      newReservationId?: number | undefined;
      cause?: unknown;
      sent?: RequestSent | undefined;
    },
  ) {
    // Retryable: repeating the rebook with the same key finishes it.
    super(message, { cause: details.cause, sent: details.sent ?? 'maybe', retryable: true });
    this.step = details.step;
    this.idempotencyKey = details.idempotencyKey;
    this.restaurantId = details.restaurantId;
    this.reservationId = details.reservationId;
    this.newReservationId = details.newReservationId;
  }
}

/** True for a {@link ReservationNotRebookableError}. */
export const isReservationNotRebookableError = (error: unknown): error is ReservationNotRebookableError =>
  error instanceof ReservationNotRebookableError;
/** True for a {@link RebookNotConfirmedError}. */
export const isRebookNotConfirmedError = (error: unknown): error is RebookNotConfirmedError =>
  error instanceof RebookNotConfirmedError;
/** True for a {@link RebookIncompleteError}: repeat the rebook with the same key. */
export const isRebookIncompleteError = (error: unknown): error is RebookIncompleteError =>
  error instanceof RebookIncompleteError;
