/**
 * `restaurant-partner-sdk/webhooks`: receive the service's webhook deliveries safely.
 *
 * @example
 * ```ts
 * import { createWebhookReceiver } from 'restaurant-partner-sdk/webhooks';
 *
 * const receiver = createWebhookReceiver({ tokens: [process.env.WEBHOOK_TOKEN!] })
 *   .on('RESERVATION_CONFIRMED', (event) => markConfirmed(event.restaurant_id, event.reservation.id))
 *   .on('RESERVATION_CANCELLED', (event) => release(event.reservation.id))
 *   .onUnknown((event) => console.info(`unhandled event ${event.event}`));
 *
 * app.post('/webhooks/reservations', receiver.nodeHandler()); // Express or node:http
 * export const POST = (request: Request) => receiver.handle(request); // fetch-style
 * ```
 * @module
 */
export {
  createWebhookReceiver,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_HANDLER_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  type RawBody,
  type ReceiveInput,
  type VerifyInput,
  type WebhookErrorContext,
  type WebhookHandler,
  type WebhookLogger,
  type WebhookReceiver,
  type WebhookReceiverOptions,
  type WebhookResult,
} from './receiver.js';
export {
  RESERVATION_EVENT_TYPES,
  UNKNOWN_EVENT,
  type ReservationCancelledEvent,
  type ReservationConfirmedEvent,
  type ReservationEvent,
  type ReservationModifiedEvent,
  type TestEvent,
  type UnknownEvent,
  type WebhookEventEnvelope,
  type WebhookReservation,
  type WebhookEvent,
  type WebhookEventName,
  type WebhookEventOf,
} from './events.js';
export {
  isWebhookBodyTimeoutError,
  isWebhookConfigurationError,
  isWebhookDeliveryInProgressError,
  isWebhookError,
  isWebhookHandlerError,
  isWebhookMethodNotAllowedError,
  isWebhookPayloadError,
  isWebhookPayloadTooLargeError,
  isWebhookRawBodyRequiredError,
  isWebhookUnsupportedMediaTypeError,
  isWebhookVerificationError,
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
export {
  createMemoryDuplicateStore,
  type DuplicateClaim,
  type DuplicateStore,
  type MemoryDuplicateStoreOptions,
} from './duplicates.js';
export type { HeadersInput } from './headers.js';
export type { TokenSource } from './tokens.js';
export type { NodeWebhookHandler } from './node-adapter.js';
export {
  buildDelivery,
  buildDeliveryRequest,
  TEST_EVENT,
  type BuiltDelivery,
  type DeliveryContent,
  type DeliveryReservation,
} from './delivery.js';
export { isPartnerSdkError, PartnerSdkError } from '../errors.js';
