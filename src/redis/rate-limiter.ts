/**
 * One rate budget for a partner across every process and host that uses the same Redis.
 *
 * The budget is a row of slots one spacing apart, timed by the Redis server's clock, and a queue
 * in Redis decides who gets each: every process with calls waiting holds one place in it
 * (interactive calls' places before background ones, each in arrival order), so processes take
 * turns instead of racing, and a guest's booking in one process goes before a sync job in another.
 * The head of the queue reserves the next slot as soon as the slot before it has come; at its slot
 * it sends once Redis says the request before it was answered a whole interval ago, so a request
 * held up in its process (a busy host) never lets the next one crowd it at the service. Each
 * process keeps its own line of waiting calls; only its head is in Redis.
 *
 * Since slots go in queue order, each process knows from Redis's last answer which slots would be
 * its own. When Redis stops answering (paused, down, restarting), every process sends on its own
 * in every other of those slots: no two meet, and a whole interval lies between them. When Redis
 * is back, processes keep to those slots until every one of them has found Redis again, then the
 * queue takes over in the order they were in. A command Redis runs after its caller gave up on it
 * changes nothing.
 * @module
 */
import { consoleLogger, type Logger } from '../logger.js';
import type { RateLimiter, Priority } from '../transport/rate-limiter.js';
import { checkRequestsPerSecond } from '../transport/throttle.js';
import { positiveOption, type RedisClient } from './connection.js';
import { SharedBudget } from './shared-budget.js';

/** Options of {@link createRedisRateLimiter}. */
export interface RedisRateLimiterOptions {
  /** Your connected ioredis or node-redis client (to Redis, Valkey or a compatible server). */
  redis: RedisClient;
  /** The partner UUID: every limiter with the same partner, key prefix and Redis shares one budget. */
  partnerId: string;
  /** The partner's limit. Default 1 (the service's limit). */
  requestsPerSecond?: number;
  /** Prefix of the four keys the limiter uses (they expire a minute after the last call). Default `restaurant-partner-sdk:rate:`. */
  keyPrefix?: string;
  /** Most calls of this process allowed to wait at once; one more is refused with `RateLimitQueueFullError`. Default 1000. */
  maxQueue?: number;
  /** Where the one warning of a Redis outage goes (and a note when it is back). Default: the console. */
  logger?: Logger;
  /** Longest wait for one Redis command before this process paces on its own. Default 500 ms. */
  commandTimeoutMs?: number;
  /**
   * This process's own limit while Redis is unreachable and it knows no slot of its own (it never
   * reached Redis, or the outage has lasted ten tries at Redis): a conservative share of the
   * budget, since the other processes fall back too. Default a quarter of `requestsPerSecond`.
   */
  fallbackRequestsPerSecond?: number;
  /** How often to try Redis again while it is unreachable. Default 1000 ms. */
  retryRedisAfterMs?: number;
}

/** A {@link RateLimiter} whose budget lives in Redis. */
export interface RedisRateLimiter extends RateLimiter.Paced {
  /** Asks Redis: how long a call of this priority asking now would wait for its slot, in milliseconds. */
  estimateWaitMs(priority?: Priority): Promise<number>;
  /** `true` while grants come from the shared budget in Redis; `false` while Redis is unreachable and this process paces alone. */
  readonly shared: boolean;
}

/**
 * Creates a limiter that shares the partner's budget through Redis. Pass it to every
 * `PartnerClient` of the partner, in every process: together they stay within the limit.
 *
 * Each grant comes with a slot: report the request's end on it (`slot.end('answered')`), as
 * `PartnerClient` does. The next request of the budget goes a whole interval after that report;
 * a grant never reported holds the next one up to one and a half intervals.
 *
 * When Redis is unreachable (down, restarting, too slow), calls keep going: this process paces
 * alone, at half the limit in the slots the queue would have given it (or at
 * `fallbackRequestsPerSecond` when it knows none), logs one warning, and rejoins the shared budget
 * as soon as Redis answers again. No call waits on Redis longer than `commandTimeoutMs`, nor past
 * its own signal.
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * import { createRedisRateLimiter } from 'restaurant-partner-sdk/redis';
 *
 * const redis = new Redis(process.env.REDIS_URL);
 * const client = new PartnerClient({ ...credentials, rateLimit: createRedisRateLimiter({ redis, partnerId }) });
 * ```
 */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RedisRateLimiter {
  if (!options || typeof options !== 'object')
    throw new TypeError('createRedisRateLimiter expects { redis, partnerId }');
  const { partnerId } = options;
  if (typeof partnerId !== 'string' || partnerId === '')
    throw new TypeError('partnerId must be a non-empty string');
  const requestsPerSecond = options.requestsPerSecond ?? 1;
  checkRequestsPerSecond(requestsPerSecond);
  const maxQueue = options.maxQueue ?? 1000;
  if (!(Number.isInteger(maxQueue) && maxQueue >= 1))
    throw new RangeError('maxQueue must be an integer >= 1');
  const keyPrefix = options.keyPrefix ?? 'restaurant-partner-sdk:rate:';
  if (typeof keyPrefix !== 'string') throw new TypeError('keyPrefix must be a string');
  const commandTimeoutMs = positiveOption(options.commandTimeoutMs, 'commandTimeoutMs', 500);
  const fallbackRequestsPerSecond = positiveOption(
    options.fallbackRequestsPerSecond,
    'fallbackRequestsPerSecond',
    requestsPerSecond / 4,
  );
  const retryRedisAfterMs = positiveOption(options.retryRedisAfterMs, 'retryRedisAfterMs', 1000);
  return new SharedBudget({
    redis: options.redis,
    partnerId,
    requestsPerSecond,
    maxQueue,
    keyPrefix,
    commandTimeoutMs,
    fallbackRequestsPerSecond,
    retryRedisAfterMs,
    logger: options.logger ?? consoleLogger,
  });
}
