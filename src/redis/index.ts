/**
 * `restaurant-partner-sdk/redis`: one rate budget, one webhook duplicate store and one reservation
 * sync store for a partner running several processes or hosts, on the partner's own Redis (or Valkey) client: ioredis or
 * node-redis (`redis`), both optional peer dependencies. Node only.
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * import { PartnerClient } from 'restaurant-partner-sdk';
 * import { createRedisRateLimiter } from 'restaurant-partner-sdk/redis';
 *
 * const redis = new Redis(process.env.REDIS_URL);
 * const client = new PartnerClient({ baseUrl, partnerId, apiToken, rateLimit: createRedisRateLimiter({ redis, partnerId }) });
 * ```
 * @module
 */
export {
  createRedisRateLimiter,
  type RedisRateLimiter,
  type RedisRateLimiterOptions,
} from './rate-limiter.js';
export {
  createRedisDuplicateStore,
  DEFAULT_CLAIM_TTL_MS,
  type RedisDuplicateStore,
  type RedisDuplicateStoreOptions,
} from './duplicate-store.js';
export { createRedisBookingLedger, type RedisBookingLedgerOptions } from './booking-ledger.js';
export { createRedisSyncStore, type RedisSyncStoreOptions } from './sync-store.js';
export {
  RedisTimeoutError,
  type RedisClient,
  type IoRedisClient,
  type NodeRedisClient,
} from './connection.js';
