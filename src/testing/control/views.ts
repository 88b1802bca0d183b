/**
 * What the control API shows of a world at once (`GET /_fake/state`), for dashboards such as the
 * simulator page: plain JSON, credentials of partners included (the control API is local), the
 * latest reservations and deliveries only, so a world of 100,000 bookings answers as fast as one
 * of a hundred.
 * @module
 */
import type { FakeBackend, FakeReservation } from '../backend/backend.js';
import type { ReservationRecord } from '../backend/state.js';
import type { Webhook } from '../../resources/webhooks.schemas.js';
import { webhookView } from '../backend/webhooks.js';

/** How much of the world one state view shows: the latest `reservations` bookings and `deliveries` attempts. */
export interface StateViewLimits {
  reservations: number;
  deliveries: number;
}

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
  const latest = limits.reservations === 0 ? [] : records.slice(-limits.reservations);
  latest.sort((a, b) => a.restaurantId - b.restaurantId || a.start - b.start || a.id - b.id);
  const deliveries = limits.deliveries === 0 ? [] : state.deliveries.slice(-limits.deliveries);
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
    pendingDeliveries: state.pendingDeliveries.map(({ eventId, event, webhookId, attempt, dueAt }) => ({
      eventId,
      event,
      webhookId,
      attempt,
      dueAt: new Date(dueAt).toISOString(),
    })),
  };
}
