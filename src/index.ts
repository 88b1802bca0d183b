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
export { PartnerClient, type ClientOptions, type ClientOptionOverrides } from './client.js';
export { consoleLogger, silentLogger, type Logger } from './logger.js';
export { type ClientHooks, type RequestEvent, type RequestOptions } from './transport/transport.js';
export type { RawRequest, RawRequestMethod } from './resources/request.js';
export type { LogLevel } from './transport/log-level.js';
export type { ResponseValidation } from './transport/response-validation.js';
export type { RequestHeaders } from './transport/headers.js';
export { ApiPromise, type WithResponse } from './transport/api-promise.js';
export { ListPromise, type Page } from './transport/pagination.js';
export {
  createRateLimiter,
  isRateLimitQueueFullError,
  RateLimitQueueFullError,
  type LocalRateLimiter,
  type RateLimiterOptions,
} from './transport/throttle.js';
export type {
  AcquireOptions,
  PacedRateLimiter,
  Priority,
  RateLimiter,
  RateLimitSlot,
  SlotOutcome,
} from './transport/rate-limiter.js';
export { systemClock, type Clock } from './transport/clock.js';
export { redactUrl } from './transport/error-from-response.js';
export {
  IDEMPOTENCY_METADATA_KEY,
  FINGERPRINT_METADATA_KEY,
  REBOOK_METADATA_KEY,
  type CreateReservationOptions,
  type RebookOptions,
  type WaitForConfirmationOptions,
  Reservations,
} from './resources/reservations.js';
export {
  createMemoryBookingLedger,
  type BookingLedger,
  type BookingLedgerClaim,
  type BookingLedgerEntry,
} from './lib/booking-ledger.js';
export { Restaurants } from './resources/restaurants.js';
export { Profile } from './resources/profile.js';
export { Webhooks } from './resources/webhooks.js';
export { readDuration, readStartTime, readTimestamp } from './time.js';
export {
  DIALECT_POINT_VALUES,
  DIALECT_POINTS,
  DIALECT_POINT_DESCRIPTIONS,
  type DialectPoint,
  type DialectPointValues,
} from './dialect/points.js';
export { DialectDriftError, isDialectDriftError } from './dialect/drift-error.js';
export {
  DIALECT_FILE_VERSION,
  type DialectEvidence,
  type DialectFile,
  type DialectFilePoint,
} from './dialect/file.js';
export * from './errors.js';
export * from './resources/shared.schemas.js';
export * from './resources/reservations.schemas.js';
export * from './resources/restaurants.schemas.js';
export * from './resources/profile.schemas.js';
export * from './resources/webhooks.schemas.js';
