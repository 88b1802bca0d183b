/**
 * The errors of an HTTP answer outside 2xx: {@link PartnerApiError} and one class per status the
 * service gives meaning to. One function of the transport layer,
 * `errorFromResponse`, picks the class for a status.
 * @module
 */
import { nameErrorClass, PartnerSdkError, type RequestSent } from './base.js';

/** 408, 425, 429 and every 5xx: the service (or a gateway) may answer otherwise later. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || (status >= 500 && status <= 599);
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

/** ` (GET https://...)` for a message, or nothing when the call is not known. */
export function describe(method: string | undefined, url: string | undefined): string {
  return method && url ? ` (${method} ${url})` : '';
}

/**
 * The service answered with a status outside 2xx. Base of every HTTP error. `retryable` is true
 * for 408, 425, 429 and every 5xx, false for every other status (a redirect that is not followed
 * included).
 */
export class PartnerApiError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'PartnerApiError');
  }
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
  static {
    nameErrorClass(this, 'BadRequestError');
  }
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
  static {
    nameErrorClass(this, 'AuthenticationError');
  }
}
/** 403: authenticated, but not allowed to do this. Not retryable. */
export class PermissionDeniedError extends PartnerApiError {
  static {
    nameErrorClass(this, 'PermissionDeniedError');
  }
}
/** 404: the restaurant, reservation or webhook does not exist or is not visible to this partner. Not retryable. */
export class NotFoundError extends PartnerApiError {
  static {
    nameErrorClass(this, 'NotFoundError');
  }
}
/** 409: the request conflicts with the current state (for example cancelling after arrival). Not retryable. */
export class ConflictError extends PartnerApiError {
  static {
    nameErrorClass(this, 'ConflictError');
  }
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
  static {
    nameErrorClass(this, 'NoAvailabilityError');
  }
}
/** 429: the rate limit was exceeded and the client's own retries ran out. Retryable. */
export class RateLimitError extends PartnerApiError {
  static {
    nameErrorClass(this, 'RateLimitError');
  }
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
  static {
    nameErrorClass(this, 'ServerError');
  }
  readonly retryAfterMs: number | undefined;
  constructor(message: string, details: ApiErrorDetails & { retryAfterMs?: number | undefined }) {
    super(message, details);
    this.retryAfterMs = details.retryAfterMs;
  }
}
