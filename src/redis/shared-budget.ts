/**
 * One process's side of the shared budget in Redis (see `rate-limiter.ts` for the idea, and
 * `rate-limiter-scripts.ts` for what runs in Redis). It keeps the process's line of waiting calls,
 * asks Redis for its turn on behalf of the head, sends in the slots Redis reserves for it once
 * Redis says the request before has ended a window ago, reports when its own request ended, and
 * paces alone in its own slots, at half the rate, while Redis does not answer.
 *
 * Why the chain: a slot is a time on Redis's clock, but a request leaves its process later, and on
 * a loaded host much later (measured: 40 ms typical, 300 ms at worst between a grant and the answer
 * beside one CPU-bound process on 2 cores). Two processes' requests whose slots were a spacing
 * apart then reach the service closer than its window. Counting the window from when the request
 * before was reported ended (an answer came, so the service had it) holds however late it left.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import { checkPriority, type AcquireOptions, type Priority } from '../transport/rate-limiter.js';
import { WaitingLine } from '../transport/waiting-line.js';
import {
  createRateLimiter,
  grantSpacingMs,
  prepareFirstRequest,
  RateLimitQueueFullError,
  serviceWindow,
  type LocalRateLimiter,
} from '../transport/throttle.js';
import { createScriptRunner, type RedisClient, type ScriptRunner } from './connection.js';
import type { RedisRateLimiter } from './rate-limiter.js';
import { END, GO, PAUSE, PEEK, TAKE } from './rate-limiter-scripts.js';
import type { RateLimitSlot } from '../transport/rate-limiter.js';

/** The checked options of one shared budget. */
export interface SharedBudgetSettings {
  redis: RedisClient;
  partnerId: string;
  requestsPerSecond: number;
  maxQueue: number;
  keyPrefix: string;
  commandTimeoutMs: number;
  fallbackRequestsPerSecond: number;
  retryRedisAfterMs: number;
  logger: Logger;
}

/**
 * How often a process waiting for its turn asks Redis again, at the longest. Each answer brings
 * the slots up to date (a request that left late moves later slots back): a process that has
 * to pace alone when Redis stops answering paces on what it heard last, so it hears often.
 */
const HEARTBEAT_MS = 250;

/** How often a process whose slot has come asks again while the request before it is still out. */
const HOLD_POLL_MS = 20;

/** After this many tries at Redis, a process with no slot of its own paces at the fallback rate. */
const LONG_OUTAGE_TRIES = 10;

/** A grant nobody reports on (pacing alone: Redis is not there to hear it). */
const UNREPORTED: RateLimitSlot = { end: () => undefined };

/** This process's slots on the lattice (local clock): the next one, and how many slots apart they come. */
interface OwnSlots {
  anchor: number;
  next: number;
  cycle: number;
}

export class SharedBudget implements RedisRateLimiter {
  readonly kind = 'redis';
  readonly requestsPerSecond: number;
  readonly #settings: SharedBudgetSettings;
  readonly #spacing: number;
  readonly #tolerance: number;
  readonly #reserveAfter: number;
  /** The service's window between two requests, as the chain counts it (a rounding margin on top). */
  readonly #window: number;
  /** How long a request granted without Redis's knowledge may still take to reach the service. */
  readonly #assumeOut: number;
  /** How long a request may stay out unreported before the next goes (its process died or stalled). */
  readonly #holdMax: number;
  /** How late a slot may still be used when pacing alone. */
  readonly #aloneTolerance: number;
  readonly #recoveryMs: number;
  readonly #keyTtlMs: number;
  readonly #keys: string[];
  readonly #processId = randomUUID();
  readonly #runner: ScriptRunner;
  /** Paces this process when it knows no slot of its own (Redis never answered, or it had no place in the queue). */
  readonly #local: LocalRateLimiter;
  readonly #line = new WaitingLine<RateLimitSlot>();
  readonly #clock = new RedisClock();
  #serving = false;
  #mode: 'shared' | 'alone' | 'recovering' = 'shared';
  #outageReported = false;
  #freshProcess = true;
  #retryRedisAt = 0;
  #pausedUntil = Number.NEGATIVE_INFINITY;
  /** Pacing alone sends nothing before this (local clock): what went in the queue has reached the service. */
  #aloneFrom = Number.NEGATIVE_INFINITY;
  /** When this process last sent without Redis (local clock), until Redis has heard of it. */
  #lastAloneGrant: number | undefined;
  /** When the current outage began (local clock). */
  #outageSince = 0;
  /** From Redis's last answer: what this process uses when Redis stops answering. */
  #ownSlots: OwnSlots | undefined;
  /** A slot Redis reserved for this process: its index, and when it is on the local clock. */
  #reservation: { index: number; at: number } | undefined;
  /** During a recovery: the first slot that belongs to the queue again, and when that is (local clock). */
  #switchIndex = Number.POSITIVE_INFINITY;
  #switchAt = 0;
  #sleeper: { controller: AbortController; forTurn: boolean } | undefined;

  constructor(settings: SharedBudgetSettings) {
    this.#settings = settings;
    const { requestsPerSecond, commandTimeoutMs, retryRedisAfterMs, logger } = settings;
    this.requestsPerSecond = requestsPerSecond;
    const interval = 1000 / requestsPerSecond;
    // The slots' pace: 3 % over the interval, at most 30 ms (97 % at best). It is not what keeps
    // requests a window apart at the service (a busy host delays a request by far more): the
    // chain does (see GO), and pacing alone uses every other slot.
    this.#spacing = Math.max(grantSpacingMs(requestsPerSecond), interval + Math.min(interval * 0.03, 30));
    // How late the head may come for its slot before Redis takes it as missed, or an idle lattice
    // starts again: half the margin the service's window allows.
    this.#tolerance = Math.max(1, 0.5 * (this.#spacing - interval) * serviceWindow(requestsPerSecond).count);
    // The head reserves its slot this long after the slot before it has come.
    this.#reserveAfter = Math.min(this.#spacing / 4, 150);
    // Requests a whole interval apart on the service's clock (it stamps whole milliseconds).
    this.#window = interval + 2;
    // Longer than a request was ever seen to take from its grant to its answer on a loaded host
    // (300 ms beside a CPU-bound process on 2 cores), at most half an interval.
    this.#assumeOut = Math.min(500, interval / 2);
    this.#holdMax = this.#assumeOut;
    // Pacing alone keeps a whole interval between two processes' slots (every other slot):
    // a timer that much late still leaves most of it.
    this.#aloneTolerance = Math.min(200, interval / 5);
    // After an outage, processes keep to their own slots until every one of them has had time to
    // find Redis again (each asks every retryRedisAfterMs, each ask bounded by commandTimeoutMs).
    this.#recoveryMs = 2 * retryRedisAfterMs + 2 * commandTimeoutMs + this.#spacing;
    // An empty lattice costs the next grant a wait (it may follow a request just sent): the keys
    // outlive a minute of silence.
    this.#keyTtlMs = Math.ceil(Math.max(60_000, 4 * this.#spacing));
    // One hash tag, so the keys live on one slot of a Redis Cluster.
    const base = `${settings.keyPrefix}{${settings.partnerId}}`;
    this.#keys = [`${base}:lattice`, `${base}:interactive`, `${base}:background`, `${base}:pause`];
    this.#runner = createScriptRunner(settings.redis, commandTimeoutMs, (error) =>
      logger.debug?.('Redis client error (handled by the rate limiter)', {
        message: error instanceof Error ? error.message : String(error),
      }),
    );
    this.#local = createRateLimiter({
      requestsPerSecond: settings.fallbackRequestsPerSecond,
      maxQueue: settings.maxQueue,
    });
    this.#line.onEmpty = () => this.#sleeper?.controller.abort();
  }

  acquire(acquireOptions: AcquireOptions = {}): Promise<RateLimitSlot> {
    const { signal } = acquireOptions;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const { maxQueue } = this.#settings;
    if (this.#line.size >= maxQueue) return Promise.reject(new RateLimitQueueFullError(maxQueue));
    const wasBackground = this.#line.interactive === 0;
    const waiting = this.#line.join(acquireOptions, Date.now(), () => void this.#serve());
    // An interactive call behind background ones asks for an interactive place at once.
    if (wasBackground && this.#line.interactive > 0 && this.#sleeper?.forTurn)
      this.#sleeper.controller.abort();
    return waiting;
  }

  async pause(ms: number): Promise<void> {
    if (!(ms > 0)) return;
    this.#pausedUntil = Math.max(this.#pausedUntil, Date.now() + ms);
    this.#local.pause(ms);
    if (this.#mode !== 'shared') return;
    // Everyone else waits too; a failure here shows up (and is reported) at the next grant.
    await this.#runner.run(PAUSE, [this.#keys[3]!], [Math.ceil(ms)]).catch(() => undefined);
  }

  get queueDepth(): number {
    return this.#line.size;
  }

  get shared(): boolean {
    return this.#mode !== 'alone';
  }

  async estimateWaitMs(priority?: Priority): Promise<number> {
    const checked = checkPriority(priority);
    const localAhead = this.#line.ahead(checked);
    let answer: number[];
    try {
      answer = ((await this.#runner.run(PEEK, this.#keys, [])) as unknown[]).map(Number);
    } catch {
      // Redis unreachable: this process paces alone.
      return this.#local.estimateWaitMs(priority);
    }
    const [last, anchor, redisNow, interactive, total, pauseMs] = answer as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const spacing = this.#spacing;
    const ahead = checked === 'interactive' ? interactive : total;
    const nextSlotInMs = Math.max(0, anchor + (last + 1) * spacing - redisNow);
    const own = Math.max(0, this.#pausedUntil - Date.now(), pauseMs);
    return Math.max(own, nextSlotInMs + ahead * spacing) + localAhead * Math.max(1, total) * spacing;
  }

  async #serve(): Promise<void> {
    if (this.#serving) return;
    this.#serving = true;
    try {
      while (this.#line.size > 0) {
        const now = Date.now();
        if (this.#reservation !== undefined) await this.#useReservation(this.#reservation);
        else if (now < this.#pausedUntil) await this.#sleep(this.#pausedUntil - now);
        else if (this.#mode !== 'shared') await this.#paceAlone();
        else await this.#take();
      }
    } finally {
      this.#serving = false;
    }
  }

  #sleep(ms: number, forTurn = false): Promise<void> {
    return new Promise<void>((resolve) => {
      const controller = new AbortController();
      this.#sleeper = { controller, forTurn };
      const timer = setTimeout(resolve, Math.max(0, ms));
      controller.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    }).finally(() => (this.#sleeper = undefined));
  }

  #slotAt(slots: OwnSlots): number {
    return slots.anchor + slots.next * this.#spacing;
  }

  #grantHead(slot: RateLimitSlot = UNREPORTED): void {
    this.#line.grantHead(slot);
    this.#freshProcess = false;
  }

  /** Grants the head without Redis; Redis hears of it with this process's next ask. */
  #grantAlone(slot: RateLimitSlot = UNREPORTED): void {
    this.#lastAloneGrant = Date.now();
    this.#grantHead(slot);
  }

  #backInQueue(): void {
    if (this.#mode === 'shared') return;
    this.#mode = 'shared';
    this.#switchIndex = Number.POSITIVE_INFINITY;
    this.#outageReported = false;
    this.#settings.logger.info?.('Redis is reachable again: back on the shared rate limit', {
      partnerId: this.#settings.partnerId,
    });
  }

  #enterOutage(error: unknown): void {
    const { retryRedisAfterMs, logger, partnerId } = this.#settings;
    this.#retryRedisAt = Date.now() + retryRedisAfterMs;
    this.#reservation = undefined;
    // A request granted in the queue just before may still be on its way (and one more may have
    // been granted to another process while this one's command was out): nothing goes alone
    // before they have reached the service a window ago.
    if (this.#mode === 'shared') {
      this.#aloneFrom = Date.now() + this.#window + this.#assumeOut;
      this.#outageSince = Date.now();
    }
    if (this.#mode === 'shared' && !this.#ownSlots) {
      // No slot of its own known: a command that timed out may still have taken one in Redis, and
      // a slow moment often passes by the next try; no local grant before one window and one retry.
      this.#local.pause(this.#window + this.#assumeOut + retryRedisAfterMs);
    }
    this.#mode = 'alone';
    // A recovery that was under way is over: this process's own slots are all its own again.
    this.#switchIndex = Number.POSITIVE_INFINITY;
    if (this.#outageReported) return;
    this.#outageReported = true;
    logger.warn('Redis is unreachable for the shared rate limit; this process paces alone until it is back', {
      partnerId,
      cause: error instanceof Error ? error.message : String(error),
    });
  }

  /** Grants through the local limiter until the head leaves or it is time to try Redis again. */
  async #serveLocally(): Promise<void> {
    const head = this.#line.head()!;
    const stopAt = new AbortController();
    const onLeave = () => stopAt.abort();
    head.signal?.addEventListener('abort', onLeave, { once: true });
    const timer = setTimeout(onLeave, Math.max(0, this.#retryRedisAt - Date.now()));
    try {
      this.#grantAlone(await this.#local.acquire({ signal: stopAt.signal }));
    } catch {
      // The head left, or Redis is worth trying again: the loop decides.
    } finally {
      clearTimeout(timer);
      head.signal?.removeEventListener('abort', onLeave);
    }
  }

  /**
   * Without Redis: sends in this process's own slots of the lattice, the ones the queue would
   * have given it, and only in the even ones: no two processes meet, and a whole interval lies
   * between two of them however late a request leaves its process. A process that has no such
   * slot but knows the budget is shared sends nothing until Redis is back; one that never heard
   * from Redis paces on its own at the fallback rate.
   */
  async #paceAlone(): Promise<void> {
    const now = Date.now();
    const slots = this.#ownSlots;
    if (!slots || (slots.cycle % 2 === 0 && slots.next % 2 !== 0)) {
      if (now >= this.#retryRedisAt) await this.#take();
      else if (
        this.#mode === 'recovering' ||
        (this.#clock.known && now < this.#outageSince + LONG_OUTAGE_TRIES * this.#settings.retryRedisAfterMs)
      )
        // The budget is shared, and every slot belongs to a process pacing alone: wait for Redis
        // (a long outage is another matter: calls must go on, at the fallback rate).
        await this.#sleep(this.#retryRedisAt - now);
      else await this.#serveLocally();
      return;
    }
    const earliest = Math.max(now - this.#aloneTolerance, this.#aloneFrom);
    while (this.#slotAt(slots) < earliest || slots.next % 2 !== 0) slots.next += slots.cycle;
    const at = this.#slotAt(slots);
    const { commandTimeoutMs } = this.#settings;
    // Asking Redis can take up to commandTimeoutMs: ask when that cannot make this process miss
    // its slot (unless its slots come so often that it never could).
    const askFits = at - now > commandTimeoutMs + 50 || slots.cycle * this.#spacing < commandTimeoutMs + 100;
    if (slots.next >= this.#switchIndex || (now >= this.#retryRedisAt && askFits)) {
      if (now >= this.#retryRedisAt) await this.#take();
      else await this.#sleep(this.#retryRedisAt - now);
      return;
    }
    const wakeForRedis = this.#retryRedisAt < at - commandTimeoutMs - 50;
    await this.#sleep((wakeForRedis ? this.#retryRedisAt : at) - now);
    if (wakeForRedis || this.#line.size === 0) return;
    const granted = Date.now();
    if (granted - at <= this.#aloneTolerance && granted >= this.#pausedUntil) this.#grantAlone();
    slots.next += slots.cycle;
  }

  /**
   * Waits for the reserved slot, then asks Redis whether the request before it has ended a
   * window ago; grants the slot to whoever heads the line once it has, however late that is.
   */
  async #useReservation(reservation: { index: number; at: number }): Promise<void> {
    await this.#sleep(reservation.at - Date.now());
    if (this.#line.size === 0) return;
    if (Date.now() < this.#pausedUntil) {
      this.#reservation = undefined;
      return;
    }
    const { commandTimeoutMs } = this.#settings;
    const clock = this.#clock;
    const sentAt = Date.now();
    let answer: unknown[];
    try {
      answer = (await this.#runner.run(GO, this.#keys, [
        reservation.index,
        clock.known ? (clock.toRedis(sentAt) + commandTimeoutMs - 10).toFixed(3) : '',
        this.#spacing,
        this.#window,
        this.#holdMax,
        this.#keyTtlMs,
      ])) as unknown[];
    } catch (error) {
      this.#enterOutage(error);
      return;
    }
    const receivedAt = Date.now();
    const kind = String(answer[0]);
    if (kind === 'expired') {
      this.#enterOutage(new Error(`Redis ran the command after ${commandTimeoutMs} ms`));
      return;
    }
    if (kind === 'paused') {
      this.#reservation = undefined;
      this.#pausedUntil = Math.max(this.#pausedUntil, receivedAt + Number(answer[1]));
      return;
    }
    clock.observe(Number(answer[1]), receivedAt);
    if (kind === 'lost') {
      this.#reservation = undefined;
    } else if (kind === 'hold') {
      // Redis's wait, counted from when its answer came: no earlier than Redis meant.
      const ms = Number(answer[2]);
      reservation.at = receivedAt + (ms > 0 ? ms : HOLD_POLL_MS);
    } else if (this.#line.size > 0) {
      this.#reservation = undefined;
      this.#grantHead(this.#reportTo(reservation.index));
    } else {
      // Granted in Redis, but the caller left meanwhile: nothing goes in this slot.
      this.#reservation = undefined;
      void this.#runner
        .run(END, [this.#keys[0]!], [reservation.index, 'unsent', this.#window])
        .catch(() => undefined);
    }
  }

  /** The slot handed to the caller: when its request ends, Redis hears of it and the next may go. */
  #reportTo(index: number): RateLimitSlot {
    let reported = false;
    return {
      end: (outcome) => {
        if (reported) return;
        reported = true;
        // A report that does not reach Redis holds the next request back (at most #holdMax).
        void this.#runner
          .run(END, [this.#keys[0]!], [index, outcome === 'unsent' ? 'unsent' : '', this.#window])
          .catch(() => undefined);
      },
    };
  }

  /** Which priority this process's queue place should have once its head is served. */
  #priorityAfterHead(): Priority | '' {
    const head = this.#line.head();
    if (!head) return '';
    const interactiveLeft = this.#line.interactive - (head.priority === 'interactive' ? 1 : 0);
    if (interactiveLeft > 0) return 'interactive';
    return this.#line.size > 1 ? 'background' : '';
  }

  /** Asks Redis for this process's turn, and acts on the answer. */
  async #take(): Promise<void> {
    const head = this.#line.head()!;
    if (this.#freshProcess) await prepareFirstRequest();
    const { commandTimeoutMs } = this.#settings;
    const clock = this.#clock;
    const slots = this.#ownSlots;
    const sentAt = Date.now();
    const claiming =
      slots && (this.#mode === 'alone' || (this.#mode === 'recovering' && sentAt < this.#switchAt));
    let answer: unknown[];
    try {
      answer = (await this.#runner.run(TAKE, this.#keys, [
        this.#processId,
        head.priority,
        this.#priorityAfterHead(),
        this.#spacing,
        clock.known ? (clock.toRedis(sentAt) + commandTimeoutMs - 10).toFixed(3) : '',
        claiming ? slots.next : '',
        claiming ? clock.toRedis(slots.anchor).toFixed(3) : '',
        claiming ? slots.cycle : '',
        this.#recoveryMs,
        this.#tolerance,
        this.#keyTtlMs,
        this.#assumeOut,
        this.#reserveAfter,
        this.#lastAloneGrant === undefined ? '' : (sentAt - this.#lastAloneGrant).toFixed(3),
        this.#window,
      ])) as unknown[];
    } catch (error) {
      this.#enterOutage(error);
      return;
    }
    const receivedAt = Date.now();
    const kind = String(answer[0]);
    // Redis has heard of the requests this process sent alone before this ask.
    if (kind !== 'expired' && this.#lastAloneGrant !== undefined && this.#lastAloneGrant <= sentAt)
      this.#lastAloneGrant = undefined;
    if (kind === 'expired')
      this.#enterOutage(new Error(`Redis ran the command after ${commandTimeoutMs} ms`));
    else if (kind === 'paused') {
      this.#backInQueue();
      this.#pausedUntil = Math.max(this.#pausedUntil, receivedAt + Number(answer[1]));
    } else {
      const numbers = answer.map(Number);
      // Where each answer carries the Redis clock's "now".
      const redisNow = numbers[kind === 'recovering' ? 2 : kind === 'reserved' ? 3 : 4]!;
      clock.observe(redisNow, receivedAt);
      if (kind === 'recovering') this.#onRecovering(numbers, receivedAt);
      else if (kind === 'reserved') this.#onReserved(numbers);
      else await this.#onWait(numbers);
    }
  }

  /** `{'recovering', switchAt, now, last, anchor}`: keep to this process's own slots until the switch. */
  #onRecovering([, switchOnRedis, , last]: number[], receivedAt: number): void {
    this.#switchAt = this.#clock.toLocal(switchOnRedis!);
    this.#switchIndex = last! + 1;
    if (this.#mode !== 'recovering') {
      this.#mode = 'recovering';
      this.#outageReported = false;
      this.#settings.logger.info?.(
        'Redis is reachable again: pacing on the shared slots until every process is back',
        { partnerId: this.#settings.partnerId },
      );
    }
    this.#retryRedisAt = Math.min(this.#switchAt, receivedAt + HEARTBEAT_MS);
  }

  /** `{'reserved', index, anchor, now, total, position, slot}`: this process's slot is `index`. */
  #onReserved([, index, anchor, , total, position, slot]: number[]): void {
    this.#backInQueue();
    this.#reservation = { index: index!, at: this.#clock.toLocal(slot!) };
    this.#ownSlots =
      position! >= 0
        ? { anchor: this.#clock.toLocal(anchor!), next: index! + 1 + position!, cycle: Math.max(1, total!) }
        : undefined;
  }

  /** `{'wait', position, last, anchor, now, total}`: not this process's turn yet. */
  async #onWait([, position, last, anchor, , total]: number[]): Promise<void> {
    this.#backInQueue();
    const spacing = this.#spacing;
    const localAnchor = this.#clock.toLocal(anchor!);
    const cycle = Math.max(1, total!);
    this.#ownSlots = position! >= 0 ? { anchor: localAnchor, next: last! + 1 + position!, cycle } : undefined;
    // This process may reserve once the slot before its own has come.
    const turnAt = localAnchor + (last! + Math.max(0, position!)) * spacing + this.#reserveAfter;
    const now = Date.now();
    this.#line.shedLate(now, turnAt + spacing - now, cycle * spacing);
    if (this.#line.size > 0) await this.#sleep(Math.min(Math.max(1, turnAt - now + 1), HEARTBEAT_MS), true);
  }
}

/**
 * How this process's clock reads the Redis server's: a host's clock may be off by seconds, and the
 * limiter sends at slots timed by Redis. Each answer tells Redis's time when it ran; the answer
 * reaches this process some time later (more on a busy host, where it can be tens of
 * milliseconds). The smallest difference seen, local arrival minus Redis time, is the offset plus
 * the shortest trip back: reading Redis times through it puts a slot no earlier than it is, and
 * later by that shortest trip only (well under a millisecond on a quiet host). A slot read early
 * would bring a request closer to the one before it than the service allows.
 */
class RedisClock {
  #offset = 0;
  #measuredAt = Number.NEGATIVE_INFINITY;
  known = false;

  observe(redisNow: number, receivedAt: number): void {
    const offset = receivedAt - redisNow;
    // A smaller one replaces it, or any one once it is a minute old (the host's clock may be set).
    if (this.known && offset > this.#offset && receivedAt - this.#measuredAt < 60_000) return;
    this.#offset = offset;
    this.#measuredAt = receivedAt;
    this.known = true;
  }

  toLocal(redisTime: number): number {
    return redisTime + this.#offset;
  }

  toRedis(localTime: number): number {
    return localTime - this.#offset;
  }
}
