/**
 * One rate budget for a partner across every process and host that uses the same Redis.
 *
 * - **A queue in Redis.** Every waiting call of every process holds a ticket in one of two sorted
 *   sets (interactive, background), in arrival order. Only the call at the head is granted, so
 *   grants go in arrival order across processes and no process starves; a background ticket is
 *   served only when no interactive one waits anywhere.
 * - **One script per turn**, timed by the Redis server's clock (`TIME`), so hosts whose clocks
 *   disagree still agree. It adds and removes this process's tickets, drops the tickets of
 *   processes that stopped (their liveness lapsed), grants the head when it is this process's and
 *   its slot is near, and tells everyone else when to ask again. A grant is made a little ahead of
 *   its slot and the process waits out the rest locally, so the next grant never waits for a
 *   round trip: short windows keep their throughput.
 * - **Calm through faults.** When Redis does not answer (paused, down, restarting), each process
 *   paces alone on the grid it last knew: its first grant a full spacing, plus the time it takes
 *   to notice, after the last grant it knew of, then only in its own turns among the processes
 *   that were alive (so the processes together keep the partner's rate, without colliding). When
 *   Redis answers again, a rejoin window lets every process notice before the shared queue grants
 *   again.
 * @module
 */
import { consoleLogger, type Logger } from '../logger.js';
import { checkPriority, type AcquireOptions, type PacedRateLimiter, type Priority } from '../transport/rate-limiter.js';
import { tooLong, WaitingLine, type Waiter } from '../transport/waiting-line.js';
import { checkRequestsPerSecond, grantSpacingMs, idleExtraMs, prepareFirstRequest, RateLimitQueueFullError } from '../transport/throttle.js';
import { createScriptRunner, luaScript, positiveOption, type RedisClient } from './connection.js';

/** Options of {@link createRedisRateLimiter}. */
export interface RedisRateLimiterOptions {
  /** Your connected ioredis or node-redis client (to Redis, Valkey or a compatible server). */
  redis: RedisClient;
  /** The partner UUID: every limiter with the same partner, key prefix and Redis shares one budget. */
  partnerId: string;
  /** The partner's limit. Default 1 (the service's limit). */
  requestsPerSecond?: number;
  /** Prefix of the keys the limiter uses. Default `restaurant-partner-sdk:rate:`. */
  keyPrefix?: string;
  /** Most calls of this process allowed to wait at once; one more is refused with `RateLimitQueueFullError`. Default 1000. */
  maxQueue?: number;
  /** Where the one warning of a Redis outage goes (and a note when it is back). Default: the console. */
  logger?: Logger;
  /** Longest wait for one Redis command before this process paces on its own. Default 500 ms. */
  commandTimeoutMs?: number;
  /**
   * A cap on this process's own rate while Redis is unreachable. Default: none beyond its turns
   * among the processes that were alive (its share of `requestsPerSecond`).
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

// KEYS: 1 next slot, 2 pause flag, 3 interactive queue, 4 background queue, 5 live processes,
// 6 ticket sequence, 7 rejoin window.
// ARGV: 1 spacing, 2 extra after a fresh or idle grant, 3 '1' when this process has had no grant
// yet, 4 interval, 5 process id, 6 liveness lease (ms), 7 how far ahead a slot may be granted,
// 8 this process's first ticket ('' for none), 9 '1' when this process is back from an outage,
// 10 ms since this process's last grant made alone (-1: none), 11 the rejoin window (ms),
// 12 number of tickets to add, then for each: ticket, 'i' or 'b', the most it may wait (-1: no
// limit); then the tickets to remove.
// Answers { granted ticket or '', ms (the grant's delay, or when to ask again), the next slot and
// now (Redis clock), live processes, this process's rank among them, rejoin window left, then
// pairs of refused ticket and estimated wait, then 'missing' when this process's first ticket is
// not queued }.
const TURN = luaScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local spacing = tonumber(ARGV[1])
local lease = tonumber(ARGV[6])
local me = ARGV[5]
local keep = math.ceil(lease * 20)
redis.call('ZADD', KEYS[5], now, me)
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now - lease)
redis.call('PEXPIRE', KEYS[5], keep)
local nextAt = tonumber(redis.call('GET', KEYS[1]) or '0')
local ownLast = tonumber(ARGV[10])
if ownLast >= 0 and now - ownLast + spacing > nextAt then
  -- A grant this process made alone (during an outage): nobody goes before a spacing after it.
  nextAt = now - ownLast + spacing
  redis.call('SET', KEYS[1], string.format('%.3f', nextAt), 'PX', math.ceil(nextAt - now + spacing))
end
local rejoin = redis.call('PTTL', KEYS[7])
if ARGV[9] == '1' and rejoin <= 0 then
  rejoin = math.ceil(tonumber(ARGV[11]))
  redis.call('SET', KEYS[7], '1', 'PX', rejoin)
end
local adds = tonumber(ARGV[12])
local refused = {}
local paused = redis.call('PTTL', KEYS[2])
for i = 0, adds - 1 do
  local ticket = ARGV[13 + i * 3]
  local kind = ARGV[14 + i * 3]
  local most = tonumber(ARGV[15 + i * 3])
  local ahead = redis.call('ZCARD', KEYS[3])
  if kind == 'b' then ahead = ahead + redis.call('ZCARD', KEYS[4]) end
  local wait = math.max(0, nextAt - now, paused, rejoin) + ahead * spacing
  if most >= 0 and wait > most then
    refused[#refused + 1] = ticket
    refused[#refused + 1] = tostring(math.ceil(wait))
  else
    local seq = redis.call('INCR', KEYS[6])
    redis.call('ZADD', kind == 'i' and KEYS[3] or KEYS[4], seq, ticket)
  end
end
for i = 13 + adds * 3, #ARGV do
  redis.call('ZREM', KEYS[3], ARGV[i])
  redis.call('ZREM', KEYS[4], ARGV[i])
end
redis.call('PEXPIRE', KEYS[3], keep)
redis.call('PEXPIRE', KEYS[4], keep)
redis.call('PEXPIRE', KEYS[6], keep)
-- The tickets of processes that stopped go, so that nobody waits behind them.
local head
for _ = 1, 100 do
  local queue = KEYS[3]
  head = redis.call('ZRANGE', queue, 0, 0)[1]
  if not head then
    queue = KEYS[4]
    head = redis.call('ZRANGE', queue, 0, 0)[1]
  end
  if not head then break end
  local owner = string.match(head, '^([^/]*)/')
  if owner and redis.call('ZSCORE', KEYS[5], owner) then break end
  redis.call('ZREM', queue, head)
  head = nil
end
local live = redis.call('ZRANGE', KEYS[5], 0, -1)
table.sort(live)
local rank = 0
for index, name in ipairs(live) do
  if name == me then rank = index - 1 end
end
local function answer(granted, ms, missing)
  local result = { granted, tostring(math.ceil(ms)), string.format('%.3f', nextAt), string.format('%.3f', now), tostring(#live), tostring(rank), tostring(math.max(0, rejoin)) }
  for _, value in ipairs(refused) do result[#result + 1] = value end
  if missing then result[#result + 1] = 'missing' end
  return result
end
if paused > 0 then return answer('', paused) end
if rejoin > 0 then return answer('', rejoin) end
local mine = ARGV[8]
if mine == '' then return answer('', 0) end
if head == mine then
  local delay = nextAt - now
  if delay <= tonumber(ARGV[7]) then
    local grantAt = math.max(now, nextAt)
    local late = now - nextAt
    local following
    if ARGV[3] == '1' or late > spacing then
      following = grantAt + spacing + tonumber(ARGV[2])
    elseif late <= spacing - tonumber(ARGV[4]) then
      following = nextAt + spacing
    else
      following = now + spacing
    end
    redis.call('ZREM', KEYS[3], head)
    redis.call('ZREM', KEYS[4], head)
    redis.call('SET', KEYS[1], string.format('%.3f', following), 'PX', math.ceil(following - now + spacing))
    nextAt = following
    return answer(head, grantAt - now)
  end
  return answer('', delay - tonumber(ARGV[7]) / 2)
end
local place = redis.call('ZRANK', KEYS[3], mine)
if not place then
  place = redis.call('ZRANK', KEYS[4], mine)
  if place then place = place + redis.call('ZCARD', KEYS[3]) end
end
if not place then return answer('', 0, true) end
return answer('', math.max(0, nextAt - now - tonumber(ARGV[7]) / 2) + place * spacing)
`);

// How long until the partner's next slot opens, and how many calls of each priority wait.
// KEYS: the next slot, the pause flag, the interactive queue, the background queue.
const LOOK = luaScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local nextAt = tonumber(redis.call('GET', KEYS[1]) or '0')
return { math.max(0, math.ceil(nextAt - now), redis.call('PTTL', KEYS[2])), redis.call('ZCARD', KEYS[3]), redis.call('ZCARD', KEYS[4]) }
`);

// KEYS[1] the pause flag; ARGV[1] the pause in ms. Never shortens a longer pause already set.
const PAUSE = luaScript(`
local ms = tonumber(ARGV[1])
if redis.call('PTTL', KEYS[1]) < ms then redis.call('SET', KEYS[1], '1', 'PX', ms) end
return 1
`);

let processCounter = 0;
const processId = () => `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}-${(processCounter += 1)}`;

/**
 * Creates a limiter that shares the partner's budget through Redis. Pass it to every
 * `PartnerClient` of the partner, in every process: together they stay within the limit, in
 * arrival order across processes, interactive calls first.
 *
 * When Redis is unreachable (paused, down, restarting), calls keep going: each process paces
 * alone in its own turns, logs one warning, and rejoins the shared budget when Redis is back. No
 * call waits on Redis longer than `commandTimeoutMs`, nor past its own signal.
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
  if (!options || typeof options !== 'object') throw new TypeError('createRedisRateLimiter expects { redis, partnerId }');
  const { partnerId } = options;
  if (typeof partnerId !== 'string' || partnerId === '') throw new TypeError('partnerId must be a non-empty string');
  const requestsPerSecond = options.requestsPerSecond ?? 1;
  checkRequestsPerSecond(requestsPerSecond);
  const maxQueue = options.maxQueue ?? 1000;
  if (!(Number.isInteger(maxQueue) && maxQueue >= 1)) throw new RangeError('maxQueue must be an integer >= 1');
  const keyPrefix = options.keyPrefix ?? 'restaurant-partner-sdk:rate:';
  if (typeof keyPrefix !== 'string') throw new TypeError('keyPrefix must be a string');
  const commandTimeoutMs = positiveOption(options.commandTimeoutMs, 'commandTimeoutMs', 500);
  const fallbackCap = options.fallbackRequestsPerSecond === undefined ? undefined : positiveOption(options.fallbackRequestsPerSecond, 'fallbackRequestsPerSecond', 1);
  const retryRedisAfterMs = positiveOption(options.retryRedisAfterMs, 'retryRedisAfterMs', 1000);
  const logger = options.logger ?? consoleLogger;

  const interval = 1000 / requestsPerSecond;
  // Wider than one process's margin: consecutive grants go to different processes, whose requests
  // reach the service with independent delays (CPU scheduling, connection state), seen up to about
  // 30 ms apart on a busy host. 3 % of the interval, at most 30 ms: 97 % of the limit at best.
  const spacing = Math.max(grantSpacingMs(requestsPerSecond), interval + Math.min(interval * 0.03, 30));
  const idleExtra = idleExtraMs(requestsPerSecond);
  // A slot is granted up to this far ahead; the process waits out the rest on its own clock.
  const lookahead = Math.min(spacing / 2, 100);
  // A process whose liveness is older than this is gone: its tickets are dropped.
  const leaseMs = Math.max(3000, 3 * spacing, 2 * commandTimeoutMs + retryRedisAfterMs);
  // Long enough for every process to have tried Redis again after an outage.
  const rejoinMs = retryRedisAfterMs + commandTimeoutMs + spacing;
  // One hash tag, so every key lives on one slot of a Redis Cluster.
  const base = `${keyPrefix}{${partnerId}}`;
  const keys = ['next-slot', 'pause', 'interactive', 'background', 'processes', 'sequence', 'rejoin'].map((name) => `${base}:${name}`);
  const runner = createScriptRunner(options.redis, commandTimeoutMs, (error) =>
    logger.debug?.('Redis client error (handled by the rate limiter)', { message: error instanceof Error ? error.message : String(error) }),
  );
  const me = processId();

  const line = new WaitingLine();
  const tickets = new Map<Waiter, string>();
  const waiterOf = new Map<string, Waiter>();
  let toAdd = new Set<Waiter>();
  let toRemove: string[] = [];
  let ticketCounter = 0;
  let serving = false;
  let shared = true;
  let outageReported = false;
  // This process has not been granted a shared slot yet (or not since an outage).
  let freshProcess = true;
  let pausedUntil = Number.NEGATIVE_INFINITY;
  let sleeper: AbortController | undefined;
  // What the last answer told: the next slot (on the local clock and on Redis's), the live
  // processes and this one's rank among them.
  let knownNextSlotAt = Number.NEGATIVE_INFINITY;
  let knownNextSlotRedis = 0;
  let live = 1;
  let rank = 0;
  let lastOwnGrantAt = Number.NEGATIVE_INFINITY;
  // This process's own turns, during an outage and the rejoin window after it.
  let alone: { firstAt: number; anchorAt: number; anchorIndex: number; live: number; rank: number } | undefined;
  let aloneUntil = Number.NEGATIVE_INFINITY;
  let retryRedisAt = 0;

  /** A sleep that a new caller or an emptied queue cuts short (so the next turn comes at once). */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const controller = (sleeper = new AbortController());
      const timer = setTimeout(resolve, Math.max(0, ms));
      controller.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    }).finally(() => (sleeper = undefined));

  line.onEmpty = () => sleeper?.abort();
  // A caller that left without a grant: its ticket leaves the queue with the next turn.
  line.onLeave = (waiter) => {
    const ticket = tickets.get(waiter);
    if (ticket !== undefined && !toAdd.delete(waiter)) toRemove.push(ticket);
    forget(waiter);
  };

  const forget = (waiter: Waiter) => {
    const ticket = tickets.get(waiter);
    if (ticket === undefined) return;
    tickets.delete(waiter);
    waiterOf.delete(ticket);
    toAdd.delete(waiter);
  };

  const grantWaiter = (waiter: Waiter) => {
    forget(waiter);
    line.grant(waiter);
  };

  const enterOutage = (error: unknown) => {
    retryRedisAt = Date.now() + retryRedisAfterMs;
    if (shared) {
      shared = false;
      freshProcess = true;
      // This process's turns: a slot every spacing on the grid it last knew, moved on by the time
      // every process needs to notice the outage; its own are those whose index, modulo the
      // processes alive, is its rank. The first comes a full spacing after the last grant it knew.
      const shift = commandTimeoutMs + 50;
      const anchorAt = (Number.isFinite(knownNextSlotAt) ? knownNextSlotAt : Date.now()) + shift;
      alone = { firstAt: Math.max(anchorAt, lastOwnGrantAt + spacing), anchorAt, anchorIndex: Math.round(knownNextSlotRedis / spacing), live: Math.max(1, live), rank };
      aloneUntil = Number.POSITIVE_INFINITY;
    }
    if (outageReported) return;
    outageReported = true;
    logger.warn('Redis is unreachable for the shared rate limit; this process paces alone, in its own turns, until it is back', {
      partnerId,
      cause: error instanceof Error ? error.message : String(error),
    });
  };

  /** This process's first turn at or after `from`. */
  const nextTurn = (from: number): number => {
    const grid = alone!;
    const start = Math.max(from, grid.firstAt, fallbackCap ? lastOwnGrantAt + 1000 / fallbackCap : 0, lastOwnGrantAt + spacing);
    let index = Math.max(0, Math.ceil((start - grid.anchorAt) / spacing));
    while ((grid.anchorIndex + index) % grid.live !== grid.rank) index += 1;
    return grid.anchorAt + index * spacing;
  };

  /** Grants the head in this process's next turn (or returns early to try Redis again). */
  const grantAlone = async () => {
    const at = nextTurn(Date.now());
    const until = shared ? at : Math.min(at, retryRedisAt);
    if (until > Date.now()) await sleep(until - Date.now());
    if (Date.now() < at) return;
    const head = line.head();
    if (!head) return;
    lastOwnGrantAt = Date.now();
    grantWaiter(head);
    // In the rejoin window, Redis hears of it at once: the shared queue starts a spacing after it.
    if (shared) await turn();
  };

  const turn = async () => {
    if (freshProcess) await prepareFirstRequest();
    const adding = [...toAdd];
    const removing = toRemove;
    toAdd = new Set();
    toRemove = [];
    const head = line.head();
    const args: (string | number)[] = [
      spacing,
      idleExtra,
      freshProcess ? 1 : 0,
      interval,
      me,
      leaseMs,
      lookahead,
      head ? tickets.get(head)! : '',
      shared ? 0 : 1,
      alone && Number.isFinite(lastOwnGrantAt) ? Math.max(0, Date.now() - lastOwnGrantAt) : -1,
      rejoinMs,
      adding.length,
    ];
    for (const waiter of adding) {
      args.push(tickets.get(waiter)!, waiter.priority === 'interactive' ? 'i' : 'b', Number.isFinite(waiter.deadlineAt) ? Math.max(0, Math.floor(waiter.deadlineAt - Date.now())) : -1);
    }
    args.push(...removing);
    let answer: string[];
    try {
      answer = ((await runner.run(TURN, keys, args)) as unknown[]).map(String);
    } catch (error) {
      // Not sent after all, as far as we know: they go with the next turn.
      for (const waiter of adding) if (tickets.has(waiter)) toAdd.add(waiter);
      // Tickets to remove wait for the next turn only while this process has callers: otherwise
      // nothing would end the retries, and its tickets lapse with its liveness anyway.
      if (line.size > 0) toRemove.push(...removing);
      enterOutage(error);
      return;
    }
    const receivedAt = Date.now();
    const [granted, ms, nextSlot, redisNow, liveCount, myRank, rejoinLeft] = answer;
    knownNextSlotRedis = Number(nextSlot);
    knownNextSlotAt = receivedAt + (knownNextSlotRedis - Number(redisNow));
    live = Number(liveCount);
    rank = Number(myRank);
    const rest = answer.slice(7);
    if (rest.at(-1) === 'missing') {
      // Our first ticket is not queued (Redis restarted, or a command that timed out took it):
      // queue every ticket of ours again.
      rest.pop();
      for (const waiter of tickets.keys()) toAdd.add(waiter);
    }
    for (let index = 0; index + 1 < rest.length; index += 2) {
      const waiter = waiterOf.get(rest[index]!);
      if (!waiter) continue;
      toAdd.delete(waiter);
      line.refuse(waiter, tooLong(Number(rest[index + 1]), waiter.deadlineAt - receivedAt, waiter.priority));
    }
    if (!shared) {
      shared = true;
      outageReported = false;
      logger.info?.('Redis is reachable again: back on the shared rate limit', { partnerId });
      // Every ticket goes into the queue again (a restarted Redis has none).
      for (const waiter of tickets.keys()) toAdd.add(waiter);
    }
    if (Number(rejoinLeft) > 0 && alone) {
      // The rejoin window: this process keeps to its own turns until every process has noticed.
      aloneUntil = receivedAt + Number(rejoinLeft);
      return;
    }
    aloneUntil = Number.NEGATIVE_INFINITY;
    alone = undefined;
    if (granted) {
      freshProcess = false;
      // Granted a little ahead of the slot: wait out the rest here (a new caller does not cut it
      // short), counted from the answer's arrival, so never before the slot on the Redis clock.
      const delay = Number(ms);
      if (delay > 1) await new Promise((resolve) => setTimeout(resolve, delay));
      const waiter = waiterOf.get(granted);
      // If the caller left meanwhile, its slot goes to this process's next caller, or is lost.
      const target = waiter && line.has(waiter) ? waiter : line.head();
      if (!target) return;
      if (target !== waiter && !toAdd.delete(target)) toRemove.push(tickets.get(target)!);
      grantWaiter(target);
      return;
    }
    // Asked again at least every third of the lease, so this process's tickets stay alive.
    if (line.size > 0 && toAdd.size === 0) await sleep(Math.min(Number(ms), leaseMs / 3));
  };

  const serve = async () => {
    if (serving) return;
    serving = true;
    try {
      while (line.size > 0 || toRemove.length > 0) {
        const now = Date.now();
        if (line.size > 0 && now < pausedUntil) await sleep(pausedUntil - now);
        else if (line.size > 0 && alone && (shared ? aloneUntil > now : now < retryRedisAt)) await grantAlone();
        else await turn();
      }
    } finally {
      serving = false;
    }
  };

  return {
    requestsPerSecond,
    acquire(acquireOptions: AcquireOptions = {}): Promise<void> {
      const { signal } = acquireOptions;
      if (signal?.aborted) return Promise.reject(signal.reason);
      const priority = checkPriority(acquireOptions.priority);
      if (line.size >= maxQueue) return Promise.reject(new RateLimitQueueFullError(maxQueue));
      return line.join({ ...acquireOptions, priority }, Date.now(), (waiter) => {
        const ticket = `${me}/${(ticketCounter += 1).toString(36)}`;
        tickets.set(waiter, ticket);
        waiterOf.set(ticket, waiter);
        toAdd.add(waiter);
        // A new ticket goes to Redis at once (its place is its arrival): a sleeping turn wakes.
        sleeper?.abort();
        void serve();
      });
    },
    async pause(ms: number): Promise<void> {
      if (!(ms > 0)) return;
      pausedUntil = Math.max(pausedUntil, Date.now() + ms);
      if (!shared) return;
      // Everyone else waits too; a failure here shows up (and is reported) at the next turn.
      await runner.run(PAUSE, [keys[1]!], [Math.ceil(ms)]).catch(() => undefined);
    },
    get queueDepth(): number {
      return line.size;
    },
    async estimateWaitMs(priority?: Priority): Promise<number> {
      const interactive = checkPriority(priority) === 'interactive';
      try {
        const [nextSlotInMs, waitingInteractive, waitingBackground] = ((await runner.run(LOOK, keys.slice(0, 4), [])) as unknown[]).map(Number);
        return Math.max(nextSlotInMs!, pausedUntil - Date.now(), 0) + (interactive ? waitingInteractive! : waitingInteractive! + waitingBackground!) * spacing;
      } catch {
        // Redis unreachable: this process's own turns.
        const ahead = line.ahead(interactive ? 'interactive' : 'background');
        return Math.max(0, (alone ? nextTurn(Date.now()) : Date.now()) - Date.now()) + ahead * spacing * (alone?.live ?? live);
      }
    },
    get shared(): boolean {
      return shared;
    },
  };
}
