/**
 * One rate budget for a partner across every process and host that uses the same Redis. Each
 * grant is one atomic Lua script timed by the Redis server's clock (`TIME`), so hosts whose
 * clocks disagree still agree on the budget. The script keeps the partner's next free slot (the
 * generic cell rate algorithm with a burst of one) and a pause flag that any process sets on a
 * 429. Each process keeps its own FIFO of waiting calls; only its head talks to Redis, and only a
 * call that is granted takes a slot, so a cancelled call, or a killed process, costs nobody a slot.
 * @module
 */
import { consoleLogger, type Logger } from '../logger.js';
import {
  checkPriority,
  type AcquireOptions,
  type PacedRateLimiter,
  type Priority,
} from '../transport/rate-limiter.js';
import { WaitingLine } from '../transport/waiting-line.js';
import {
  checkRequestsPerSecond,
  createRateLimiter,
  grantSpacingMs,
  idleExtraMs,
  prepareFirstRequest,
  RateLimitQueueFullError,
} from '../transport/throttle.js';
import { createScriptRunner, luaScript, positiveOption, type RedisClient } from './connection.js';

/** Options of {@link createRedisRateLimiter}. */
export interface RedisRateLimiterOptions {
  /** Your connected ioredis or node-redis client (to Redis, Valkey or a compatible server). */
  redis: RedisClient;
  /** The partner UUID: every limiter with the same partner, key prefix and Redis shares one budget. */
  partnerId: string;
  /** The partner's limit. Default 1 (the service's limit). */
  requestsPerSecond?: number;
  /** Prefix of the two keys the limiter uses. Default `restaurant-partner-sdk:rate:`. */
  keyPrefix?: string;
  /** Most calls of this process allowed to wait at once; one more is refused with `RateLimitQueueFullError`. Default 1000. */
  maxQueue?: number;
  /** Where the one warning of a Redis outage goes (and a note when it is back). Default: the console. */
  logger?: Logger;
  /** Longest wait for one Redis command before this process paces on its own. Default 500 ms. */
  commandTimeoutMs?: number;
  /**
   * This process's own limit while Redis is unreachable: a conservative share of the budget,
   * since the other processes fall back too. Default a quarter of `requestsPerSecond`.
   */
  fallbackRequestsPerSecond?: number;
  /** How often to try Redis again while it is unreachable. Default 1000 ms. */
  retryRedisAfterMs?: number;
}

/** A {@link RateLimiter} whose budget lives in Redis. */
export interface RedisRateLimiter extends PacedRateLimiter {
  /** Asks Redis: how long a call of this priority asking now would wait for its slot, in milliseconds. */
  estimateWaitMs(priority?: Priority): Promise<number>;
  /** `true` while grants come from the shared budget in Redis; `false` while Redis is unreachable and this process paces alone. */
  readonly shared: boolean;
}

// KEYS[1] the partner's next free slot (epoch ms on the Redis clock), KEYS[2] its pause flag.
// ARGV: spacing between grants, extra wait after a fresh or idle grant, '1' when the caller is a
// process asking for its first grant, and the bare interval (the margin is spacing - interval).
// Answers 0 when the slot is granted, otherwise how many milliseconds to wait before asking again.
const GRANT = luaScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local paused = redis.call('PTTL', KEYS[2])
if paused > 0 then return paused end
local spacing = tonumber(ARGV[1])
local extra = tonumber(ARGV[2])
local nextAt = tonumber(redis.call('GET', KEYS[1]) or '0')
if now < nextAt then return math.max(1, math.ceil(nextAt - now)) end
local late = now - nextAt
local following
if ARGV[3] == '1' or late > spacing then
  -- A process's first request, or the first after an idle spell, reaches the service later after
  -- its grant (connection set-up) than the next one will: the next grant keeps an extra margin.
  following = now + spacing + extra
elseif late <= spacing - tonumber(ARGV[4]) then
  -- Asked a little after the slot opened: anchor on the slot, so polling delays do not add up.
  following = nextAt + spacing
else
  following = now + spacing
end
redis.call('SET', KEYS[1], string.format('%.3f', following), 'PX', math.ceil(following - now + spacing))
return 0
`);

// Sent right after a grant was handed over (the request is on its way): the next slot is at least
// one spacing after now. A process that the machine left without CPU between its grant and its
// request (seen up to 100 ms on a busy host) thus pushes the next grant back instead of letting
// its late request land less than an interval before the next process's one.
// KEYS[1] the next free slot; ARGV[1] the spacing.
const SENT = luaScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local following = now + tonumber(ARGV[1])
local nextAt = tonumber(redis.call('GET', KEYS[1]) or '0')
if following > nextAt then
  redis.call('SET', KEYS[1], string.format('%.3f', following), 'PX', math.ceil(2 * tonumber(ARGV[1])))
end
return 1
`);

// How long until the partner's next slot opens (0 when one is free). KEYS: the next slot, the pause flag.
const NEXT_SLOT = luaScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local nextAt = tonumber(redis.call('GET', KEYS[1]) or '0')
return math.max(0, math.ceil(nextAt - now), redis.call('PTTL', KEYS[2]))
`);

// KEYS[1] the pause flag; ARGV[1] the pause in ms. Never shortens a longer pause already set.
const PAUSE = luaScript(`
local ms = tonumber(ARGV[1])
if redis.call('PTTL', KEYS[1]) < ms then redis.call('SET', KEYS[1], '1', 'PX', ms) end
return 1
`);

/**
 * Creates a limiter that shares the partner's budget through Redis. Pass it to every
 * `PartnerClient` of the partner, in every process: together they stay within the limit.
 *
 * When Redis is unreachable (down, restarting, too slow), calls keep going: this process paces
 * alone at `fallbackRequestsPerSecond`, logs one warning, and rejoins the shared budget as soon
 * as Redis answers again. No call waits on Redis longer than `commandTimeoutMs`, nor past its own
 * signal.
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
  const logger = options.logger ?? consoleLogger;

  const interval = 1000 / requestsPerSecond;
  // Wider than one process's margin: consecutive grants go to different processes, whose requests
  // reach the service with independent delays (CPU scheduling, connection state), seen up to about
  // 30 ms apart on a busy host. 3 % of the interval, at most 30 ms: 97 % of the limit at best.
  const spacing = Math.max(grantSpacingMs(requestsPerSecond), interval + Math.min(interval * 0.03, 30));
  const idleExtra = idleExtraMs(requestsPerSecond);
  // One hash tag, so both keys live on one slot of a Redis Cluster.
  const base = `${keyPrefix}{${partnerId}}`;
  const keys = [`${base}:next-slot`, `${base}:pause`];
  const runner = createScriptRunner(options.redis, commandTimeoutMs, (error) =>
    logger.debug?.('Redis client error (handled by the rate limiter)', {
      message: error instanceof Error ? error.message : String(error),
    }),
  );
  const local = createRateLimiter({ requestsPerSecond: fallbackRequestsPerSecond, maxQueue });

  const line = new WaitingLine();
  let serving = false;
  let shared = true;
  let outageReported = false;
  // This process has not been granted a shared slot yet (or not since an outage).
  let freshProcess = true;
  let retryRedisAt = 0;
  let pausedUntil = Number.NEGATIVE_INFINITY;
  let sleeper: AbortController | undefined;

  line.onEmpty = () => sleeper?.abort();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      sleeper = new AbortController();
      const { signal } = sleeper;
      const timer = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    }).finally(() => (sleeper = undefined));

  const grantHead = () => line.grantHead() !== undefined;

  const enterOutage = (error: unknown) => {
    retryRedisAt = Date.now() + retryRedisAfterMs;
    freshProcess = true;
    if (shared) {
      shared = false;
      // The command that timed out may still have taken a slot in Redis, and a slow moment often
      // passes by the next try: no local grant before one shared spacing and one retry have passed.
      local.pause(Math.max(spacing, retryRedisAfterMs));
    }
    if (outageReported) return;
    outageReported = true;
    logger.warn(
      `Redis is unreachable for the shared rate limit; this process paces alone at ${fallbackRequestsPerSecond} request(s) per second until it is back`,
      {
        partnerId,
        cause: error instanceof Error ? error.message : String(error),
      },
    );
  };

  const serveLocally = async () => {
    const head = line.head()!;
    const stopAt = new AbortController();
    // Stop waiting locally when the head leaves or when it is time to try Redis again.
    const onLeave = () => stopAt.abort();
    head.signal?.addEventListener('abort', onLeave, { once: true });
    const timer = setTimeout(onLeave, Math.max(0, retryRedisAt - Date.now()));
    try {
      await local.acquire({ signal: stopAt.signal });
      grantHead();
    } catch {
      // The head left, or Redis is worth trying again: the loop decides.
    } finally {
      clearTimeout(timer);
      head.signal?.removeEventListener('abort', onLeave);
    }
  };

  const serveShared = async () => {
    let answer: number;
    if (freshProcess) await prepareFirstRequest();
    try {
      answer = Number(await runner.run(GRANT, keys, [spacing, idleExtra, freshProcess ? 1 : 0, interval]));
    } catch (error) {
      enterOutage(error);
      return;
    }
    if (!shared) {
      shared = true;
      outageReported = false;
      logger.info?.('Redis is reachable again: back on the shared rate limit', { partnerId });
    }
    if (answer === 0) {
      // Granted: the slot goes to whoever heads the queue now (if the head left meanwhile, one slot is lost).
      if (grantHead()) freshProcess = false;
      // Once the caller has had its turn to send (its request is written in this turn of the event
      // loop), tell Redis when that was; a failure here is found by the next grant.
      setTimeout(() => void runner.run(SENT, [keys[0]!], [spacing]).catch(() => undefined), 0);
      return;
    }
    // Nobody left (the last waiter gave up during the call): no timer outlives the queue.
    if (line.size > 0) await sleep(answer);
  };

  const serve = async () => {
    if (serving) return;
    serving = true;
    try {
      while (line.size > 0) {
        const now = Date.now();
        if (now < pausedUntil) await sleep(pausedUntil - now);
        else if (!shared && now < retryRedisAt) await serveLocally();
        else await serveShared();
      }
    } finally {
      serving = false;
    }
  };

  return {
    acquire(acquireOptions: AcquireOptions = {}): Promise<void> {
      const { signal } = acquireOptions;
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (line.size >= maxQueue) return Promise.reject(new RateLimitQueueFullError(maxQueue));
      return line.join(acquireOptions, Date.now(), () => void serve());
    },
    async pause(ms: number): Promise<void> {
      if (!(ms > 0)) return;
      pausedUntil = Math.max(pausedUntil, Date.now() + ms);
      local.pause(ms);
      if (!shared) return;
      // Everyone else waits too; a failure here shows up (and is reported) at the next grant.
      await runner.run(PAUSE, [keys[1]!], [Math.ceil(ms)]).catch(() => undefined);
    },
    get queueDepth(): number {
      return line.size;
    },
    requestsPerSecond,
    async estimateWaitMs(priority?: Priority): Promise<number> {
      const ahead = line.ahead(checkPriority(priority));
      let nextSlotInMs = Math.max(0, pausedUntil - Date.now());
      try {
        nextSlotInMs = Math.max(nextSlotInMs, Number(await runner.run(NEXT_SLOT, keys, [])));
      } catch {
        // Redis unreachable: this process paces alone.
        return local.estimateWaitMs(priority);
      }
      return nextSlotInMs + ahead * spacing;
    },
    get shared(): boolean {
      return shared;
    },
  };
}
