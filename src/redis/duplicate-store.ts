/**
 * A webhook duplicate store shared by several receiver instances. A receiver claims a delivery
 * with a lease (a random token stored under the delivery's key for `claimTtlMs`) before its
 * handler runs, so when two instances receive the same delivery at once only one runs it. The
 * receiver renews the lease while its handler runs, so the lease is short: a receiver that stopped
 * (killed, cut off from Redis, gave up on a claim that landed late) holds the delivery for at most
 * `claimTtlMs`. Only the lease's owner completes it (the key then reads `processed` for `ttlMs`)
 * or releases it.
 * @module
 */
import type { DuplicateClaim, DuplicateStore } from '../webhooks/duplicates.js';
import {
  createScriptRunner,
  luaScript,
  positiveOption,
  RELEASE_LEASE,
  type RedisClient,
} from './connection.js';

/**
 * Default `claimTtlMs`: 600 ms. The receiver renews a claim every 200 ms while its handler runs, so
 * only a receiver that stopped lets it run out; another receiver finding it held waits this long
 * (plus 100 ms) at most, so a delivery it cannot take is answered 409 within a second.
 */
export const DEFAULT_CLAIM_TTL_MS = 600;

/** Shortest `claimTtlMs`: a third of it between renewals is already a Redis command per 33 ms and delivery. */
const MIN_CLAIM_TTL_MS = 100;

/**
 * How long the release sent behind a claim that timed out may wait for Redis. Redis runs it right
 * after that claim whenever it resumes; it must not give up at `commandTimeoutMs` as the claim did,
 * or a claim landing after a stall of two command timeouts would stay held for its whole lease.
 */
const RELEASE_BEHIND_TIMEOUT_MS = 30_000;

/** Options of {@link createRedisDuplicateStore}. */
export interface RedisDuplicateStoreOptions {
  /** Your connected ioredis or node-redis client. */
  redis: RedisClient;
  /**
   * Prefix of the keys. Default `restaurant-partner-sdk:webhook:`. The receiver already keys a
   * delivery so that two partners' receivers never collide (see the receiver's `duplicateStore`);
   * set a prefix of your own to keep environments (staging, production) apart on one Redis.
   */
  keyPrefix?: string;
  /** How long a processed delivery is remembered. Default 7 days (the service retries for hours). */
  ttlMs?: number;
  /**
   * How long a claim lasts unless renewed, in milliseconds (at least 100). The receiver renews it
   * every third of this while its handler runs, so it bounds only how long a receiver that
   * stopped (killed mid-handler, cut off from Redis, or one that gave up on a claim that landed
   * late) keeps the delivery from the others, and how long another receiver finding the delivery
   * held waits before answering 409. Through a Redis stall the owner's renewal, queued first,
   * takes the claim back; but if the owner itself stalls longer than this (its process blocked,
   * its connection alone cut off), a copy of the delivery arriving at another receiver just then
   * runs too. Default 600 ms.
   */
  claimTtlMs?: number;
  /** Longest wait for one Redis command. Default 1000 ms. */
  commandTimeoutMs?: number;
}

const PROCESSED = 'processed';

// 1: claimed by ARGV[1] (now, or already: a resent claim is the same claim); 2: processed; 0: another lease holds it.
const CLAIM = luaScript(`
local held = redis.call('GET', KEYS[1])
if not held then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if held == ARGV[1] then return 1 end
if held == '${PROCESSED}' then return 2 end
return 0
`);
// Extends the lease of ARGV[1]: 1 while it is ours (taken again if it ran out and nobody took it
// meanwhile: our handler is still running), 0 once another lease holds it or it was processed.
const RENEW = luaScript(`
local held = redis.call('GET', KEYS[1])
if held == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not held then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
`);
// Marks the delivery processed unless another lease holds it: the handler did run, so a key that
// is free (our lease ran out) is marked too; another owner's lease is left alone.
const COMPLETE = luaScript(`
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] and held ~= '${PROCESSED}' then return 0 end
redis.call('SET', KEYS[1], '${PROCESSED}', 'PX', ARGV[2])
return 1
`);
const IS_PROCESSED = luaScript(`
if redis.call('GET', KEYS[1]) == '${PROCESSED}' then return 1 end
return 0
`);

/** The Redis duplicate store: `claim` with a renewable lease, `has`/`add` for reading and marking by hand. */
export interface RedisDuplicateStore extends DuplicateStore {
  claim(key: string): Promise<DuplicateClaim>;
  readonly claimTtlMs: number;
  readonly renewsClaims: true;
}

/**
 * Creates a {@link DuplicateStore} in Redis for `createWebhookReceiver({ duplicateStore })`. Give
 * every receiver instance of one endpoint a store on the same Redis: a delivery is then handled
 * once across all of them.
 *
 * A claim that does not answer in time (Redis paused or hung, a slow network) may still land
 * later: the store sends the release of that lease right behind it on the same connection and
 * waits for Redis to answer it, so Redis runs the two in order and the late claim does not hold
 * the delivery; the receiver answers the delivery 500 meanwhile, and the service's retry runs the
 * handler at any instance. Whatever becomes of that release (a restart, a failover), the late
 * claim is never renewed and runs out after `claimTtlMs`.
 *
 * @example
 * ```ts
 * const receiver = createWebhookReceiver({ tokens, duplicateStore: createRedisDuplicateStore({ redis }) });
 * ```
 */
export function createRedisDuplicateStore(options: RedisDuplicateStoreOptions): RedisDuplicateStore {
  if (!options || typeof options !== 'object')
    throw new TypeError('createRedisDuplicateStore expects { redis }');
  const keyPrefix = options.keyPrefix ?? 'restaurant-partner-sdk:webhook:';
  if (typeof keyPrefix !== 'string') throw new TypeError('keyPrefix must be a string');
  const ttlMs = Math.ceil(positiveOption(options.ttlMs, 'ttlMs', 7 * 24 * 60 * 60 * 1000));
  const claimTtlMs = Math.ceil(positiveOption(options.claimTtlMs, 'claimTtlMs', DEFAULT_CLAIM_TTL_MS));
  if (claimTtlMs < MIN_CLAIM_TTL_MS)
    throw new RangeError(
      `claimTtlMs must be at least ${MIN_CLAIM_TTL_MS} ms (it is renewed every third of it)`,
    );
  const runner = createScriptRunner(
    options.redis,
    positiveOption(options.commandTimeoutMs, 'commandTimeoutMs', 1000),
    () => undefined,
  );
  const patientRunner = createScriptRunner(options.redis, RELEASE_BEHIND_TIMEOUT_MS, () => undefined);
  const redisKey = (key: string) => `${keyPrefix}${key}`;
  return {
    claimTtlMs,
    renewsClaims: true,
    async claim(key) {
      const token = `lease:${crypto.randomUUID()}`;
      let answer: unknown;
      try {
        answer = await runner.run(CLAIM, [redisKey(key)], [token, claimTtlMs]);
      } catch (error) {
        // The claim may still be queued (client side or in a paused server) and land later. Its
        // release goes behind it on the same connection, so Redis runs it next, whenever that is.
        patientRunner.run(RELEASE_LEASE, [redisKey(key)], [token]).catch(() => undefined);
        throw error;
      }
      const status = Number(answer);
      if (status === 2) return { status: 'processed' };
      if (status !== 1) return { status: 'busy' };
      return {
        status: 'claimed',
        renew: async () => Number(await runner.run(RENEW, [redisKey(key)], [token, claimTtlMs])) === 1,
        complete: async () => {
          await runner.run(COMPLETE, [redisKey(key)], [token, ttlMs]);
        },
        release: async () => {
          await runner.run(RELEASE_LEASE, [redisKey(key)], [token]);
        },
      };
    },
    async has(key) {
      return Number(await runner.run(IS_PROCESSED, [redisKey(key)], [])) === 1;
    },
    async add(key) {
      await runner.run(COMPLETE, [redisKey(key)], ['', ttlMs]);
    },
  };
}
