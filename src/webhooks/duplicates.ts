/**
 * Remembering processed deliveries, so a delivery sent again (a retry after an answer that was
 * not 2xx or got lost on the way back, if the service retries: the fake does, the spec does not
 * say) is answered 200 without running the partner's handler twice.
 * @module
 */

/**
 * The answer of {@link DuplicateStore.claim}:
 * - `claimed`: the delivery is yours until `complete()` (the handler succeeded: remember it as
 *   processed) or `release()` (it failed: let a retry run it). Only this lease can do either;
 * - `processed`: it was processed already (answer 200, run nothing);
 * - `busy`: another receiver holds a lease on it right now (its handler is running).
 */
export type DuplicateClaim =
  | { status: 'claimed'; complete(): Promise<void>; release(): Promise<void> }
  | { status: 'processed' }
  | { status: 'busy' };

/**
 * Where processed deliveries are kept, by a key the receiver builds from the delivery (see
 * `createWebhookReceiver`'s `duplicateStore`). Two shapes:
 * - `has` and `add` only (a table, a cache): the receiver calls `has` before the handler and `add`
 *   only after it succeeded, so a failed delivery is processed again if it is sent again. Within
 *   one process a delivery received twice at once runs once; across processes it may run twice.
 * - with `claim` and `claimTtlMs` (`createRedisDuplicateStore`): the receiver claims the key with a
 *   lease before the handler, so two processes receiving one delivery at once run it once.
 *
 * @example
 * ```ts
 * const duplicateStore: DuplicateStore = {
 *   has: async (key) => (await redis.exists(`webhook:${key}`)) === 1,
 *   add: async (key) => { await redis.set(`webhook:${key}`, '1', 'EX', 7 * 24 * 3600); },
 * };
 * ```
 */
export interface DuplicateStore {
  /** True when the delivery was processed. */
  has(key: string): boolean | Promise<boolean>;
  /** Remembers the delivery as processed. */
  add(key: string): void | Promise<void>;
  /** Optional, for a store whose `has` claims the key: the handler failed, free the key so a retry runs. */
  release?(key: string): void | Promise<void>;
  /**
   * Optional: claims the key for one receiver with a lease of `claimTtlMs`. A claim that fails or
   * times out on the way must never leave the key claimed once it lands.
   */
  claim?(key: string): Promise<DuplicateClaim>;
  /**
   * How long a lease of `claim` lasts, in milliseconds. The receiver refuses a store whose lease
   * could end while its handler may still run (see `handlerTimeoutMs`).
   */
  readonly claimTtlMs?: number;
}

/** Options of {@link createMemoryDuplicateStore}. */
export interface MemoryDuplicateStoreOptions {
  /** Most ids remembered; the oldest are forgotten first. Default 10 000. */
  maxEntries?: number;
  /** How long an id is remembered, in milliseconds. Default 24 hours. */
  ttlMs?: number;
  /** Time source, in milliseconds since the epoch (tests pass a fake one). Default `Date.now`. */
  now?: () => number;
}

/**
 * The default duplicate store: in memory, per process, bounded in size and age. Enough for one
 * process; several processes need a shared store.
 */
export function createMemoryDuplicateStore(options: MemoryDuplicateStoreOptions = {}): DuplicateStore {
  const maxEntries = options.maxEntries ?? 10_000;
  const ttlMs = options.ttlMs ?? 24 * 60 * 60 * 1000;
  const now = options.now ?? Date.now;
  // The ids sit in a ring, oldest overwritten first, and a Map gives each id its slot. Evicting
  // the oldest from a full Map in insertion order (`keys().next()`) cost more than the rest of a
  // delivery: the Map's deleted slots at its front are walked over on every eviction.
  const slotById = new Map<string, number>();
  const ids: string[] = [];
  const expiresAt: number[] = [];
  let oldest = 0;
  return {
    has(key) {
      const slot = slotById.get(key);
      if (slot === undefined) return false;
      if (expiresAt[slot]! <= now()) {
        slotById.delete(key);
        return false;
      }
      return true;
    },
    add(key) {
      let slot: number;
      if (ids.length < maxEntries) {
        slot = ids.length;
        ids.push(key);
        expiresAt.push(0);
      } else {
        slot = oldest;
        oldest = (oldest + 1) % maxEntries;
        // The id may have been added again since (it is then in a newer slot): only this slot goes.
        const evicted = ids[slot]!;
        if (slotById.get(evicted) === slot) slotById.delete(evicted);
        ids[slot] = key;
      }
      expiresAt[slot] = now() + ttlMs;
      slotById.set(key, slot);
    },
  };
}
