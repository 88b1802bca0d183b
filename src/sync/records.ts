/**
 * What the sync announced, per reservation: the store's records, and those it failed to write.
 * A change handed to `onChange` whose record the store could not write is kept in memory, so the
 * sync goes on from it (it never hands that change over twice, and the next change's `previous`
 * is right), and is written at the reservation's next turn. A record's revision is the revision
 * of the change it holds, so revisions go on counting while the store fails: the store is brought
 * up to the newest one by one write per missed revision (its writes are compare-and-set on the
 * revision before).
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
  /** The revision of the change after `record` (from `latest`): 1, 2, 3 ... per reservation. */
  revisionAfter(record: SyncRecord | undefined): number;
  /** Writes a record; while the store fails, keeps it in memory. */
  save(record: SyncRecord): Promise<void>;
  /** Tries every unsaved record again (the sync stops). */
  saveAll(): Promise<void>;
}

export function createRecords(store: SyncStore, clock: Clock, logger: Logger): Records {
  // The newest record the store failed to write, and the revision the store holds (`stored`).
  const unsaved = new Map<string, { record: SyncRecord; stored: number }>();
  const keyOf = (restaurantId: number, reservationId: number) => `${restaurantId}:${reservationId}`;

  async function save(record: SyncRecord): Promise<void> {
    const key = keyOf(record.restaurantId, record.reservation.id);
    let stored = unsaved.get(key)?.stored ?? record.revision - 1;
    try {
      while (stored < record.revision) {
        // The missed revisions are written with the newest state: the store needs only the last.
        if (!(await store.put({ ...record, revision: stored + 1 }, clock.now()))) {
          unsaved.delete(key);
          logger.warn(
            `reservation ${record.reservation.id} was written by another process while this one announced it; the next read settles it`,
          );
          return;
        }
        stored += 1;
      }
    } catch (error) {
      // A copy, as a store keeps: onChange may change the objects it was handed.
      unsaved.set(key, { record: structuredClone(record), stored });
      logger.warn(
        `the sync store failed to write reservation ${record.reservation.id}; kept in memory and written at its next change or read`,
        { error },
      );
      return;
    }
    unsaved.delete(key);
  }

  return {
    async get(restaurantId, reservationId) {
      const pending = unsaved.get(keyOf(restaurantId, reservationId));
      return pending ? structuredClone(pending.record) : await store.get(restaurantId, reservationId);
    },
    async latest(restaurantId, reservationId) {
      const pending = unsaved.get(keyOf(restaurantId, reservationId));
      if (pending) await save(pending.record);
      return this.get(restaurantId, reservationId);
    },
    unsaved: (restaurantId, reservationId) => unsaved.has(keyOf(restaurantId, reservationId)),
    revisionAfter: (record) => (record?.revision ?? 0) + 1,
    save,
    async saveAll() {
      for (const { record } of [...unsaved.values()]) await save(record);
    },
  };
}
