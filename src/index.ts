/**
 * restaurant-partner-sdk: a typed, throttled, retrying client for the Restaurant Reservation
 * Partner Service. This core entry uses only Web APIs (fetch, URL, Web Crypto, AbortSignal).
 *
 * @example
 * ```ts
 * import { PartnerClient, NoAvailabilityError } from 'restaurant-partner-sdk';
 * const client = new PartnerClient({ baseUrl, partnerId, apiToken });
 * ```
 * @module
 */

// Every export is listed by hand: this list is the public surface (what is not here is private).

// The client, its options and its hooks.
export { PartnerClient, type ClientOptions } from './client.js';
export type { RequestOptions } from './transport/call.js';
export type { ClientHooks, RequestEvent } from './transport/transport.js';
export { consoleLogger, silentLogger, type Logger } from './logger.js';

// What the service sends and takes: an exact interface and a zod schema under each name.
export {
  Reservation,
  ReservationCreateInput,
  ReservationListFilters,
} from './resources/reservations.schemas.js';
export { Restaurant } from './resources/restaurants.schemas.js';
export { PartnerProfile, PartnerProfileUpdateInput } from './resources/profile.schemas.js';
export { Webhook, WebhookCreateInput, WebhookUpdateInput } from './resources/webhooks.schemas.js';
export { readDuration, readStartTime, readTimestamp } from './time.js';

// Exactly once.
export { createMemoryBookingLedger, type BookingLedger } from './lib/booking-ledger.js';
export { IDEMPOTENCY_METADATA_KEY } from './lib/look-up-by-key.js';

// The rate budget.
export { createRateLimiter, type RateLimiterOptions } from './transport/throttle.js';
export type { Priority, RateLimiter } from './transport/rate-limiter.js';

// The dialect a client is given (the file `restaurant-partner doctor` writes).
export type { DialectFile } from './dialect/file.js';

// Errors: the family, and the guard for errors from another copy of the package.
export type { FieldIssue, RequestSent } from './errors.js';
export {
  AbortError,
  AmbiguousCreateError,
  AuthenticationError,
  BadRequestError,
  BookingLedgerUnavailableError,
  ConflictError,
  ConnectionError,
  IdempotencyKeyReuseError,
  InputValidationError,
  isIdempotencyKeyReuseError,
  isPartnerSdkError,
  NoAvailabilityError,
  NotFoundError,
  PartnerApiError,
  PartnerSdkError,
  PermissionDeniedError,
  RateLimitError,
  RateLimitWaitTooLongError,
  RebookIncompleteError,
  RebookNotConfirmedError,
  ReservationCancelledError,
  ReservationNotRebookableError,
  ResponseTooLargeError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
} from './errors.js';
export { RateLimitQueueFullError } from './transport/throttle.js';
export { DialectDriftError, isDialectDriftError } from './dialect/drift-error.js';
