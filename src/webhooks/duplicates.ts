/**
 * Remembering processed delivery ids, so a delivery sent again (a retry after an answer that was
 * not 2xx or got lost on the way back, if the service retries: the fake does, the spec does not
 * say) is answered 200 without running the partner's handler twice.
 * @module
 */

/**
 * Where processed delivery ids are kept. The receiver calls `has` before the handler and `add`
 * only after the handler succeeded, so a failed delivery is processed again if it is sent again. Back it with Redis or a database table to share it across processes.
 *
 * @example
 * ```ts
 * const duplicateStore: DuplicateStore = {
 *   has: async (id) => (await redis.exists(`webhook:${id}`)) === 1,
 *   add: async (id) => { await redis.set(`webhook:${id}`, '1', 'EX', 7 * 24 * 3600); },
 * };
 * ```
 */
export interface DuplicateStore {
  has(deliveryId: string): boolean | Promise<boolean>;
  add(deliveryId: string): void | Promise<void>;
  /**
   * Optional: the handler failed. A store whose `has` claims the id (so that two instances
   * receiving one delivery at once run the handler once) frees it here, so the retry runs.
   */
  release?(deliveryId: string): void | Promise<void>;
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
  // A Map iterates in insertion order, so its first key is the oldest entry.
  const expiresAtById = new Map<string, number>();
  return {
    has(deliveryId) {
      const expiresAt = expiresAtById.get(deliveryId);
      if (expiresAt === undefined) return false;
      if (expiresAt <= now()) {
        expiresAtById.delete(deliveryId);
        return false;
      }
      return true;
    },
    add(deliveryId) {
      expiresAtById.delete(deliveryId);
      expiresAtById.set(deliveryId, now() + ttlMs);
      while (expiresAtById.size > maxEntries) {
        const oldest = expiresAtById.keys().next().value as string;
        expiresAtById.delete(oldest);
      }
    },
  };
}
