/**
 * What the sync announced, per reservation: the store's records, and those it failed to write.
 * A change handed to `onChange` whose record the store could not write is kept in memory, so the
 * sync goes on from it (it never hands that change over twice, and the next change's `previous`
 * is right), and is written at the reservation's next turn.
 * @module
 */
import type { Logger } from '../logger.js';
import type { Clock } from '../transport/clock.js';
import type { SyncRecord, SyncStore } from './store.js';

export interface Records {
  /** The record last announced, without writing anything. */
  get(restaurantId: number, reservationId: number): Promise<SyncRecord | undefined>;
  /** The record last announced, once the one the store failed to write (if any) was tried again. */
  latest(restaurantId: number, reservationId: number): Promise<SyncRecord | undefined>;
  /** True when the store failed to write this reservation's record. */
  unsaved(restaurantId: number, reservationId: number): boolean;
  /** The revision of the record after `record` (from `latest`): an unsaved one is replaced at its own revision, the store never held it. */
  revisionAfter(record: SyncRecord | undefined): number;
  /** Writes a record; while the store fails, keeps it in memory. */
  save(record: SyncRecord): Promise<void>;
  /** Tries every unsaved record again (the sync stops). */
  saveAll(): Promise<void>;
}

export function createRecords(store: SyncStore, clock: Clock, logger: Logger): Records {
  const unsaved = new Map<string, SyncRecord>();
  const keyOf = (restaurantId: number, reservationId: number) => `${restaurantId}:${reservationId}`;

  async function save(record: SyncRecord): Promise<void> {
    const key = keyOf(record.restaurantId, record.reservation.id);
    let written: boolean;
    try {
      written = await store.put(record, clock.now());
    } catch (error) {
      // A copy, as a store keeps: onChange may change the objects it was handed.
      unsaved.set(key, structuredClone(record));
      logger.warn(
        `the sync store failed to write reservation ${record.reservation.id}; kept in memory and written at its next change or read`,
        { error },
      );
      return;
    }
    unsaved.delete(key);
    if (!written)
      logger.warn(
        `reservation ${record.reservation.id} was written by another process while this one announced it; the next read settles it`,
      );
  }

  return {
    async get(restaurantId, reservationId) {
      const pending = unsaved.get(keyOf(restaurantId, reservationId));
      return pending ? structuredClone(pending) : await store.get(restaurantId, reservationId);
    },
    async latest(restaurantId, reservationId) {
      const pending = unsaved.get(keyOf(restaurantId, reservationId));
      if (pending) await save(pending);
      return this.get(restaurantId, reservationId);
    },
    unsaved: (restaurantId, reservationId) => unsaved.has(keyOf(restaurantId, reservationId)),
    revisionAfter(record) {
      if (!record) return 1;
      return unsaved.has(keyOf(record.restaurantId, record.reservation.id))
        ? record.revision
        : record.revision + 1;
    },
    save,
    async saveAll() {
      for (const record of [...unsaved.values()]) await save(record);
    },
  };
}
