/**
 * Remembering processed deliveries, so a delivery sent again (a retry after an answer that was
 * not 2xx or got lost on the way back, if the service retries: the fake does, the spec does not
 * say) is answered 200 without running the partner's handler twice.
 * @module
 */

/**
 * The answer of {@link DuplicateStore.claim}:
 * - `claimed`: the delivery is yours until `complete()` (the handler succeeded: remember it as
 *   processed) or `release()` (it failed: let a retry run it). Only this lease can do either. A
 *   store with `renewsClaims` also gives `renew()`: the lease lasts `claimTtlMs` more, and the
 *   answer is false once it is no longer yours (it ran out and another receiver took it);
 * - `processed`: it was processed already (answer 200, run nothing);
 * - `busy`: another receiver holds a lease on it right now (its handler is running).
 */
export type DuplicateClaim =
  | {
      status: 'claimed';
      complete(): Promise<void>;
      release(): Promise<void>;
      renew?(): Promise<boolean>;
    }
  | { status: 'processed' }
  | { status: 'busy' };

/**
 * Where processed deliveries are kept, by a key the receiver builds from the delivery (see
 * `createWebhookReceiver`'s `duplicateStore`). Two shapes:
 * - `has` and `add` only (a table, a cache): the receiver calls `has` before the handler and `add`
 *   only after it succeeded, so a failed delivery is processed again if it is sent again. Within
 *   one process a delivery received twice at once runs once; across processes it may run twice.
 * - with `claim` and `claimTtlMs` (`createRedisDuplicateStore`): the receiver claims the key with a
 *   lease before the handler, so two processes receiving one delivery at once run it once. With
 *   `renewsClaims`, the receiver renews the lease while the handler runs, so it can be short.
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
   * How long a lease of `claim` lasts, in milliseconds. Without `renewsClaims`, the receiver
   * refuses a store whose lease could end while its handler may still run (see
   * `handlerTimeoutMs`).
   */
  readonly claimTtlMs?: number;
  /**
   * True when every claim comes with `renew()`. The receiver then renews the lease every third of
   * `claimTtlMs` while the handler runs (so a receiver that stopped holds the delivery for at most
   * `claimTtlMs`), and a receiver finding the delivery held by another waits at most
   * `claimTtlMs` + 100 ms for it before answering 409.
   */
  readonly renewsClaims?: boolean;
}

/** Options of {@link createMemoryDuplicateStore}. */
export interface MemoryDuplicateStoreOptions {
  /** Most ids remembered (a positive integer); the oldest are forgotten first. Default 10 000. */
  maxEntries?: number;
  /** How long an id is remembered, in milliseconds. Default 24 hours. */
  ttlMs?: number;
  /** Time source, in milliseconds since the epoch (tests pass a fake one). Default `Date.now`. */
  now?: () => number;
}

/**
 * The default duplicate store: in memory, per process, bounded in size and age. Enough for one
 * process; several processes need a shared store. Its `has` and `add` answer at once, not as promises.
 */
export function createMemoryDuplicateStore(
  options: MemoryDuplicateStoreOptions = {},
): Omit<DuplicateStore, 'has' | 'add'> & { has(key: string): boolean; add(key: string): void } {
  const maxEntries = options.maxEntries ?? 10_000;
  if (!Number.isInteger(maxEntries) || maxEntries < 1)
    throw new TypeError('createMemoryDuplicateStore: maxEntries must be a positive integer');
  const ttlMs = options.ttlMs ?? 24 * 60 * 60 * 1000;
  const now = options.now ?? Date.now;
  const ids = new IdRing(maxEntries);
  return {
    has(key) {
      const entry = ids.find(key, hashOf(key));
      if (entry === NONE) return false;
      if (ids.expiresAt(entry) <= now()) {
        ids.remove(entry);
        return false;
      }
      return true;
    },
    add(key) {
      const hash = hashOf(key);
      // An id added again counts as new: its old place goes, so the ids added since are forgotten first.
      const entry = ids.find(key, hash);
      if (entry !== NONE) ids.remove(entry);
      ids.insert(key, hash, now() + ttlMs);
    },
  };
}

// Ids up to this many characters, all below U+0100, are kept as bytes. A store key is the
// webhook, event, reservation and delivery ids (`webhook-12:RESERVATION_CONFIRMED:4021:evt_...`):
// a delivery id would have to pass 50 characters to be kept as a string, which costs what every
// id cost before (see `IdRing`).
const INLINE_ID_BYTES = 96;
/** The end of a chain, or no entry. */
const NONE = -1;
// An entry's length when it holds no id, or when its id is kept as a string in `IdRing.#spilled`.
const EMPTY = -1;
const SPILLED = -2;

/**
 * The store's ids, oldest overwritten first, in flat typed arrays: a hash table whose chains and
 * entries are numbers, and each id's characters copied into one byte arena. A busy receiver adds
 * an id per delivery; kept as strings in a `Map`, every one of them survived V8's young
 * generation, which then grew to its largest size (about 60 MB more memory at 15 000
 * deliveries per second). Here an id leaves nothing behind on the heap, and lookups stay exact: a
 * hash only picks the entries whose characters are compared. The hash is FNV-1a, not seeded: ids
 * chosen to collide (which takes the webhook token to deliver) lengthen one chain, never past
 * `maxEntries` comparisons.
 */
class IdRing {
  readonly #maxEntries: number;
  /** Room in the arrays: they grow by doubling up to `maxEntries`, then the ring turns. */
  #capacity = 0;
  /** Entries written so far (at most `#capacity`). */
  #used = 0;
  #cursor = 0;
  #buckets = new Int32Array(0);
  #next = new Int32Array(0);
  #hashes = new Uint32Array(0);
  /** An entry's id length in bytes, or EMPTY, or SPILLED. */
  #lengths = new Int32Array(0);
  #expiresAt = new Float64Array(0);
  #bytes = new Uint8Array(0);
  /** Ids too long, or with characters past U+00FF, by entry: rare, so kept as strings. */
  #spilled = new Map<number, string>();

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
  }

  /** The entry holding `id` (whose `hashOf` is `hash`), or NONE. */
  find(id: string, hash: number): number {
    if (this.#capacity === 0) return NONE;
    for (
      let entry = this.#buckets[hash & (this.#buckets.length - 1)]!;
      entry !== NONE;
      entry = this.#next[entry]!
    ) {
      if (this.#hashes[entry] === hash && this.#holds(entry, id)) return entry;
    }
    return NONE;
  }

  expiresAt(entry: number): number {
    return this.#expiresAt[entry]!;
  }

  insert(id: string, hash: number, expiresAt: number): void {
    if (this.#used === this.#capacity && this.#capacity < this.#maxEntries) this.#grow();
    const entry = this.#cursor;
    this.#cursor = (this.#cursor + 1) % this.#maxEntries;
    if (entry < this.#used) {
      if (this.#lengths[entry] !== EMPTY) this.remove(entry);
    } else this.#used += 1;
    this.#hashes[entry] = hash;
    this.#expiresAt[entry] = expiresAt;
    this.#write(entry, id);
    const bucket = hash & (this.#buckets.length - 1);
    this.#next[entry] = this.#buckets[bucket]!;
    this.#buckets[bucket] = entry;
  }

  /** Unlinks an entry that holds an id (one `find` returned). */
  remove(entry: number): void {
    const bucket = this.#hashes[entry]! & (this.#buckets.length - 1);
    if (this.#buckets[bucket] === entry) this.#buckets[bucket] = this.#next[entry]!;
    else {
      let previous = this.#buckets[bucket]!;
      while (this.#next[previous] !== entry) previous = this.#next[previous]!;
      this.#next[previous] = this.#next[entry]!;
    }
    if (this.#lengths[entry] === SPILLED) this.#spilled.delete(entry);
    this.#lengths[entry] = EMPTY;
  }

  #holds(entry: number, id: string): boolean {
    const length = this.#lengths[entry]!;
    if (length === SPILLED) return this.#spilled.get(entry) === id;
    if (length !== id.length) return false;
    const offset = entry * INLINE_ID_BYTES;
    for (let index = 0; index < length; index += 1) {
      if (this.#bytes[offset + index] !== id.charCodeAt(index)) return false;
    }
    return true;
  }

  #write(entry: number, id: string): void {
    if (id.length <= INLINE_ID_BYTES) {
      const offset = entry * INLINE_ID_BYTES;
      let index = 0;
      for (; index < id.length; index += 1) {
        const code = id.charCodeAt(index);
        if (code > 0xff) break;
        this.#bytes[offset + index] = code;
      }
      if (index === id.length) {
        this.#lengths[entry] = id.length;
        return;
      }
    }
    this.#lengths[entry] = SPILLED;
    this.#spilled.set(entry, id);
  }

  /** Doubles the entries (up to `maxEntries`) and rebuilds the chains over buckets twice as many. */
  #grow(): void {
    const capacity = Math.min(this.#maxEntries, Math.max(1024, this.#capacity * 2));
    this.#hashes = resized(this.#hashes, capacity);
    this.#lengths = resized(this.#lengths, capacity);
    this.#expiresAt = resized(this.#expiresAt, capacity);
    this.#bytes = resized(this.#bytes, capacity * INLINE_ID_BYTES);
    this.#next = new Int32Array(capacity);
    // At most one entry in two buckets keeps the chains short.
    let bucketCount = 1;
    while (bucketCount < capacity * 2) bucketCount *= 2;
    this.#buckets = new Int32Array(bucketCount).fill(NONE);
    for (let entry = 0; entry < this.#used; entry += 1) {
      if (this.#lengths[entry] === EMPTY) continue;
      const bucket = this.#hashes[entry]! & (bucketCount - 1);
      this.#next[entry] = this.#buckets[bucket]!;
      this.#buckets[bucket] = entry;
    }
    this.#capacity = capacity;
  }
}

/** A copy of `array` with room for `length` elements. */
function resized<Numbers extends Int32Array | Uint32Array | Float64Array | Uint8Array>(
  array: Numbers,
  length: number,
): Numbers {
  const copy = new (array.constructor as new (length: number) => Numbers)(length);
  copy.set(array);
  return copy;
}

/** FNV-1a over the id's UTF-16 code units: only spreads ids over buckets, equality is checked on the characters. */
function hashOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < id.length; index += 1) {
    hash = Math.imul(hash ^ id.charCodeAt(index), 0x01000193);
  }
  return hash >>> 0;
}
