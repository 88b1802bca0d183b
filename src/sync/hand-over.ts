/**
 * Handing one change over: `onChange`, and the record that says it was handed over. With a
 * transactional store both run in one transaction, so the partner's writes and the sync's record
 * commit together or not at all (exactly once, whatever crashes); with any other store one after
 * the other (at least once: a crash between the two hands the change over again after a restart).
 * @module
 */
import type { Logger } from '../logger.js';
import type { Clock } from '../transport/clock.js';
import type { ChangeContext, ReservationChange } from './changes.js';
import type { Records } from './records.js';
import { ChangeNotHandedOverError } from './retries.js';
import { isTransactional, type SyncRecord, type SyncStore } from './store.js';

export type OnChange<Tx> = (change: ReservationChange, context: ChangeContext<Tx>) => void | Promise<void>;

/**
 * Hands `change` to `onChange` and records `record` (the state after it, at the change's
 * revision). Rejects with {@link ChangeNotHandedOverError} when `onChange` (or, with a
 * transactional store, the transaction around it) failed: the sync tries it again.
 */
export function createHandOver<Tx>(settings: {
  store: SyncStore;
  records: Records;
  onChange: OnChange<Tx>;
  clock: Clock;
  logger: Logger;
}): (change: ReservationChange, record: SyncRecord) => Promise<void> {
  const { store, records, onChange, clock, logger } = settings;
  const lost = (id: number) =>
    logger.warn(
      `reservation ${id} was written by another process while this one announced it; the next read settles it`,
    );

  if (isTransactional(store)) {
    return async (change, record) => {
      let written: boolean;
      try {
        written = await store.putWith(record, clock.now(), async (tx) => {
          await onChange(change, { tx: tx as Tx });
        });
      } catch (error) {
        // Rolled back: neither the partner's writes nor the record were kept.
        throw new ChangeNotHandedOverError(change, error);
      }
      if (!written) lost(change.reservation.id);
    };
  }
  return async (change, record) => {
    try {
      await onChange(change, { tx: undefined as Tx });
    } catch (error) {
      throw new ChangeNotHandedOverError(change, error);
    }
    await records.save(record);
  };
}
