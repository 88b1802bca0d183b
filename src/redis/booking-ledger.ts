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
 * - `<prefix>marker`: a hash with no expiry, `id` (and `lostAt` once a loss was noticed). Each
 *   ledger learns the id and sends it with every script; a marker gone or replaced means Redis lost
 *   the ledger's keys (flushed, restarted without persistence, evicted), and every key the ledger
 *   then has no entry for is held for one hold period from the moment the loss was noticed.
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
import {
  createScriptRunner,
  luaScript,
  positiveOption,
  type RedisClient,
  type ScriptRunner,
} from './connection.js';

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

// The marker check every script starts with (KEYS[3] is the marker). `known` is the marker id this
// ledger learnt ('' for none yet), `fresh_id` a new random id, `now` the client's clock. A marker
// missing or replaced while this ledger knew one means Redis lost its keys: the marker is written
// again with `lostAt`, so every other ledger on this Redis sees the loss too. A marker missing where
// this ledger knew none is a brand-new Redis (or one that lost its keys before any live ledger had
// seen the marker, which no one can tell apart): it starts with no hold.
const MARKER_CHECK = `
local function check_marker(known, fresh_id, now)
  local marker = redis.call('HMGET', KEYS[3], 'id', 'lostAt')
  local id, lost_at = marker[1], marker[2]
  if not id then
    if known == '' then
      redis.call('HSET', KEYS[3], 'id', fresh_id)
      return fresh_id, false, 0
    end
    redis.call('HSET', KEYS[3], 'id', fresh_id, 'lostAt', now)
    return fresh_id, now, 1
  end
  if known ~= '' and id ~= known and not lost_at then
    redis.call('HSET', KEYS[3], 'lostAt', now)
    return id, now, 1
  end
  return id, lost_at, 0
end
`;

// KEYS: entry, lease, marker. ARGV: 1 the running entry (JSON), 2 leaseMs, 3 its keeping time
// (leaseMs + holdMs), 4 fingerprint, 5 now (client clock), 6 known marker id, 7 fresh marker id,
// 8 holdMs, 9 '1' for a fresh (random) key, 10 token.
// Answers {'claimed'}, {'entry', entry, lease live 0/1} (the entry that stops the claim, decided as
// claimAnswer() does) or {'lost', lostAt} (no entry, held since Redis lost its keys); each with the
// marker id and whether this script noticed the loss.
const CLAIM = luaScript(`${MARKER_CHECK}
local id, lost_at, noticed = check_marker(ARGV[6], ARGV[7], ARGV[5])
local now = tonumber(ARGV[5])
local current = redis.call('GET', KEYS[1])
if current then
  local entry = cjson.decode(current)
  local live = 0
  if entry.state == 'running' then
    -- An entry written before leases had their own key (no until) counts as live until it expires.
    if entry['until'] == nil or redis.call('GET', KEYS[2]) == entry.token then live = 1 end
  end
  local stops = true
  if entry.fingerprint == ARGV[4] and live == 0 then
    local held_until = nil
    if entry.state == 'running' or entry.state == 'ambiguous' then held_until = tonumber(entry['until']) end
    if held_until ~= nil and held_until <= now then stops = false end
  end
  if stops then return {'entry', current, live, id, noticed} end
elseif lost_at and ARGV[9] ~= '1' and now < tonumber(lost_at) + tonumber(ARGV[8]) then
  return {'lost', lost_at, 0, id, noticed}
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
redis.call('SET', KEYS[2], ARGV[10], 'PX', ARGV[2])
return {'claimed', '', 0, id, noticed}
`);

// KEYS: entry, lease, marker. ARGV: 1 token, 2 leaseMs, 3 until, 4 known marker id, 5 fresh marker
// id, 6 now (client clock), 7 the entry to write again if it is gone ('' unless this ledger knows
// the claim's lease has not lapsed), 8 its keeping time, 9 holdMs.
// The entry's until is its last field (the claim writes it so): rewritten in place, the rest of
// the JSON (the fingerprint) is kept byte for byte. An own entry gone while its lease cannot have
// lapsed means Redis lost its keys: the loss is marked (unless already being held) and the entry
// written again. Answers {1 or 0, marker id, noticed}.
const RENEW = luaScript(`${MARKER_CHECK}
local id, lost_at, noticed = check_marker(ARGV[4], ARGV[5], ARGV[6])
local current = redis.call('GET', KEYS[1])
if current then
  local entry = cjson.decode(current)
  if entry.state ~= 'running' or entry.token ~= ARGV[1] then return {0, id, noticed} end
  local hold = tonumber(entry.holdMs) or 0
  local updated = string.gsub(current, '"until":[^,}]*}$', '"until":' .. ARGV[3] .. '}')
  redis.call('SET', KEYS[1], updated, 'PX', tonumber(ARGV[2]) + hold)
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
  return {1, id, noticed}
end
if ARGV[7] == '' then return {0, id, noticed} end
if noticed == 0 and not (lost_at and tonumber(ARGV[6]) < tonumber(lost_at) + tonumber(ARGV[9])) then
  id = ARGV[5]
  redis.call('HSET', KEYS[3], 'id', id, 'lostAt', ARGV[6])
  noticed = 1
end
redis.call('SET', KEYS[1], ARGV[7], 'PX', ARGV[8])
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return {1, id, noticed}
`);

// KEYS: entry, lease, marker. ARGV: 1 token ('' for none), 2 outcome JSON ('' releases), 3 keepMs,
// 4 known marker id, 5 fresh marker id, 6 now (client clock, estimated).
// Never overwrites another claimer's live claim (a lapsed one may be); a release deletes only the
// caller's own running claim. Answers {1 written or 0 refused, marker id, noticed}.
const SETTLE = luaScript(`${MARKER_CHECK}
local id, lost_at, noticed = check_marker(ARGV[4], ARGV[5], ARGV[6])
local current = redis.call('GET', KEYS[1])
local mine = false
if current then
  local entry = cjson.decode(current)
  if entry.state == 'running' then
    mine = ARGV[1] ~= '' and entry.token == ARGV[1]
    local live = entry['until'] == nil or redis.call('GET', KEYS[2]) == entry.token
    if live and not mine then return {0, id, noticed} end
  end
end
if ARGV[2] == '' then
  if mine then redis.call('DEL', KEYS[1], KEYS[2]) end
  return {1, id, noticed}
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('DEL', KEYS[2])
return {1, id, noticed}
`);

// KEYS[3] only (the first two are unused): learns the marker at construction.
const LEARN = luaScript(`${MARKER_CHECK}
local id, lost_at, noticed = check_marker(ARGV[1], ARGV[2], ARGV[3])
return {id, noticed}
`);

/** What this ledger knows of a claim it holds: enough to write its entry again should Redis lose it. */
interface Held {
  fingerprint: string;
  holdMs: number;
  /** performance.now() by which the lease has surely not lapsed (counted from before the command was sent). */
  leaseSureUntil: number;
}

/** Most claims one ledger remembers holding; a create settles its claim, so this only bounds leaks. */
const MAX_HELD = 10_000;

/** Policies under which Redis never evicts a key to make room. */
const NON_EVICTING = new Set(['noeviction']);

const entryOf = (text: string): BookingLedgerEntry => {
  // The stored running entry carries its hold (for renewals); the ledger's callers see the entry alone.
  const { holdMs: _holdMs, ...entry } = JSON.parse(text) as BookingLedgerEntry & { holdMs?: number };
  return entry as BookingLedgerEntry;
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
      const policy = Array.isArray(answer)
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
 * The marker id a ledger learnt ('' until its first answer from Redis), learnt again from every
 * script's answer; read eagerly, so a Redis that loses its keys before the first claim is noticed.
 */
function trackMarker(runner: ScriptRunner, markerKey: string, logger: Logger, keyPrefix: string) {
  let known = '';
  const learn = (id: unknown, noticed: unknown) => {
    if (typeof id !== 'string' || id === '') return;
    if (known !== '' && id !== known) {
      logger.warn(
        'Redis lost the booking ledger\u2019s keys (flushed, restarted without persistence, or evicted): every idempotency key it has no entry for is held as possibly sent for one ambiguous hold',
        { keyPrefix, noticedHere: Number(noticed) === 1 },
      );
    }
    known = id;
  };
  void runner
    .run(LEARN, [markerKey, markerKey, markerKey], ['', randomUUID(), String(Date.now())])
    .then((answer) => {
      const [id, noticed] = reply(answer);
      // A claim may have answered first; only an unknown marker is learnt here.
      if (known === '') learn(id, noticed);
    })
    .catch(() => undefined);
  return { known: () => known, learn };
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
  // The client's clock minus Date.now() at the last claim: settle has no `now` of its own.
  let clockOffset = 0;
  const held = new Map<string, Held>();
  const remember = (token: string, entry: Held) => {
    held.delete(token);
    if (held.size >= MAX_HELD) held.delete(held.keys().next().value!);
    held.set(token, entry);
  };
  warnIfEvicting(options.redis, logger, keyPrefix);

  return {
    async claim(slot, claim: BookingLedgerClaim) {
      const now = checkNumber(claim.now, 'claim.now');
      const leaseMs = checkNumber(claim.leaseMs, 'claim.leaseMs');
      const holdMs = Math.max(0, checkNumber(claim.holdMs, 'claim.holdMs'));
      clockOffset = now - Date.now();
      const hold = Math.ceil(holdMs);
      const running = runningEntry(claim.fingerprint, claim.token, hold, now + leaseMs + holdMs);
      const sent = performance.now();
      const [status, value, live, id, noticed] = reply(
        await runner.run(CLAIM, keys(slot), [
          running,
          ms(leaseMs),
          ms(leaseMs + hold),
          claim.fingerprint,
          String(now),
          marker.known(),
          randomUUID(),
          String(holdMs),
          claim.fresh ? '1' : '',
          claim.token,
        ]),
      );
      marker.learn(id, noticed);
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
      const sent = performance.now();
      // Only a holder whose lease surely has not lapsed may write its entry again: an entry that
      // lapsed and expired (the holder froze past its lease and hold) is gone by design, not lost.
      const rewrite =
        mine && sent < mine.leaseSureUntil
          ? JSON.stringify({
              state: 'running',
              fingerprint: mine.fingerprint,
              token,
              holdMs: mine.holdMs,
              until,
            })
          : '';
      const holdMs = mine?.holdMs ?? 0;
      const now = until - leaseMs - holdMs;
      const [renewed, id, noticed] = reply(
        await runner.run(RENEW, keys(slot), [
          token,
          ms(leaseMs),
          String(until),
          marker.known(),
          randomUUID(),
          String(now),
          rewrite,
          ms(leaseMs + holdMs),
          String(holdMs),
        ]),
      );
      marker.learn(id, noticed);
      if (Number(renewed) !== 1) return false;
      if (mine) mine.leaseSureUntil = sent + leaseMs;
      return true;
    },
    async settle(slot, token, outcome, keepMs) {
      if (token !== undefined) held.delete(token);
      const [, id, noticed] = reply(
        await runner.run(SETTLE, keys(slot), [
          token ?? '',
          outcome ? JSON.stringify(outcome) : '',
          ms(checkNumber(keepMs, 'keepMs')),
          marker.known(),
          randomUUID(),
          String(Date.now() + clockOffset),
        ]),
      );
      marker.learn(id, noticed);
    },
  };
}
