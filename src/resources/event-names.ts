/**
 * The names of the service's webhook events, written out here and nowhere else: the client's
 * `WebhookEventType` schema and `subscribed_events` keys, the receiver's typed events and `on()`
 * names, the fake's deliveries and webhook records, the sync and the command line all read them
 * from this module (test/house/event-names.test.ts fails when one of them drifts from it). To add
 * an event type, see "Add an event type" in CONTRIBUTING.md.
 * @module
 */

/** The restaurant confirmed the reservation (asynchronous mode). */
export const RESERVATION_CONFIRMED = 'RESERVATION_CONFIRMED';
/** The restaurant or the customer changed the reservation. */
export const RESERVATION_MODIFIED = 'RESERVATION_MODIFIED';
/** The partner, the restaurant or the customer cancelled the reservation. */
export const RESERVATION_CANCELLED = 'RESERVATION_CANCELLED';

/** The reservation events of the spec, in the order the spec lists them. */
export const RESERVATION_EVENT_TYPES = [
  RESERVATION_CONFIRMED,
  RESERVATION_MODIFIED,
  RESERVATION_CANCELLED,
] as const;

/** Event name of the delivery sent by `client.webhooks.test(id)`. */
export const TEST_EVENT = 'TEST';

const RESERVATION_EVENT_SET: ReadonlySet<string> = new Set(RESERVATION_EVENT_TYPES);

/** Whether `name` is one of {@link RESERVATION_EVENT_TYPES}. */
export const isReservationEventType = (name: unknown): name is (typeof RESERVATION_EVENT_TYPES)[number] =>
  typeof name === 'string' && RESERVATION_EVENT_SET.has(name);
