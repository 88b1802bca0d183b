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
// Listed by hand, one name per thing (at most 30: test/house/entry-exports.test.ts counts them).
// The other types a partner meets are reachable from these: `WebhookReceiverOptions['tokens']`,
// `WebhookEventOf<'RESERVATION_CONFIRMED'>`, `Parameters<typeof buildDelivery>[0]`.
export { createWebhookReceiver } from './receiver.js';
export type {
  ReceiveInput,
  VerifyInput,
  WebhookHandler,
  WebhookReceiver,
  WebhookReceiverOptions,
  WebhookResult,
} from './types.js';
export type { NodeWebhookHandler } from './node-adapter.js';
export type { ReservationEvent, WebhookEvent, WebhookEventOf, WebhookReservation } from './events.js';
export { createMemoryDuplicateStore, type DuplicateClaim, type DuplicateStore } from './duplicates.js';
export { buildDelivery, buildDeliveryRequest, type DeliveryContent } from './delivery.js';
// One guard, for when `instanceof` fails (two copies of the package in one app): every error
// below has its `name` and `status`, so `isWebhookError(error) && error.status === 401` reads one.
export {
  isWebhookError,
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
