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

// Every script starts with the marker check (KEYS[3] is the marker hash: id, lostAt, seq). ARGV 1
// to 5 are the same in each: the marker id this ledger learnt ('' for none yet), the highest `seq`
// it saw, a new random id, now (the client's clock) and the hold (holdMs).
// A marker id is `<generation>:<random>`; each loss noticed writes the next generation.
// Redis lost the ledger's keys when, for a ledger that knew the marker, the marker is missing
// (flushed, restarted empty, evicted); or is another one that is not a later generation written
// by a loss noticed elsewhere (a marker made afresh, or an older one back from a copy); or is the
// same one with a lower `seq`, its count of the ledger's writes (back from an older snapshot or
// AOF). The marker is then written anew, the next generation with `lostAt`, so every other ledger
// (and any started later) sees the loss too, and every key with no entry is held until lostAt +
// holdMs. A marker missing where the ledger knew none is a brand-new Redis (or one that lost its
// keys before any live ledger had seen the marker: the two cannot be told apart): no hold.
const MARKER_CHECK = `
local function generation(id) return tonumber(string.match(id or '', '^(%d+):')) or 0 end
local function mark_lost(current_id, now)
  local id = (math.max(generation(ARGV[1]), generation(current_id)) + 1) .. ':' .. ARGV[3]
  redis.call('HSET', KEYS[3], 'id', id, 'lostAt', now)
  return id
end
local function check_marker()
  local known, known_seq, now = ARGV[1], tonumber(ARGV[2]), ARGV[4]
  local marker = redis.call('HMGET', KEYS[3], 'id', 'lostAt', 'seq')
  local id, lost_at, seq = marker[1], marker[2], tonumber(marker[3]) or 0
  if not id and known == '' then
    id = '1:' .. ARGV[3]
    redis.call('HSET', KEYS[3], 'id', id)
    return id, false, 0, seq
  end
  if known == '' then return id, lost_at, 0, seq end
  local lost
  if not id then lost = true
  elseif id == known then lost = known_seq > seq
  else lost = not (lost_at and generation(id) > generation(known)) end
  if not lost then return id, lost_at, 0, seq end
  return mark_lost(id, now), now, 1, seq
end
local function wrote() return redis.call('HINCRBY', KEYS[3], 'seq', 1) end
`;

// KEYS: entry, lease, marker. ARGV 1-5: the marker check's; 6 the running entry (JSON), 7 leaseMs,
// 8 its keeping time (leaseMs + holdMs), 9 fingerprint, 10 '1' for a fresh (random) key, 11 token.
// Answers {id, noticed, seq, status, value, lease live 0/1}: status 'claimed'; 'entry' with the
// entry that stops the claim (decided as claimAnswer() does); or 'lost' with lostAt (no entry,
// held since Redis lost its keys).
const CLAIM = luaScript(`${MARKER_CHECK}
local id, lost_at, noticed, seq = check_marker()
local now = tonumber(ARGV[4])
local current = redis.call('GET', KEYS[1])
if current then
  local entry = cjson.decode(current)
  local live = 0
  if entry.state == 'running' then
    -- An entry written before leases had their own key (no until) counts as live until it expires.
    if entry['until'] == nil or redis.call('GET', KEYS[2]) == entry.token then live = 1 end
  end
  local stops = true
  if entry.fingerprint == ARGV[9] and live == 0 then
    local held_until = nil
    if entry.state == 'running' or entry.state == 'ambiguous' then held_until = tonumber(entry['until']) end
    if held_until ~= nil and held_until <= now then stops = false end
  end
  if stops then return {id, noticed, seq, 'entry', current, live} end
elseif lost_at and ARGV[10] ~= '1' and now < tonumber(lost_at) + tonumber(ARGV[5]) then
  return {id, noticed, seq, 'lost', lost_at, 0}
end
redis.call('SET', KEYS[1], ARGV[6], 'PX', ARGV[8])
redis.call('SET', KEYS[2], ARGV[11], 'PX', ARGV[7])
return {id, noticed, wrote(), 'claimed', '', 0}
`);

// KEYS: entry, lease, marker. ARGV 1-5: the marker check's; 6 token, 7 leaseMs, 8 until, 9 the
// entry to write again if it is gone ('' unless this ledger knows the claim's lease has not
// lapsed), 10 its keeping time. Answers {id, noticed, seq, 1 renewed or 0}.
// The entry's until is its last field (the claim writes it so): rewritten in place, the rest of
// the JSON (the fingerprint) is kept byte for byte. An own entry gone while its lease cannot have
// lapsed means Redis lost its keys: the loss is marked (unless already held) and the entry written
// again.
const RENEW = luaScript(`${MARKER_CHECK}
local id, lost_at, noticed, seq = check_marker()
local current = redis.call('GET', KEYS[1])
if current then
  local entry = cjson.decode(current)
  if entry.state ~= 'running' or entry.token ~= ARGV[6] then return {id, noticed, seq, 0} end
  local hold = tonumber(entry.holdMs) or 0
  local updated = string.gsub(current, '"until":[^,}]*}$', '"until":' .. ARGV[8] .. '}')
  redis.call('SET', KEYS[1], updated, 'PX', tonumber(ARGV[7]) + hold)
  redis.call('SET', KEYS[2], ARGV[6], 'PX', ARGV[7])
  return {id, noticed, wrote(), 1}
end
if ARGV[9] == '' then return {id, noticed, seq, 0} end
if noticed == 0 and not (lost_at and tonumber(ARGV[4]) < tonumber(lost_at) + tonumber(ARGV[5])) then
  id = mark_lost(id, ARGV[4])
  noticed = 1
end
redis.call('SET', KEYS[1], ARGV[9], 'PX', ARGV[10])
redis.call('SET', KEYS[2], ARGV[6], 'PX', ARGV[7])
return {id, noticed, wrote(), 1}
`);

// KEYS: entry, lease, marker. ARGV 1-5: the marker check's (now estimated); 6 token ('' for none),
// 7 outcome JSON ('' releases), 8 keepMs. Answers {id, noticed, seq}.
// Never overwrites another claimer's live claim (a lapsed one may be); a release deletes only the
// caller's own running claim.
const SETTLE = luaScript(`${MARKER_CHECK}
local id, lost_at, noticed, seq = check_marker()
local current = redis.call('GET', KEYS[1])
local mine = false
if current then
  local entry = cjson.decode(current)
  if entry.state == 'running' then
    mine = ARGV[6] ~= '' and entry.token == ARGV[6]
    local live = entry['until'] == nil or redis.call('GET', KEYS[2]) == entry.token
    if live and not mine then return {id, noticed, seq} end
  end
end
if ARGV[7] == '' then
  if mine then redis.call('DEL', KEYS[1], KEYS[2]) end
  return {id, noticed, seq}
end
redis.call('SET', KEYS[1], ARGV[7], 'PX', ARGV[8])
redis.call('DEL', KEYS[2])
return {id, noticed, wrote()}
`);

// The marker check alone (every key is the marker): a ledger learns the marker when it is made.
const LEARN = luaScript(`${MARKER_CHECK}
local id, lost_at, noticed, seq = check_marker()
return {id, noticed, seq}
`);

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
