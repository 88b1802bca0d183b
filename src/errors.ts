/**
 * The SDK's error family. Every error the SDK throws extends {@link PartnerSdkError}, and every
 * error that carries an HTTP answer extends {@link PartnerApiError}.
 *
 * The family lives in one module per kind (base, HTTP answers, calls without a usable answer,
 * bookings); this module lists it. It imports nothing of ours at run time beyond those files, so any layer
 * (and the webhook receiver) can use it.
 * No error ever holds the API token: URLs are redacted and request headers are never kept.
 *
 * @example
 * ```ts
 * try {
 *   await client.reservations.create(restaurantId, { start_time, adults: 2 });
 * } catch (error) {
 *   if (error instanceof NoAvailabilityError) offerAnotherTime();
 *   else if (error instanceof AmbiguousCreateError) repeatLater(error.idempotencyKey, error.holdUntil);
 *   else if (error instanceof PartnerSdkError && error.retryable) repeatLater();
 *   else throw error;
 * }
 * ```
 * @module
 */
export { isPartnerSdkError, PartnerSdkError, type RequestSent, type SdkErrorOptions } from './errors/base.js';
export {
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
  type RequestErrorDetails,
} from './errors/api.js';
export {
  AbortError,
  ConnectionError,
  InputValidationError,
  RateLimitWaitTooLongError,
  ResponseTooLargeError,
  ResponseValidationError,
  TimeoutError,
  type FieldIssue,
} from './errors/request.js';
export {
  AmbiguousCreateError,
  BookingLedgerUnavailableError,
  IdempotencyKeyReuseError,
  isIdempotencyKeyReuseError,
  RebookIncompleteError,
  RebookNotConfirmedError,
  ReservationCancelledError,
  ReservationNotRebookableError,
  type RebookStep,
  type UnrebookableState,
} from './errors/booking.js';
