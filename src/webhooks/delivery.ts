/**
 * The shape of one webhook delivery, in one place: the fake sends exactly this, the receiver's
 * tests and partners' tests build exactly this. The live payload shape is not published, so this
 * is our documented choice (README, "Where the interface spec is silent"), and the receiver reads it tolerantly.
 * @module
 */
import type { Reservation } from '../resources/reservations.schemas.js';

export { TEST_EVENT } from '../resources/event-names.js';

/**
 * The reservation a delivery carries. The receiver needs only `id` (a service may send only what
 * changed), so `{ id: 41 }` is a valid delivery; give the whole reservation, as the fake does, to
 * test code that reads more of it.
 */
export type DeliveryReservation = Pick<Reservation, 'id'> & Partial<Omit<Reservation, 'id'>>;

/** What a delivery is about. */
export interface DeliveryContent {
  /** The event name: one of `WebhookEventType` (every reservation event), or `TEST`. */
  event: string;
  /** The reservation (at least its `id`), as the partner API would return it; null for test deliveries. */
  reservation?: DeliveryReservation | null;
  restaurantId?: number | null;
  /** Unique per event (kept across retries of the same event), used to drop duplicates. */
  id?: string;
  /**
   * The webhook the delivery is sent for (`webhook_id` in the envelope; null when not given). The
   * receiver keys duplicates by it, so give it when a test sends deliveries of several webhooks.
   */
  webhookId?: number | string | null;
  /** ISO 8601 time the event happened. */
  createdAt?: string;
}

/** A delivery ready to POST. */
export interface BuiltDelivery {
  id: string;
  headers: Record<string, string>;
  /** The raw JSON body, exactly as sent. */
  body: string;
}

/**
 * Builds a delivery exactly as the fake sends it: `POST` with `Authorization: Bearer <token>`,
 * `Content-Type: application/json` and the envelope `{ id, event, created_at, restaurant_id,
 * reservation, webhook_id }`.
 *
 * @example
 * ```ts
 * const delivery = buildDelivery({ event: 'RESERVATION_CONFIRMED', reservation, restaurantId: 1 }, token);
 * const response = await receiver.handle(new Request('http://localhost/hooks', { method: 'POST', ...delivery }));
 * ```
 */
export function buildDelivery(content: DeliveryContent, token: string): BuiltDelivery {
  const id = content.id ?? `evt_${crypto.randomUUID()}`;
  const envelope = {
    id,
    event: content.event,
    created_at: content.createdAt ?? new Date().toISOString(),
    restaurant_id: content.restaurantId ?? null,
    reservation: content.reservation ?? null,
    webhook_id: content.webhookId ?? null,
  };
  return {
    id,
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${token}`,
      'user-agent': 'restaurant-partner-service-webhooks',
    },
    body: JSON.stringify(envelope),
  };
}

/**
 * Builds a fetch `Request` carrying a delivery exactly as the fake sends it, for testing a
 * fetch-style receiver (`receiver.handle(request)`) or POSTing with `fetch(request)`.
 *
 * @example
 * ```ts
 * const response = await receiver.handle(buildDeliveryRequest('http://localhost/hooks', { event: 'TEST' }, token));
 * expect(response.status).toBe(200);
 * ```
 */
export function buildDeliveryRequest(url: string | URL, content: DeliveryContent, token: string): Request {
  const delivery = buildDelivery(content, token);
  return new Request(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
}
