/**
 * `restaurant-partner-sdk/sync`: the partner's view of its bookings, always true, within the
 * budget. Webhooks, the bookings this process makes and a paced reading of each restaurant's list
 * feed one view; each change reaches `onChange` once, in order, never backwards. Web APIs only.
 *
 * @example
 * ```ts
 * import { createReservationSync, createMemorySyncStore } from 'restaurant-partner-sdk/sync';
 *
 * const sync = createReservationSync({
 *   client,
 *   onChange: async (change) => saveBooking(change.restaurantId, change.reservation),
 *   store: createMemorySyncStore(),
 *   reconcile: { intervalMs: 15 * 60_000, budgetShare: 0.25 },
 * });
 * sync.attach(receiver);
 * await sync.start();
 * ```
 * @module
 */
export {
  createReservationSync,
  isSyncStoppedError,
  SyncStoppedError,
  type ReservationSync,
  type ReservationSyncOptions,
  type SyncEvent,
} from './reservation-sync.js';
export {
  createMemorySyncStore,
  type SyncRecord,
  type SyncStore,
  type TransactionalSyncStore,
} from './store.js';
export type {
  ChangeContext,
  ReservationChange,
  ReservationChangeKind,
  ReservationChangeSource,
} from './changes.js';
