/**
 * Where the sync keeps what it announced, so a restart (in this process or another) goes on from
 * there instead of announcing everything again: the {@link SyncStore} contract and the in-memory
 * store. `createRedisSyncStore` (from `restaurant-partner-sdk/redis`) shares one store between
 * processes; a partner can also keep the state in its own database by implementing the contract.
 * @module
 */
import type { Reservation } from '../resources/reservations.schemas.js';

/** What the sync keeps per reservation: the state it last announced. */
export interface SyncRecord {
  restaurantId: number;
  /** The reservation as last handed to `onChange`. */
  reservation: Reservation;
  /** Epoch milliseconds as of which `reservation` was known to be true. */
  observedAt: number;
  /** 1 for the first write of a reservation, then one more on each write. */
  revision: number;
  /** Epoch milliseconds after which the sync no longer reads this reservation; the store may forget it then. */
  expiresAt: number;
}

/**
 * The state of a reservation sync. Every method may be remote (a database, Redis), so all return
 * promises; times are epoch milliseconds on the sync's clock, passed in, so a store needs no clock
 * of its own. Implement it to keep the state in your own database:
 *
 * - `get` answers the record of a reservation, or undefined when none was written.
 * - `put` writes `record` only if the stored revision is `record.revision - 1` (absent counts as
 *   0), atomically, and answers whether it wrote: a compare-and-set, so two processes never
 *   overwrite each other's announcement unseen.
 * - `claim` takes the lease `key` for `holder` for `ttlMs` from `now` when it is free, expired, or
 *   already `holder`'s (then it is extended), atomically, and answers whether `holder` holds it.
 *   The sync leases one reservation while it announces a change of it (so two processes never
 *   announce the same change), and one restaurant while it reads it (so two processes share the
 *   reading rather than both doing it).
 * - `release` ends `holder`'s lease on `key` (nothing when another holds it).
 */
export interface SyncStore {
  get(restaurantId: number, reservationId: number): Promise<SyncRecord | undefined>;
  put(record: SyncRecord, now: number): Promise<boolean>;
  claim(key: string, holder: string, now: number, ttlMs: number): Promise<boolean>;
  release(key: string, holder: string): Promise<void>;
}

/**
 * A {@link SyncStore} with transactions, such as `db.syncStore()` from
 * `restaurant-partner-sdk/postgres`: the sync then hands each change over inside the transaction
 * that writes its record, so your writes and the sync's state commit together or not at all, and
 * a crash at any point (before, during or after your write, before or after the commit) leaves
 * the change either wholly applied or not at all (then applied after the restart).
 *
 * `putWith(record, now, work)`, in one transaction: writes `record` by the same compare-and-set as
 * `put`, then runs `work(tx)`, then commits. It answers false (nothing written, `work` not run)
 * when the stored revision is not `record.revision - 1`, and rejects (nothing written) when `work`
 * or the transaction failed.
 */
export interface TransactionalSyncStore<Tx> extends SyncStore {
  putWith(record: SyncRecord, now: number, work: (tx: Tx) => Promise<void>): Promise<boolean>;
}

/** True when `store` gives `onChange` a transaction. */
export const isTransactional = (store: SyncStore): store is TransactionalSyncStore<unknown> =>
  typeof (store as Partial<TransactionalSyncStore<unknown>>).putWith === 'function';

/** How many writes the memory store makes between two sweeps of expired records. */
const SWEEP_EVERY = 256;

/**
 * A {@link SyncStore} in this process's memory (the default). It lives as long as the process:
 * use `createRedisSyncStore` (or your own store) for a sync that must survive a restart without
 * announcing every reservation again. Records of reservations the sync no longer reads, and
 * expired leases, are dropped as it goes, so it stays bounded by the reservations still read.
 *
 * @example
 * ```ts
 * import { createMemorySyncStore } from 'restaurant-partner-sdk/sync';
 * const store = createMemorySyncStore();
 * ```
 */
export function createMemorySyncStore(): SyncStore {
  const records = new Map<string, SyncRecord>();
  const leases = new Map<string, { holder: string; from: number; until: number }>();
  let writes = 0;
  const keyOf = (restaurantId: number, reservationId: number) => `${restaurantId}:${reservationId}`;
  const sweep = (now: number) => {
    for (const [key, record] of records) if (record.expiresAt <= now) records.delete(key);
    for (const [key, lease] of leases) if (lease.until <= now) leases.delete(key);
  };
  return {
    get(restaurantId, reservationId) {
      const record = records.get(keyOf(restaurantId, reservationId));
      // A copy, as a remote store would answer: the caller cannot change the stored state.
      return Promise.resolve(record && structuredClone(record));
    },
    put(record, now) {
      const key = keyOf(record.restaurantId, record.reservation.id);
      if ((records.get(key)?.revision ?? 0) !== record.revision - 1) return Promise.resolve(false);
      records.set(key, structuredClone(record));
      if (++writes % SWEEP_EVERY === 0) sweep(now);
      return Promise.resolve(true);
    },
    claim(key, holder, now, ttlMs) {
      const lease = leases.get(key);
      if (lease && lease.from > now) {
        // Granted "after" now: the clock was set back since. It lasts its length from now, not
        // until the clock catches up (an hour, for a clock set back an hour).
        lease.until = now + (lease.until - lease.from);
        lease.from = now;
      }
      if (lease && lease.until > now && lease.holder !== holder) return Promise.resolve(false);
      leases.set(key, { holder, from: now, until: now + ttlMs });
      return Promise.resolve(true);
    },
    release(key, holder) {
      if (leases.get(key)?.holder === holder) leases.delete(key);
      return Promise.resolve();
    },
  };
}
