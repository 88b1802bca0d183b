/**
 * Turns an HTTP answer outside 2xx into the right error class, with a redacted URL, the parsed
 * body and the response headers (never the request's, which carry the credentials).
 * @module
 */
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  NoAvailabilityError,
  NotFoundError,
  PartnerApiError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  type ApiErrorDetails,
} from '../errors.js';

/** Longest wait a `Retry-After` may impose on one retry. */
export const RETRY_AFTER_CAP_MS = 60_000;

/**
 * Reads `Retry-After`: delay seconds or an HTTP date, relative to `now`. Returns undefined when
 * the header is missing or unreadable, and never more than {@link RETRY_AFTER_CAP_MS}.
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(text)) ms = Number(text) * 1000;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  return Math.min(Math.max(0, Math.ceil(ms)), RETRY_AFTER_CAP_MS);
}

/** Response headers as a plain object. */
export function headersToObject(headers: Headers): Record<string, string> {
  const result: Record<string, string> = {};
  headers.forEach((value, key) => {
    // A proxy could echo cookies; they are not the partner's to see in an error dump.
    if (key !== 'set-cookie') result[key] = value;
  });
  return result;
}

const codeOf = (body: unknown): string | undefined => {
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  for (const key of ['code', 'error', 'detail']) {
    const value = record[key];
    if (typeof value === 'string' && /^no[_ ]availability$/i.test(value.trim())) return 'no_availability';
    if (typeof value === 'string' && key === 'code') return value;
  }
  return undefined;
};

/**
 * The wait a 429's or 503's `Retry-After` asks for. An HTTP date is measured from the answer's own
 * `Date` when it has a readable one: both come from the service's clock, so a client clock that is
 * off does not stretch or shorten the wait. Without it, from the client's clock (`now`).
 */
function retryAfterOf(headers: Record<string, string> | undefined, now: number): number | undefined {
  const sentAt = headers?.date === undefined ? Number.NaN : Date.parse(headers.date);
  return parseRetryAfter(headers?.['retry-after'], Number.isNaN(sentAt) ? now : sentAt);
}

/** Builds the error for one non-2xx answer. */
export function errorFromResponse(details: ApiErrorDetails & { now: number }): PartnerApiError {
  const { status, body } = details;
  const summary =
    typeof body === 'object' && body && typeof (body as { detail?: unknown }).detail === 'string'
      ? `: ${(body as { detail: string }).detail}`
      : '';
  const message = `HTTP ${status}${summary}`;
  if (status === 400 || status === 422) return new BadRequestError(message, details);
  if (status === 401) return new AuthenticationError(message, details);
  if (status === 403) return new PermissionDeniedError(message, details);
  if (status === 404) return new NotFoundError(message, details);
  if (status === 409) {
    return codeOf(body) === 'no_availability'
      ? new NoAvailabilityError(message, details)
      : new ConflictError(message, details);
  }
  if (status === 429)
    return new RateLimitError(message, {
      ...details,
      retryAfterMs: retryAfterOf(details.headers, details.now),
    });
  // A 503's Retry-After says when the service expects to be back, as a 429's does.
  if (status === 503)
    return new ServerError(message, { ...details, retryAfterMs: retryAfterOf(details.headers, details.now) });
  if (status >= 500) return new ServerError(message, details);
  return new PartnerApiError(message, details);
}
