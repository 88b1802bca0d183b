/**
 * The booking ledger in Redis: creates with a caller's own idempotency key, across every process
 * and host on one Redis. Each operation is one Lua script, so a claim, a renewal or an outcome is
 * atomic: two processes claiming one key at once get one claim between them.
 *
 * Keys, all under `keyPrefix`:
 * - `<prefix><slot>`: the entry, JSON. A running claim is kept for its lease plus the hold a
 *   lapse starts (so a claim whose holder froze or died reads as an ambiguous hold, never as
 *   "never sent"); a booking or an ambiguous hold for its keeping time.
 * - `<prefix>lease:<slot>`: the running claim's lease, its token, expiring on the Redis server's
 *   clock. The entry's lease is live while this key holds the entry's token.
 * - `<prefix>marker`: a hash with no expiry: `id` (a generation and a random part), `seq` (a count
 *   of the ledger's writes) and `lostAt` once a loss was noticed. Each ledger learns the id and the count and sends them with
 *   every script; a marker gone, replaced or counting less than a ledger saw means Redis lost the
 *   ledger's keys (flushed, restarted empty or from an older copy, evicted), and every key the
 *   ledger then has no entry for is held for one hold period from the moment the loss was noticed.
 *
 * Slots are the client's `ledgerSlot()` (a JSON array), so they never read `marker` or `lease:...`.
 * @module
 */
import { randomUUID } from 'node:crypto';
import {
  claimAnswer,
  type BookingLedger,
  type BookingLedgerClaim,
  type BookingLedgerEntry,
} from '../lib/booking-ledger.js';
import { consoleLogger, type Logger } from '../logger.js';
import { createScriptRunner, positiveOption, type RedisClient, type ScriptRunner } from './connection.js';
import { CLAIM, LEARN, RENEW, SETTLE } from './booking-ledger-scripts.js';

/** Options of {@link createRedisBookingLedger}. */
export interface RedisBookingLedgerOptions {
  /** Your connected ioredis or node-redis client. */
  redis: RedisClient;
  /**
   * Prefix of the keys. Default `restaurant-partner-sdk:booking:`. On Redis Cluster, put a hash
   * tag in it (`restaurant-partner-sdk:{booking}:`) so every key of the ledger is on one slot.
   */
  keyPrefix?: string;
  /** Longest wait for one Redis command; then the create is refused (nothing sent). Default 1000 ms. */
  commandTimeoutMs?: number;
  /**
   * Where the ledger warns: a Redis that may evict its keys (`maxmemory-policy`), and a Redis that
   * lost them. Default: the console.
   */
  logger?: Logger;
}

/** What this ledger knows of a claim it holds: enough to write its entry again should Redis lose it. */
interface Held {
  fingerprint: string;
  holdMs: number;
  /** performance.now() by which the lease has surely not lapsed (counted from before the command was sent). */
  leaseSureUntil: number;
  /**
   * The renewal on its way that may write the entry again. A settle waits for it: a renewal sent
   * again as EVAL after NOSCRIPT would otherwise run after the settle and bring a released entry back.
   */
  renewing?: Promise<unknown> | undefined;
}

/** Most claims one ledger remembers holding; a create settles its claim, so this only bounds leaks. */
const MAX_HELD = 10_000;

/** Policies under which Redis never evicts a key to make room. */
const NON_EVICTING = new Set(['noeviction']);

const entryOf = (text: string): BookingLedgerEntry => {
  // The stored running entry carries its hold (for renewals); the ledger's callers see the entry alone.
  const { holdMs: _holdMs, ...entry } = JSON.parse(text) as BookingLedgerEntry & { holdMs?: number };
  return entry;
};

function checkNumber(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new TypeError(`${name} must be a finite number`);
  return value;
}

/** Sends one command that is not a script through either client (for `CONFIG GET`). */
function sendRaw(redis: RedisClient, args: string[]): Promise<unknown> {
  const client = redis as unknown as {
    call?: (...args: string[]) => Promise<unknown>;
    sendCommand?: (args: string[]) => Promise<unknown>;
  };
  // ioredis names it call(); node-redis sendCommand([...]) (ioredis's sendCommand takes a Command).
  if (typeof client.call === 'function') return client.call(...args);
  if (typeof client.sendCommand === 'function') return client.sendCommand(args);
  return Promise.reject(new Error('no raw command'));
}

/**
 * Warns once when Redis says it may evict keys to make room: an evicted key in doubt while the
 * marker stays is a loss no ledger can notice. Managed Redis often refuses CONFIG: then nothing is said.
 */
function warnIfEvicting(redis: RedisClient, logger: Logger, keyPrefix: string): void {
  void sendRaw(redis, ['CONFIG', 'GET', 'maxmemory-policy'])
    .then((answer) => {
      const policy: unknown = Array.isArray(answer)
        ? answer[1]
        : (answer as Record<string, unknown> | null)?.['maxmemory-policy'];
      if (typeof policy === 'string' && !NON_EVICTING.has(policy)) {
        logger.warn(
          `Redis's maxmemory-policy is ${policy}: under memory pressure it may evict the booking ledger's keys, and a key evicted while its booking is in doubt can be booked twice. Set maxmemory-policy noeviction on the ledger's Redis`,
          { keyPrefix, maxmemoryPolicy: policy },
        );
      }
    })
    .catch(() => undefined);
}

const reply = (answer: unknown): unknown[] => (Array.isArray(answer) ? answer : []);

/**
 * What a ledger learnt of the marker ('' and 0 until its first answer from Redis), learnt again
 * from every script's answer; read eagerly, so a Redis that loses its keys before the first
 * claim is noticed.
 */
function trackMarker(runner: ScriptRunner, markerKey: string, logger: Logger, keyPrefix: string) {
  let known = '';
  let knownSeq = 0;
  /** The marker check's arguments (the first five of every script). */
  const args = (now: number, holdMs: number) => [
    known,
    String(knownSeq),
    randomUUID(),
    String(now),
    String(holdMs),
  ];
  /** Learns from a script's answer (id, noticed, seq first); answers the rest. */
  const learn = (answer: unknown): unknown[] => {
    const [id, noticed, seq, ...rest] = reply(answer);
    if (typeof id !== 'string' || id === '') return rest;
    if (known !== '' && id !== known) {
      logger.warn(
        'Redis lost the booking ledger\u2019s keys (flushed, restarted without persistence or from an older copy, or evicted): every idempotency key it has no entry for is held as possibly sent for one ambiguous hold',
        { keyPrefix, noticedHere: Number(noticed) === 1 },
      );
    }
    // A new marker starts its own count; under the same one, the highest seen is what Redis must not go below.
    knownSeq = id === known ? Math.max(knownSeq, Number(seq) || 0) : Number(seq) || 0;
    known = id;
    return rest;
  };
  void runner
    .run(LEARN, [markerKey, markerKey, markerKey], args(Date.now(), 0))
    .then((answer) => {
      // A claim may have answered first; only an unknown marker is learnt here.
      if (known === '') learn(answer);
    })
    .catch(() => undefined);
  return { args, learn };
}

/** A running entry as stored: its hold (for renewals) before `until`, which is last so renewals rewrite it in place. */
const runningEntry = (fingerprint: string, token: string, holdMs: number, until: number) =>
  JSON.stringify({ state: 'running', fingerprint, token, holdMs, until });

/**
 * A {@link BookingLedger} in Redis, for `new PartnerClient({ bookingLedger })`: give every process
 * one on the same Redis, and two processes creating with one key at once book once (the second
 * waits for the first and returns its booking). When Redis does not answer within
 * `commandTimeoutMs`, a create with your own key fails closed: it throws
 * `BookingLedgerUnavailableError` and sends nothing, rather than risk a second booking.
 *
 * A create whose process froze or died keeps its key held: once its lease lapses, the key reads as
 * ambiguous for the hold (`ambiguousHoldMs`). A Redis that lost the ledger's keys (flushed,
 * restarted without persistence, keys evicted) is noticed by every ledger that had used it before:
 * each key the ledger then has no entry for is held for one hold period. Keep the ledger's Redis
 * persistent (AOF) and non-evicting (`maxmemory-policy noeviction`); the ledger warns through
 * `logger` when Redis says it may evict.
 *
 * @example
 * ```ts
 * const bookingLedger = createRedisBookingLedger({ redis });
 * const client = new PartnerClient({ baseUrl, partnerId, apiToken, bookingLedger });
 * ```
 */
export function createRedisBookingLedger(options: RedisBookingLedgerOptions): BookingLedger {
  if (!options || typeof options !== 'object')
    throw new TypeError('createRedisBookingLedger expects { redis }');
  const keyPrefix = options.keyPrefix ?? 'restaurant-partner-sdk:booking:';
  if (typeof keyPrefix !== 'string') throw new TypeError('keyPrefix must be a string');
  const logger = options.logger ?? consoleLogger;
  const runner = createScriptRunner(
    options.redis,
    positiveOption(options.commandTimeoutMs, 'commandTimeoutMs', 1000),
    () => undefined,
  );
  const markerKey = `${keyPrefix}marker`;
  const keys = (slot: string) => [`${keyPrefix}${slot}`, `${keyPrefix}lease:${slot}`, markerKey];
  const ms = (value: number) => String(Math.max(1, Math.ceil(value)));

  const marker = trackMarker(runner, markerKey, logger, keyPrefix);
  const held = new Map<string, Held>();
  const remember = (token: string, entry: Held) => {
    held.delete(token);
    if (held.size >= MAX_HELD) held.delete(held.keys().next().value!);
    held.set(token, entry);
  };
  warnIfEvicting(options.redis, logger, keyPrefix);
  // The client's clock minus Date.now(), and the hold, at the last claim: settle has neither.
  let clockOffset = 0;
  let lastHoldMs = 15 * 60_000;

  return {
    async claim(slot, claim: BookingLedgerClaim) {
      const now = checkNumber(claim.now, 'claim.now');
      const leaseMs = checkNumber(claim.leaseMs, 'claim.leaseMs');
      const holdMs = Math.max(0, checkNumber(claim.holdMs, 'claim.holdMs'));
      clockOffset = now - Date.now();
      lastHoldMs = holdMs;
      const hold = Math.ceil(holdMs);
      const sent = performance.now();
      const [status, value, live] = marker.learn(
        await runner.run(CLAIM, keys(slot), [
          ...marker.args(now, holdMs),
          // Nothing sent yet: a lapse before the holder's fence (a renewal with a hold) frees the key.
          runningEntry(claim.fingerprint, claim.token, hold, now),
          ms(leaseMs),
          ms(leaseMs + hold),
          claim.fingerprint,
          claim.fresh ? '1' : '',
          claim.token,
        ]),
      );
      if (status === 'claimed') {
        remember(claim.token, {
          fingerprint: claim.fingerprint,
          holdMs: hold,
          leaseSureUntil: sent + leaseMs,
        });
        return undefined;
      }
      if (status === 'lost') {
        return { state: 'ambiguous', fingerprint: claim.fingerprint, until: Number(value) + holdMs };
      }
      if (status !== 'entry') throw new Error('the booking ledger script answered in an unexpected shape');
      const current = entryOf(String(value));
      // The script decided as claimAnswer does; should they ever differ, the entry itself still stops the claim.
      return claimAnswer(current, claim, Number(live) === 1) ?? current;
    },
    async renew(slot, token, leaseMs, until) {
      checkNumber(leaseMs, 'leaseMs');
      checkNumber(until, 'until');
      const mine = held.get(token);
      const holdMs = mine?.holdMs ?? lastHoldMs;
      const sent = performance.now();
      // Only a holder whose lease surely has not lapsed may write its entry again: an entry that
      // lapsed and expired (the holder froze past its lease and hold) is gone by design, not lost.
      const rewrite =
        mine && sent < mine.leaseSureUntil ? runningEntry(mine.fingerprint, token, mine.holdMs, until) : '';
      const running = runner.run(RENEW, keys(slot), [
        // The renewal's now on the client's clock (lostAt, should it notice a loss): until - lease -
        // hold once the create may have been sent; before that (until is now) the client's clock
        // as the last claim read it, moved on by real time. The later of the two: a hold never shortened.
        ...marker.args(Math.max(until - leaseMs - holdMs, Date.now() + clockOffset), holdMs),
        token,
        ms(leaseMs),
        String(until),
        rewrite,
        ms(leaseMs + holdMs),
      ]);
      if (mine && rewrite) mine.renewing = running;
      const [renewed] = marker.learn(await running);
      if (Number(renewed) !== 1) return false;
      if (mine) mine.leaseSureUntil = sent + leaseMs;
      return true;
    },
    async settle(slot, token, outcome, keepMs) {
      const mine = token === undefined ? undefined : held.get(token);
      if (token !== undefined) held.delete(token);
      await mine?.renewing?.catch(() => undefined);
      marker.learn(
        await runner.run(SETTLE, keys(slot), [
          ...marker.args(Date.now() + clockOffset, lastHoldMs),
          token ?? '',
          outcome ? JSON.stringify(outcome) : '',
          ms(checkNumber(keepMs, 'keepMs')),
        ]),
      );
    },
  };
}
