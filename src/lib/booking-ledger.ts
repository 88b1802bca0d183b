/**
 * The booking ledger: what the client knows about the creates made with a caller's own
 * idempotency key, shared by every client that uses the same ledger. A create claims its key
 * (a lease with a token, renewed while it runs); the others wait for its outcome instead of
 * sending. The outcome stays: a booking (key -> reservation id, so a repeat costs one read), or an
 * ambiguous end held for a while (a repeat sends nothing until then). Every entry carries the
 * fingerprint of the booking's input, so a key reused for another booking is refused.
 *
 * The memory ledger lives here; `createRedisBookingLedger` (`restaurant-partner-sdk/redis`) keeps
 * the same entries in Redis for several processes.
 * @module
 */

/** What a ledger holds for one key. */
export type BookingLedgerEntry =
  /**
   * A create with this key may be on its way (in this process or another) under `token`. Should
   * its holder stop renewing the claim (it crashed or froze), the entry reads as an ambiguous hold
   * until `until` (ms since the epoch, on the client's clock): a lapsed claim is never "never sent".
   */
  | { state: 'running'; fingerprint: string; token: string; until: number }
  /** The key booked `reservationId`. */
  | { state: 'booked'; fingerprint: string; reservationId: string }
  /** A create with this key ended ambiguous; until `until` (ms since the epoch) nothing is sent with it. */
  | { state: 'ambiguous'; fingerprint: string; until: number };

/** A claim on one key. */
export interface BookingLedgerClaim {
  /** Names the claimer: only it may renew or settle the claim. */
  token: string;
  /** The booking's input, normalised (see the README, "Bookings are never duplicated"). */
  fingerprint: string;
  /** How long the claim lasts unless renewed (real time). */
  leaseMs: number;
  /** Now, on the client's clock: an ambiguous hold over by then no longer stops the claim. */
  now: number;
  /**
   * How long a key stays held (nothing sent with it) after its claim lapsed, and after the ledger
   * lost its memory (a Redis flushed or restarted empty): the client's `ambiguousHoldMs`.
   */
  holdMs: number;
  /**
   * The key was made by this call (a random key): no earlier create can have used it, so a ledger
   * that lost its memory need not hold it.
   */
  fresh?: boolean | undefined;
  /**
   * The caller's own database transaction (`reservations.create(..., { tx })`): the claim is made
   * in it, so it commits with the caller's writes. Only a ledger with `acceptTransaction` gets one.
   */
  tx?: object | undefined;
}

/**
 * What a durable ledger answers when it takes a claim: `used` is false only when no create sharing
 * the ledger can have sent anything with the key (the ledger never held it, or only released
 * claims that sent nothing). Other ledgers answer `undefined`.
 */
export interface BookingLedgerClaimed {
  state: 'claimed';
  used: boolean;
}

/**
 * Where the client keeps what it knows about creates with a caller's own key. Use
 * {@link createMemoryBookingLedger} (the default: one per process) or `createRedisBookingLedger`
 * from `restaurant-partner-sdk/redis` (one for every process on a Redis).
 *
 * The rule every ledger keeps: once a key was claimed, it never reads as unused again until its
 * outcome is settled. A claim whose holder stops renewing it reads as an ambiguous hold (see
 * {@link claimAnswer}); a ledger that notices it lost its memory holds every key it does not know.
 */
export interface BookingLedger {
  /**
   * True for a ledger that keeps every key it was given (a booking's key -> reservation id, for
   * good) for every process creating with your keys, across restarts: the Postgres ledger. Then a
   * claim it answers with `{ state: 'claimed', used: false }` is a key no create ever sent, and a
   * create with your own key sends at once, without first reading the restaurant's list for it.
   * Declare it only for a ledger that every client creating with your keys shares.
   */
  readonly durable?: boolean | undefined;
  /**
   * Checks the `tx` of `reservations.create(..., { tx })` (throws `InputValidationError` naming
   * `tx` when this ledger cannot claim inside it), before anything is sent. A ledger without it
   * refuses every `tx`.
   */
  acceptTransaction?(tx: unknown): void;
  /**
   * Claims `slot` for `claim.token`, unless an entry stops it: then answers that entry (another
   * fingerprint, a running create, a booking, or an ambiguous hold not over at `claim.now`; a
   * running claim whose lease lapsed is answered as an ambiguous hold until its `until`).
   * Answers undefined (or, from a durable ledger, {@link BookingLedgerClaimed}) when the claim is taken.
   */
  claim(
    slot: string,
    claim: BookingLedgerClaim,
  ): Promise<BookingLedgerEntry | BookingLedgerClaimed | undefined>;
  /**
   * Extends a running claim by `leaseMs` and moves its lapse hold to `until` (client clock);
   * false when it is no longer `token`'s (settled by another, or lapsed and taken over). A claim
   * starts with `until` = its `now` (nothing sent: a lapse frees the key); its holder renews it
   * with the hold a lapse would start right before it sends (a fence), and from then on.
   */
  renew(slot: string, token: string, leaseMs: number, until: number): Promise<boolean>;
  /**
   * Records the outcome of the claim of `token` (or, with `token` undefined, of a look-up that
   * found the booking, or of a create with a key of its own), kept for `keepMs`; `undefined`
   * releases the claim (nothing was booked). Never overwrites another claimer's live claim; a
   * lapsed one may be overwritten.
   */
  settle(
    slot: string,
    token: string | undefined,
    outcome: BookingLedgerEntry | undefined,
    keepMs: number,
  ): Promise<void>;
  /**
   * Resolves when the entry of `slot` may have changed, after at most `timeoutMs`, or when
   * `signal` aborts. Optional: without it, the client polls.
   */
  changed?(slot: string, options: { timeoutMs: number; signal?: AbortSignal | undefined }): Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-namespace -- types only: what a ledger takes and answers, named under the ledger for a ledger of your own and for a project emitting declarations (the core entry's names are counted)
export declare namespace BookingLedger {
  export type { BookingLedgerClaim as Claim, BookingLedgerClaimed as Claimed, BookingLedgerEntry as Entry };
}

/** Most entries the memory ledger keeps; past it, the oldest settled ones go first. */
const MAX_MEMORY_ENTRIES = 10_000;

interface StoredEntry {
  entry: BookingLedgerEntry;
  /** Real time (Date.now) after which the entry is gone. */
  expiresAt: number;
  /** A running claim's lease end, in real time: past it, the claim has lapsed. */
  leaseEndsAt?: number;
}

/**
 * What stops a claim on `slot`, or undefined when the claim may be taken; the Redis ledger's
 * script decides the same way. An entry under another fingerprint always stops it (a key reused
 * for another booking). A running claim whose lease lapsed (`leaseLive` false) is an ambiguous hold
 * until its `until`: its create may have left the machine, so it is never read as "never sent".
 */
export function claimAnswer(
  current: BookingLedgerEntry | undefined,
  claim: Pick<BookingLedgerClaim, 'fingerprint' | 'now'>,
  leaseLive: boolean,
): BookingLedgerEntry | undefined {
  if (current === undefined) return undefined;
  if (current.fingerprint !== claim.fingerprint) return current;
  if (current.state === 'running' && leaseLive) return current;
  const held: BookingLedgerEntry =
    current.state === 'running'
      ? { state: 'ambiguous', fingerprint: current.fingerprint, until: current.until }
      : current;
  if (held.state === 'ambiguous' && held.until <= claim.now) return undefined;
  return held;
}

function memoryLedger(): BookingLedger {
  const entries = new Map<string, StoredEntry>();
  const listeners = new Map<string, Set<() => void>>();

  const read = (slot: string): StoredEntry | undefined => {
    const stored = entries.get(slot);
    if (stored && stored.expiresAt <= Date.now()) entries.delete(slot);
    return entries.get(slot);
  };
  const live = (stored: StoredEntry | undefined) =>
    stored?.entry.state === 'running' && (stored.leaseEndsAt ?? 0) > Date.now();
  const notify = (slot: string) => {
    for (const listener of listeners.get(slot) ?? []) listener();
  };
  const write = (slot: string, stored: StoredEntry | undefined) => {
    entries.delete(slot);
    if (stored) {
      if (entries.size >= MAX_MEMORY_ENTRIES) evict();
      entries.set(slot, stored);
    }
    notify(slot);
  };
  // Expired entries first, then the oldest settled ones; running claims stay (each belongs to a call in progress).
  const evict = () => {
    const now = Date.now();
    for (const [slot, stored] of entries) if (stored.expiresAt <= now) entries.delete(slot);
    for (const [slot, stored] of entries) {
      if (entries.size < MAX_MEMORY_ENTRIES) break;
      if (stored.entry.state !== 'running') entries.delete(slot);
    }
  };

  return {
    claim(slot, claim) {
      const current = read(slot);
      const stops = claimAnswer(current?.entry, claim, live(current));
      if (stops) return Promise.resolve(stops);
      const now = Date.now();
      write(slot, {
        entry: {
          state: 'running',
          fingerprint: claim.fingerprint,
          token: claim.token,
          // Nothing sent yet: a lapse before the holder's fence frees the key at once.
          until: claim.now,
        },
        leaseEndsAt: now + claim.leaseMs,
        // Kept past the lease for the hold a lapse would start.
        expiresAt: now + claim.leaseMs + claim.holdMs,
      });
      return Promise.resolve(undefined);
    },
    renew(slot, token, leaseMs, until) {
      const current = read(slot);
      if (current?.entry.state !== 'running' || current.entry.token !== token) return Promise.resolve(false);
      const leaseEndsAt = Date.now() + leaseMs;
      // The entry outlives its lease by the same hold as when it was claimed.
      const holdMs = current.expiresAt - (current.leaseEndsAt ?? current.expiresAt);
      entries.set(slot, { entry: { ...current.entry, until }, leaseEndsAt, expiresAt: leaseEndsAt + holdMs });
      return Promise.resolve(true);
    },
    settle(slot, token, outcome, keepMs) {
      const current = read(slot);
      const mine = current?.entry.state === 'running' && current.entry.token === token;
      // A release only undoes this claimer's own running claim.
      if ((live(current) || outcome === undefined) && !mine) return Promise.resolve();
      write(slot, outcome && { entry: outcome, expiresAt: Date.now() + keepMs });
      return Promise.resolve();
    },
    changed(slot, { timeoutMs, signal }) {
      return new Promise<void>((resolve) => {
        const set = listeners.get(slot) ?? new Set<() => void>();
        listeners.set(slot, set);
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          set.delete(done);
          if (set.size === 0 && listeners.get(slot) === set) listeners.delete(slot);
          resolve();
        };
        const timer = setTimeout(done, Math.max(1, timeoutMs));
        set.add(done);
        if (signal?.aborted) done();
        else signal?.addEventListener('abort', done, { once: true });
      });
    },
  };
}

// The process's ledger lives on globalThis under a registered symbol, so every copy of this
// package loaded in one process (two versions in node_modules, a bundled copy, an import by
// another URL) books through the same one. The version in the name changes with the entries'
// shape, so copies that would not understand each other's entries do not share them.
const PROCESS_LEDGER = Symbol.for('restaurant-partner-sdk.booking-ledger.memory.v2');

/**
 * The in-process booking ledger: one per process, shared by every client and by every copy of this
 * package loaded in the process (every call returns the same one). It is the default
 * `bookingLedger`. It keeps at most 10 000 settled keys. For several processes or hosts, use
 * `createRedisBookingLedger` from `restaurant-partner-sdk/redis`.
 *
 * @example
 * ```ts
 * import { PartnerClient, createMemoryBookingLedger } from 'restaurant-partner-sdk';
 * const client = new PartnerClient({ baseUrl, partnerId, apiToken, bookingLedger: createMemoryBookingLedger() });
 * ```
 */
export function createMemoryBookingLedger(): BookingLedger {
  const holder = globalThis as { [PROCESS_LEDGER]?: BookingLedger };
  holder[PROCESS_LEDGER] ??= memoryLedger();
  return holder[PROCESS_LEDGER];
}

/**
 * The ledger slot of one key: service, partner and key. The restaurant is not part of it but of
 * the fingerprint, so the same key at another restaurant is refused as a reuse.
 */
export function ledgerSlot(service: string, partnerId: string, key: string): string {
  return JSON.stringify([service, partnerId, key]);
}
