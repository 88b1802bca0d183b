/**
 * The booking ledger in Redis: creates with a caller's own idempotency key, across every process
 * and host on one Redis. Each operation is one Lua script, so a claim, a renewal or an outcome is
 * atomic: two processes claiming one key at once get one claim between them. Entries are JSON
 * under `keyPrefix` + the key's slot, expiring with their lease (a running create) or after their
 * keeping time (a booking, an ambiguous hold).
 * @module
 */
import type { BookingLedger, BookingLedgerEntry } from '../lib/booking-ledger.js';
import { createScriptRunner, luaScript, positiveOption, type RedisClient } from './connection.js';

/** Options of {@link createRedisBookingLedger}. */
export interface RedisBookingLedgerOptions {
  /** Your connected ioredis or node-redis client. */
  redis: RedisClient;
  /** Prefix of the keys, one per idempotency key. Default `restaurant-partner-sdk:booking:`. */
  keyPrefix?: string;
  /** Longest wait for one Redis command; then the create is refused (nothing sent). Default 1000 ms. */
  commandTimeoutMs?: number;
}

// Answers the entry that stops the claim, or nil once the claim is taken. The same rule as the
// memory ledger's claimAllowed: another fingerprint always stops it; an ambiguous hold over by
// `now` (the client's clock, ARGV[4]) does not.
const CLAIM = luaScript(`
local current = redis.call('GET', KEYS[1])
if current then
  local entry = cjson.decode(current)
  if entry.fingerprint ~= ARGV[3] then return current end
  if not (entry.state == 'ambiguous' and tonumber(entry['until']) <= tonumber(ARGV[4])) then return current end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`);
const RENEW = luaScript(`
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local entry = cjson.decode(current)
if entry.state == 'running' and entry.token == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`);
// Never overwrites another claimer's running create; an empty outcome releases the caller's own claim.
const SETTLE = luaScript(`
local current = redis.call('GET', KEYS[1])
local mine = false
if current then
  local entry = cjson.decode(current)
  if entry.state == 'running' then
    if entry.token ~= ARGV[1] then return 0 end
    mine = true
  end
end
if ARGV[2] == '' then
  if mine then redis.call('DEL', KEYS[1]) end
  return 1
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`);

const entryOf = (answer: unknown): BookingLedgerEntry | undefined => {
  if (answer === null || answer === undefined) return undefined;
  return JSON.parse(String(answer)) as BookingLedgerEntry;
};

/**
 * A {@link BookingLedger} in Redis, for `new PartnerClient({ bookingLedger })`: give every process
 * one on the same Redis, and two processes creating with one key at once book once (the second
 * waits for the first and returns its booking). When Redis does not answer within
 * `commandTimeoutMs`, a create with your own key fails closed: it throws
 * `BookingLedgerUnavailableError` and sends nothing, rather than risk a second booking.
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
  const runner = createScriptRunner(
    options.redis,
    positiveOption(options.commandTimeoutMs, 'commandTimeoutMs', 1000),
    () => undefined,
  );
  const key = (slot: string) => `${keyPrefix}${slot}`;
  const ms = (value: number) => String(Math.max(1, Math.ceil(value)));
  return {
    async claim(slot, claim) {
      const running: BookingLedgerEntry = {
        state: 'running',
        fingerprint: claim.fingerprint,
        token: claim.token,
        until: claim.now,
      };
      return entryOf(
        await runner.run(
          CLAIM,
          [key(slot)],
          [JSON.stringify(running), ms(claim.leaseMs), claim.fingerprint, String(claim.now)],
        ),
      );
    },
    async renew(slot, token, leaseMs) {
      return Number(await runner.run(RENEW, [key(slot)], [token, ms(leaseMs)])) === 1;
    },
    async settle(slot, token, outcome, keepMs) {
      await runner.run(
        SETTLE,
        [key(slot)],
        [token ?? '', outcome ? JSON.stringify(outcome) : '', ms(keepMs)],
      );
    },
  };
}
