/**
 * What the control API shows of a world at once (`GET /_fake/state`), for dashboards such as the
 * simulator page: plain JSON, credentials of partners included (the control API is local).
 * @module
 */
import type { FakeBackend } from '../backend/backend.js';
import { webhookView } from '../backend/webhooks.js';

export function stateView(backend: FakeBackend) {
  const state = backend.state;
  return {
    clock: { now: new Date(backend.clock.now()).toISOString(), frozen: backend.clock.frozen },
    rateLimit: { requestsPerSecond: backend.rateLimit },
    dialect: { ...backend.dialect },
    partners: backend.partners(),
    restaurants: backend.restaurants(),
    reservations: [...state.restaurants.keys()].flatMap((restaurantId) => backend.allReservations(restaurantId).map((reservation) => ({ ...reservation, restaurantId }))),
    webhooks: [...state.webhooks.values()].map((webhook) => ({ ...webhookView(webhook), partnerId: webhook.partnerId })),
    faults: backend.faults.pending,
    deliveries: structuredClone(state.deliveries),
    pendingDeliveries: state.pendingDeliveries.map(({ eventId, event, webhookId, attempt, dueAt }) => ({ eventId, event, webhookId, attempt, dueAt: new Date(dueAt).toISOString() })),
  };
}
