/**
 * The sync's leases in its store: one per restaurant while it is read (kept for its period once
 * read), one per reservation while a change of it is announced. Short, and renewed while their
 * holder works, so a process that dies (SIGKILL, a crash, a lost machine) holds nothing longer
 * than {@link LEASE_MS}, and a new process takes over at once.
 * @module
 */
import type { Clock } from '../transport/clock.js';
import type { SyncStore } from './store.js';

/** How long a lease lasts unless renewed; its holder renews it every third of this while it works. */
export const LEASE_MS = 3000;

/** The leases of one sync (one holder). */
export interface Leases {
  /** Takes `key` for {@link LEASE_MS} (or `ttlMs`) when it is free, expired or already this sync's; false when another holds it. */
  claim(key: string, ttlMs?: number): Promise<boolean>;
  /** Waits until this sync holds `key`, looking again 50 ms, 100 ms ... up to 1 s apart; rejects when `signal` aborts. */
  wait(key: string, signal: AbortSignal): Promise<void>;
  /** Runs `work` while renewing `key`, so the lease outlives the work but not this process. */
  renewing<T>(key: string, work: () => Promise<T>): Promise<T>;
  /** Ends this sync's lease on `key`; a failure is ignored (the lease then lapses by itself). */
  release(key: string): Promise<void>;
}

export function createLeases(store: SyncStore, holder: string, clock: Clock): Leases {
  const claim = (key: string, ttlMs = LEASE_MS) => store.claim(key, holder, clock.now(), ttlMs);
  return {
    claim,
    async wait(key, signal) {
      for (let wait = 50; ; wait = Math.min(wait * 2, 1000)) {
        signal.throwIfAborted();
        if (await claim(key)) return;
        await clock.sleep(wait, signal);
      }
    },
    async renewing(key, work) {
      const done = new AbortController();
      const renewals = (async () => {
        for (;;) {
          try {
            await clock.sleep(LEASE_MS / 3, done.signal);
          } catch {
            return;
          }
          // A renewal that fails is tried again a third of the lease later; the work goes on.
          await claim(key).catch(() => false);
        }
      })();
      try {
        return await work();
      } finally {
        done.abort();
        // No renewal may land after the caller releases the lease.
        await renewals;
      }
    },
    async release(key) {
      await store.release(key, holder).catch(() => undefined);
    },
  };
}
