/**
 * One rate budget for a partner across every process and host that uses the same Redis.
 *
 * The budget is a row of slots one spacing apart, timed by the Redis server's clock, and a queue
 * in Redis decides who gets each: every process with calls waiting holds one place in it
 * (interactive calls' places before background ones, each in arrival order), so processes take
 * turns instead of racing, and a guest's booking in one process goes before a sync job in another.
 * The head of the queue reserves the next slot as soon as the slot before it has come, and sends
 * at its slot's time. Each process keeps its own line of waiting calls; only its head is in Redis.
 *
 * Since slots go in queue order, each process knows from Redis's last answer which slots would be
 * its own. When Redis stops answering (paused, down, restarting), every process sends in those
 * slots on its own: no two meet, and the rate stays whole. When Redis is back, processes keep to
 * those slots until every one of them has found Redis again, then the queue takes over in the
 * order they were in. A command Redis runs after its caller gave up on it changes nothing.
 * @module
 */
import { randomUUID } from 'node:crypto';
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
  serviceWindow,
} from '../transport/throttle.js';
import { createScriptRunner, positiveOption, type RedisClient } from './connection.js';
import { LATE, PAUSE, PEEK, TAKE } from './rate-limiter-scripts.js';

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
  // Wider than one process's margin: consecutive slots go to different processes, whose requests
  // reach the service with independent delays (CPU scheduling, connection state), seen up to about
  // 30 ms apart on a busy host. 3 % of the interval, at most 30 ms: 97 % of the limit at best.
  const spacing = Math.max(grantSpacingMs(requestsPerSecond), interval + Math.min(interval * 0.03, 30));
  // How late a request may still leave in its slot: most of the margin the service's window allows.
  const idleExtra = idleExtraMs(requestsPerSecond);
  // The head reserves its slot this long after the slot before it has come: time for that slot's
  // process to say its request left late, so this slot moves back before anyone is told it.
  const reserveAfter = Math.min(spacing / 4, 150);
  const tolerance = Math.max(1, 0.5 * (spacing - interval) * serviceWindow(requestsPerSecond).count);
  // After an outage, processes keep pacing on the lattice until every one of them has had time to
  // find Redis again (each asks every retryRedisAfterMs, each ask bounded by commandTimeoutMs).
  const recoveryMs = 2 * retryRedisAfterMs + 2 * commandTimeoutMs + spacing;
  const keyTtlMs = Math.ceil(Math.max(5000, 4 * spacing));
  // One hash tag, so the keys live on one slot of a Redis Cluster.
  const base = `${keyPrefix}{${partnerId}}`;
  const keys = [`${base}:lattice`, `${base}:interactive`, `${base}:background`, `${base}:pause`];
  const processId = randomUUID();
  const runner = createScriptRunner(options.redis, commandTimeoutMs, (error) =>
    logger.debug?.('Redis client error (handled by the rate limiter)', {
      message: error instanceof Error ? error.message : String(error),
    }),
  );
  // Paces this process when it knows no slot of its own (Redis never answered, or it had no place in the queue).
  const local = createRateLimiter({ requestsPerSecond: fallbackRequestsPerSecond, maxQueue });

  const line = new WaitingLine();
  const clock = new RedisClock();
  let serving = false;
  let mode: 'shared' | 'alone' | 'recovering' = 'shared';
  let outageReported = false;
  let freshProcess = true;
  let retryRedisAt = 0;
  let pausedUntil = Number.NEGATIVE_INFINITY;
  // This process's slots on the lattice, from Redis's last answer (local clock): what it uses when Redis stops answering.
  let ownSlots: { anchor: number; next: number; cycle: number } | undefined;
  // A slot Redis reserved for this process (its index, and when it is on the local clock).
  let reservation: { index: number; at: number } | undefined;
  // During a recovery: the first slot that belongs to the queue again, and when that is (local clock).
  let switchIndex = Number.POSITIVE_INFINITY;
  let switchAt = 0;
  let sleeper: { controller: AbortController; forTurn: boolean } | undefined;

  line.onEmpty = () => sleeper?.controller.abort();

  const sleep = (ms: number, forTurn = false) =>
    new Promise<void>((resolve) => {
      const controller = new AbortController();
      sleeper = { controller, forTurn };
      const timer = setTimeout(resolve, Math.max(0, ms));
      controller.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    }).finally(() => (sleeper = undefined));

  const slotAt = (slots: { anchor: number; next: number }) => slots.anchor + slots.next * spacing;

  const grantHead = () => {
    line.grantHead();
    freshProcess = false;
  };

  const backInQueue = () => {
    if (mode === 'shared') return;
    mode = 'shared';
    outageReported = false;
    logger.info?.('Redis is reachable again: back on the shared rate limit', { partnerId });
  };

  const enterOutage = (error: unknown) => {
    retryRedisAt = Date.now() + retryRedisAfterMs;
    if (mode === 'shared' && !ownSlots) {
      // No slot of its own known: a command that timed out may still have taken one in Redis, and
      // a slow moment often passes by the next try; no local grant before one spacing and one retry.
      local.pause(Math.max(spacing, retryRedisAfterMs));
    }
    mode = 'alone';
    if (outageReported) return;
    outageReported = true;
    logger.warn(`Redis is unreachable for the shared rate limit; this process paces alone until it is back`, {
      partnerId,
      cause: error instanceof Error ? error.message : String(error),
    });
  };

  /** Grants through the local limiter until the head leaves or it is time to try Redis again. */
  const serveLocally = async () => {
    const head = line.head()!;
    const stopAt = new AbortController();
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

  /**
   * Without Redis: sends in this process's own slots of the lattice, the ones the queue would
   * have given it, so processes pacing alone never meet and the rate stays whole.
   */
  const paceAlone = async () => {
    const now = Date.now();
    if (!ownSlots) {
      if (now >= retryRedisAt) await take();
      else if (mode === 'recovering') await sleep(retryRedisAt - now);
      else await serveLocally();
      return;
    }
    while (slotAt(ownSlots) < now - tolerance) ownSlots.next += ownSlots.cycle;
    const at = slotAt(ownSlots);
    // Asking Redis can take up to commandTimeoutMs: ask when that cannot make this process miss
    // its slot (unless its slots come so often that it never could).
    const askFits = at - now > commandTimeoutMs + 50 || ownSlots.cycle * spacing < commandTimeoutMs + 100;
    if (ownSlots.next >= switchIndex || (now >= retryRedisAt && askFits)) {
      if (now >= retryRedisAt) await take();
      else await sleep(retryRedisAt - now);
      return;
    }
    const wakeForRedis = retryRedisAt < at - commandTimeoutMs - 50;
    await sleep((wakeForRedis ? retryRedisAt : at) - now);
    if (wakeForRedis || line.size === 0) return;
    const granted = Date.now();
    if (granted - at <= tolerance && granted >= pausedUntil) grantHead();
    ownSlots.next += ownSlots.cycle;
  };

  /** Waits for the reserved slot, then grants it to whoever heads the queue (a late slot is let go). */
  const useReservation = async ({ index, at }: { index: number; at: number }) => {
    await sleep(at - Date.now());
    if (line.size === 0) return;
    reservation = undefined;
    const now = Date.now();
    if (now - at > tolerance || now < pausedUntil) return;
    grantHead();
    // Once the caller has had its turn to send (its request is written in this turn of the event
    // loop), a request that left late moves the next slots back, before the next head reserves.
    setTimeout(() => {
      const late = Date.now() - at;
      if (late > tolerance / 2)
        void runner.run(LATE, [keys[0]!], [index, late.toFixed(3)]).catch(() => undefined);
    }, 0);
  };

  /** Which priority this process's queue ticket should have after its head is served. */
  const priorityAfterHead = (): Priority | '' => {
    const head = line.head();
    if (!head) return '';
    const interactiveLeft = line.interactive - (head.priority === 'interactive' ? 1 : 0);
    if (interactiveLeft > 0) return 'interactive';
    return line.size > 1 ? 'background' : '';
  };

  /** Asks Redis for this process's turn, and acts on the answer. */
  const take = async () => {
    const head = line.head()!;
    if (freshProcess) await prepareFirstRequest();
    const now = Date.now();
    const claiming = ownSlots && (mode === 'alone' || (mode === 'recovering' && now < switchAt));
    const deadline = clock.known ? (clock.toRedis(now) + commandTimeoutMs - 10).toFixed(3) : '';
    let answer: unknown[];
    try {
      answer = (await runner.run(TAKE, keys, [
        processId,
        head.priority,
        priorityAfterHead(),
        spacing,
        deadline,
        claiming ? ownSlots!.next : '',
        claiming ? clock.toRedis(ownSlots!.anchor).toFixed(3) : '',
        claiming ? ownSlots!.cycle : '',
        recoveryMs,
        tolerance,
        keyTtlMs,
        freshProcess ? idleExtra : 0,
        reserveAfter,
      ])) as unknown[];
    } catch (error) {
      enterOutage(error);
      return;
    }
    const receivedAt = Date.now();
    const kind = String(answer[0]);
    if (kind === 'expired') {
      enterOutage(new Error(`Redis ran the command after ${commandTimeoutMs} ms`));
      return;
    }
    if (kind === 'paused') {
      backInQueue();
      pausedUntil = Math.max(pausedUntil, receivedAt + Number(answer[1]));
      return;
    }
    if (kind === 'recovering') {
      const [, switchOnRedis, redisNow, last] = answer;
      clock.observe(Number(redisNow), now, receivedAt);
      switchAt = clock.toLocal(Number(switchOnRedis));
      switchIndex = Number(last) + 1;
      if (mode !== 'recovering') {
        mode = 'recovering';
        outageReported = false;
        logger.info?.('Redis is reachable again: pacing on the shared slots until every process is back', {
          partnerId,
        });
      }
      retryRedisAt = Math.min(switchAt, receivedAt + HEARTBEAT_MS);
      return;
    }
    if (kind === 'reserved') {
      const [, index, anchor, redisNow, total, position, slot] = answer.map(Number) as number[];
      clock.observe(redisNow!, now, receivedAt);
      backInQueue();
      const localAnchor = clock.toLocal(anchor!);
      reservation = { index: index!, at: clock.toLocal(slot!) };
      ownSlots =
        position! >= 0
          ? { anchor: localAnchor, next: index! + 1 + position!, cycle: Math.max(1, total!) }
          : undefined;
      return;
    }
    // 'wait': not this process's turn yet.
    const [, position, last, anchor, redisNow, total] = answer.map(Number) as number[];
    clock.observe(redisNow!, now, receivedAt);
    backInQueue();
    const localAnchor = clock.toLocal(anchor!);
    const cycle = Math.max(1, total!);
    ownSlots = position! >= 0 ? { anchor: localAnchor, next: last! + 1 + position!, cycle } : undefined;
    // This process may reserve once the slot before its own has come.
    const turnAt = localAnchor + (last! + Math.max(0, position!)) * spacing + reserveAfter;
    const current = Date.now();
    line.shedLate(current, turnAt + spacing - current, cycle * spacing);
    if (line.size > 0) await sleep(Math.min(Math.max(1, turnAt - current + 1), HEARTBEAT_MS), true);
  };

  const serve = async () => {
    if (serving) return;
    serving = true;
    try {
      while (line.size > 0) {
        const now = Date.now();
        if (reservation !== undefined) await useReservation(reservation);
        else if (now < pausedUntil) await sleep(pausedUntil - now);
        else if (mode !== 'shared') await paceAlone();
        else await take();
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
      const wasBackground = line.interactive === 0;
      const waiting = line.join(acquireOptions, Date.now(), () => void serve());
      // An interactive call behind background ones asks for an interactive place at once.
      if (wasBackground && line.interactive > 0 && sleeper?.forTurn) sleeper.controller.abort();
      return waiting;
    },
    async pause(ms: number): Promise<void> {
      if (!(ms > 0)) return;
      pausedUntil = Math.max(pausedUntil, Date.now() + ms);
      local.pause(ms);
      if (mode !== 'shared') return;
      // Everyone else waits too; a failure here shows up (and is reported) at the next grant.
      await runner.run(PAUSE, [keys[3]!], [Math.ceil(ms)]).catch(() => undefined);
    },
    get queueDepth(): number {
      return line.size;
    },
    requestsPerSecond,
    async estimateWaitMs(priority?: Priority): Promise<number> {
      const checked = checkPriority(priority);
      const localAhead = line.ahead(checked);
      let answer: number[];
      try {
        answer = ((await runner.run(PEEK, keys, [])) as unknown[]).map(Number);
      } catch {
        // Redis unreachable: this process paces alone.
        return local.estimateWaitMs(priority);
      }
      const [last, anchor, redisNow, interactive, total, pauseMs] = answer as [
        number,
        number,
        number,
        number,
        number,
        number,
      ];
      const ahead = checked === 'interactive' ? interactive : total;
      const nextSlotInMs = Math.max(0, anchor + (last + 1) * spacing - redisNow);
      const own = Math.max(0, pausedUntil - Date.now(), pauseMs);
      return Math.max(own, nextSlotInMs + ahead * spacing) + localAhead * Math.max(1, total) * spacing;
    },
    get shared(): boolean {
      return mode !== 'alone';
    },
  };
}

/** How often a process waiting for its turn asks Redis again, at the longest. */
const HEARTBEAT_MS = 1000;

/**
 * The offset between this process's clock and the Redis server's, from the answer that came back
 * fastest: a host's clock may be off by seconds, and the limiter sends at slots timed by Redis.
 */
class RedisClock {
  #offset = 0;
  #bestRoundTrip = Number.POSITIVE_INFINITY;
  #measuredAt = Number.NEGATIVE_INFINITY;
  known = false;

  observe(redisNow: number, sentAt: number, receivedAt: number): void {
    const roundTrip = receivedAt - sentAt;
    // The measure is off by at most half its round trip: only a faster one replaces it, or any
    // one once it is a minute old (clocks drift; the host's clock may be set).
    if (roundTrip > this.#bestRoundTrip && receivedAt - this.#measuredAt < 60_000) return;
    this.#bestRoundTrip = roundTrip;
    this.#measuredAt = receivedAt;
    this.#offset = redisNow - (sentAt + receivedAt) / 2;
    this.known = true;
  }

  toLocal(redisTime: number): number {
    return redisTime - this.#offset;
  }

  toRedis(localTime: number): number {
    return localTime + this.#offset;
  }
}
