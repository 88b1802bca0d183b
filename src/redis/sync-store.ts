/**
 * A reservation sync's store in Redis, shared by every process of a partner: what was announced
 * per reservation (a hash written by compare-and-set on its revision, so two processes never
 * overwrite each other's announcement unseen), and the leases the syncs take while they announce
 * a change or read a restaurant. Leases expire on the Redis server's clock.
 * @module
 */
import type { SyncRecord, SyncStore } from '../sync/store.js';
import {
  createScriptRunner,
  luaScript,
  positiveOption,
  RELEASE_LEASE,
  type RedisClient,
} from './connection.js';

/** Options of {@link createRedisSyncStore}. */
export interface RedisSyncStoreOptions {
  /** Your connected ioredis or node-redis client. */
  redis: RedisClient;
  /** Prefix of every key. Default `restaurant-partner-sdk:sync:`. Give each partner (or each environment) its own. */
  keyPrefix?: string;
  /** Longest wait for one Redis command. Default 1000 ms. */
  commandTimeoutMs?: number;
}

const GET = luaScript(`return redis.call('HGET', KEYS[1], 'record')`);
// Writes when the stored revision is the one before ARGV[1]; keeps the record ARGV[3] ms.
const PUT = luaScript(`
local stored = tonumber(redis.call('HGET', KEYS[1], 'revision') or '0')
if stored ~= tonumber(ARGV[1]) - 1 then return 0 end
redis.call('HSET', KEYS[1], 'revision', ARGV[1], 'record', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`);
const CLAIM = luaScript(`
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`);

/**
 * Creates a {@link SyncStore} in Redis for `createReservationSync({ store })`. Syncs in several
 * processes on the same store share what was announced (a restarted one never announces it again)
 * and share the reading of restaurants.
 *
 * @example
 * ```ts
 * import { createRedisSyncStore } from 'restaurant-partner-sdk/redis';
 * const sync = createReservationSync({ client, onChange, store: createRedisSyncStore({ redis }) });
 * ```
 */
export function createRedisSyncStore(options: RedisSyncStoreOptions): SyncStore {
  if (!options || typeof options !== 'object') throw new TypeError('createRedisSyncStore expects { redis }');
  const keyPrefix = options.keyPrefix ?? 'restaurant-partner-sdk:sync:';
  if (typeof keyPrefix !== 'string') throw new TypeError('keyPrefix must be a string');
  const runner = createScriptRunner(
    options.redis,
    positiveOption(options.commandTimeoutMs, 'commandTimeoutMs', 1000),
    () => undefined,
  );
  const recordKey = (restaurantId: number, reservationId: number) =>
    `${keyPrefix}reservation:${restaurantId}:${reservationId}`;
  const leaseKey = (key: string) => `${keyPrefix}lease:${key}`;
  return {
    async get(restaurantId, reservationId) {
      const stored = await runner.run(GET, [recordKey(restaurantId, reservationId)], []);
      return typeof stored === 'string' ? (JSON.parse(stored) as SyncRecord) : undefined;
    },
    async put(record, now) {
      // Kept until the sync stops reading it; at least a minute, so a clock far ahead never drops a fresh record.
      const keepMs = Math.max(60_000, Math.ceil(record.expiresAt - now));
      return (
        Number(
          await runner.run(
            PUT,
            [recordKey(record.restaurantId, record.reservation.id)],
            [record.revision, JSON.stringify(record), keepMs],
          ),
        ) === 1
      );
    },
    async claim(key, holder, _now, ttlMs) {
      return Number(await runner.run(CLAIM, [leaseKey(key)], [holder, Math.max(1, Math.ceil(ttlMs))])) === 1;
    },
    async release(key, holder) {
      await runner.run(RELEASE_LEASE, [leaseKey(key)], [holder]);
    },
  };
}
