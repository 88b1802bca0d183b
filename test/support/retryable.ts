/**
 * Every exported error class and the `retryable` docs/errors.md gives it: test/resources/retryable.test.ts
 * checks each value on real errors, test/docs/errors-table.test.ts checks the docs table says it.
 */
/**
 * Every exported error class and its `retryable`: a fixed value, `'by status'` (PartnerApiError
 * and ResponseTooLargeError: true for 408, 425, 429 and 5xx), `'varies'` (WebhookConfigurationError:
 * false for refused options, true for a dependency that failed), or `'none'` (not an SDK error).
 */
export const EXPECTED: Record<string, boolean | 'by status' | 'varies' | 'none'> = {
  PartnerSdkError: false,
  PartnerApiError: 'by status',
  BadRequestError: false,
  AuthenticationError: false,
  PermissionDeniedError: false,
  NotFoundError: false,
  ConflictError: false,
  NoAvailabilityError: false,
  RateLimitError: true,
  ServerError: true,
  ConnectionError: true,
  TimeoutError: true,
  AbortError: true,
  InputValidationError: false,
  ResponseValidationError: false,
  ResponseTooLargeError: 'by status',
  AmbiguousCreateError: true,
  IdempotencyKeyReuseError: false,
  BookingLedgerUnavailableError: true,
  ReservationCancelledError: false,
  ReservationNotRebookableError: false,
  RebookNotConfirmedError: false,
  RebookIncompleteError: true,
  RateLimitQueueFullError: true,
  RateLimitWaitTooLongError: true,
  RedisTimeoutError: true,
  MigrationChangedError: false,
  SchemaNotMigratedError: false,
  SyncStoppedError: true,
  WebhookError: 'varies',
  WebhookVerificationError: false,
  WebhookPayloadError: false,
  WebhookPayloadTooLargeError: false,
  WebhookUnsupportedMediaTypeError: false,
  WebhookMethodNotAllowedError: false,
  WebhookBodyTimeoutError: true,
  WebhookDeliveryInProgressError: true,
  WebhookRawBodyRequiredError: false,
  WebhookHandlerError: true,
  WebhookConfigurationError: 'varies',
  FakeError: 'none',
};
