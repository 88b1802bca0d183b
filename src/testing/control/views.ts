/**
 * What the control API shows of a world at once (`GET /_fake/state`), for dashboards such as the
 * simulator page: plain JSON, credentials of partners included (the control API is local), the
 * latest reservations and deliveries only, so a world of 100,000 bookings answers as fast as one
 * of a hundred.
 * @module
 */
import type { FakeBackend } from '../backend/backend.js';
import type { FakeReservation } from '../backend/fake-reservations.js';
import type { ReservationRecord } from '../backend/state.js';
import type { Webhook } from '../../resources/webhooks.schemas.js';
import { webhookView } from '../backend/webhooks.js';
import { utf8Bound } from '../http.js';

/**
 * How much of the world one state view shows: the latest `reservations` bookings and `deliveries`
 * attempts, within `bytes` of their JSON (UTF-8) together (half each, the rest to the other when one needs
 * less), so a poll answers in milliseconds even when every booking is at the largest sizes.
 */
export interface StateViewLimits {
  reservations: number;
  deliveries: number;
  bytes: number;
}

/** How many of `items`, from the newest back, fit in `budget` bytes; at least one when asked. */
function newestWithin<Item>(
  items: readonly Item[],
  wanted: number,
  budget: number,
  size: (item: Item) => number,
) {
  let used = 0;
  let count = 0;
  while (count < Math.min(wanted, items.length)) {
    const next = size(items[items.length - 1 - count]!);
    if (count > 0 && used + next > budget) break;
    used += next;
    count += 1;
  }
  return { count, used };
}

/** Bytes of a logged attempt's JSON, at most about (its body and answer carry the weight). */
const attemptSize = (entry: { body: string; response: unknown }) =>
  400 +
  utf8Bound(entry.body) +
  utf8Bound(typeof entry.response === 'string' ? entry.response : JSON.stringify(entry.response ?? null));

/** A booking as the state view lists it: the control API's view plus its restaurant. */
function reservationOf(
  backend: FakeBackend,
  record: ReservationRecord,
): FakeReservation & { restaurantId: number; cancelledBy: ReservationRecord['cancelledBy'] } {
  return {
    ...backend.view(record),
    cancelledBy: record.cancelledBy,
    channel: record.channel.kind === 'partner' ? 'partner' : record.channel.name,
    partnerId: record.channel.kind === 'partner' ? record.channel.partnerId : null,
    restaurantId: record.restaurantId,
  };
}

export function stateView(backend: FakeBackend, limits: StateViewLimits) {
  const state = backend.state;
  // Bookings are kept in the order they were made: the latest are the last ones.
  const records = [...state.reservations.values()];
  const half = limits.bytes / 2;
  const reservationFit = newestWithin(
    records,
    limits.reservations,
    half,
    (record) => utf8Bound(backend.viewJson(record)) + 120,
  );
  const deliveryFit = newestWithin(
    state.deliveries,
    limits.deliveries,
    limits.bytes - reservationFit.used,
    attemptSize,
  );
  // The reservations may use what the deliveries left.
  const reservationCount =
    reservationFit.count < Math.min(limits.reservations, records.length)
      ? newestWithin(
          records,
          limits.reservations,
          limits.bytes - deliveryFit.used,
          (record) => utf8Bound(backend.viewJson(record)) + 120,
        ).count
      : reservationFit.count;
  const latest = reservationCount === 0 ? [] : records.slice(-reservationCount);
  latest.sort((a, b) => a.restaurantId - b.restaurantId || a.start - b.start || a.id - b.id);
  const deliveries = deliveryFit.count === 0 ? [] : state.deliveries.slice(-deliveryFit.count);
  return {
    clock: { now: new Date(backend.clock.now()).toISOString(), frozen: backend.clock.frozen },
    rateLimit: { requestsPerSecond: backend.rateLimit },
    dialect: { ...backend.dialect },
    partners: backend.partners(),
    restaurants: backend.restaurants(),
    /** The latest `?reservations=N` bookings of every channel (by restaurant, then start time). */
    reservations: latest.map((record) => reservationOf(backend, record)),
    /** How many bookings the world holds; `reservations` are the latest of them. */
    reservationsTotal: records.length,
    webhooks: [...state.webhooks.values()].map((webhook) => ({
      ...(webhookView(webhook) as unknown as Webhook),
      partnerId: webhook.partnerId,
    })),
    faults: backend.faults.pending,
    /** The latest `?deliveries=N` attempts of the log. */
    deliveries: structuredClone(deliveries),
    /** How many attempts the log holds. */
    deliveriesTotal: state.deliveries.length,
    /** How many of the latest bookings and attempts asked for were left out to keep the answer within `?bytes`. */
    leftOutForSize: {
      reservations: Math.min(limits.reservations, records.length) - latest.length,
      deliveries: Math.min(limits.deliveries, state.deliveries.length) - deliveries.length,
    },
    pendingDeliveries: state.pendingDeliveries.map(({ eventId, event, webhookId, attempt, dueAt }) => ({
      eventId,
      event,
      webhookId,
      attempt,
      dueAt: new Date(dueAt).toISOString(),
    })),
  };
}
