/**
 * One process's side of the shared budget in Redis (see `rate-limiter.ts` for the idea, and
 * `rate-limiter-scripts.ts` for what runs in Redis). It keeps the process's line of waiting calls,
 * asks Redis for its turn on behalf of the head, sends in the slots Redis reserves for it once
 * Redis says the request before has ended a window ago, reports when its own request ended, and
 * paces alone in its own slots, at half the rate, while Redis does not answer.
 *
 * Its parts stand apart: the timing figures in `shared-budget-timing.ts` (with why requests form a
 * chain), the calls to the scripts in `shared-budget-scripts.ts`, Redis's clock in `redis-clock.ts`,
 * the own slots' arithmetic in `own-slots.ts`. This file keeps the line and the modes.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { type RateLimiter, checkPriority, type Priority } from '../transport/rate-limiter.js';
import { WaitingLine } from '../transport/waiting-line.js';
import { createRateLimiter, prepareFirstRequest, RateLimitQueueFullError } from '../transport/throttle.js';
import type { RedisRateLimiter, RedisRateLimiterOptions } from './rate-limiter.js';
import { askFitsBefore, hasEvenSlot, nextEvenSlot, ownSlotsFrom, type OwnSlots } from './own-slots.js';
import { RedisClock } from './redis-clock.js';
import { BudgetScripts, UNREPORTED } from './shared-budget-scripts.js';
import {
  budgetTiming,
  HEARTBEAT_MS,
  HOLD_POLL_MS,
  LONG_OUTAGE_TRIES,
  type BudgetTiming,
} from './shared-budget-timing.js';

/** The checked options of one shared budget: every option of the limiter, its default filled in. */
export type SharedBudgetSettings = Required<RedisRateLimiterOptions>;

export class SharedBudget implements RedisRateLimiter {
  readonly kind = 'redis';
  readonly requestsPerSecond: number;
  readonly #settings: SharedBudgetSettings;
  readonly #timing: BudgetTiming;
  readonly #processId = randomUUID();
  readonly #scripts: BudgetScripts;
  /** Paces this process when it knows no slot of its own (Redis never answered, or it had no place in the queue). */
  readonly #local: RateLimiter.Local;
  readonly #line = new WaitingLine<RateLimiter.Slot>();
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
    this.requestsPerSecond = settings.requestsPerSecond;
    this.#timing = budgetTiming(settings);
    this.#scripts = new BudgetScripts(settings, this.#timing);
    this.#local = createRateLimiter({
      requestsPerSecond: settings.fallbackRequestsPerSecond,
      maxQueue: settings.maxQueue,
    });
    this.#line.onEmpty = () => this.#sleeper?.controller.abort();
  }

  acquire(acquireOptions: RateLimiter.AcquireOptions = {}): Promise<RateLimiter.Slot> {
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
    await this.#scripts.pause(ms).catch(() => undefined);
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
    const answer = await this.#scripts.peek().catch(() => undefined);
    // Redis unreachable: this process paces alone.
    if (!answer) return this.#local.estimateWaitMs(priority);
    const { last, anchor, redisNow, interactive, total, pauseMs } = answer;
    const spacing = this.#timing.spacing;
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

  #grantHead(slot: RateLimiter.Slot = UNREPORTED): void {
    this.#line.grantHead(slot);
    this.#freshProcess = false;
  }

  /** Grants the head without Redis; Redis hears of it with this process's next ask. */
  #grantAlone(slot: RateLimiter.Slot = UNREPORTED): void {
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
      this.#aloneFrom = Date.now() + this.#timing.window + this.#timing.assumeOut;
      this.#outageSince = Date.now();
    }
    if (this.#mode === 'shared' && !this.#ownSlots) {
      // No slot of its own known: a command that timed out may still have taken one in Redis, and
      // a slow moment often passes by the next try; no local grant before one window and one retry.
      this.#local.pause(this.#timing.window + this.#timing.assumeOut + retryRedisAfterMs);
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
   * have given it, and only in the even ones (see `own-slots.ts`). A process that has no such
   * slot but knows the budget is shared sends nothing until Redis is back; one that never heard
   * from Redis paces on its own at the fallback rate.
   */
  async #paceAlone(): Promise<void> {
    const now = Date.now();
    const slots = this.#ownSlots;
    if (!hasEvenSlot(slots)) {
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
    const { spacing, aloneTolerance } = this.#timing;
    const at = nextEvenSlot(slots, Math.max(now - aloneTolerance, this.#aloneFrom), spacing);
    const { commandTimeoutMs } = this.#settings;
    const askFits = askFitsBefore(slots, at, now, spacing, commandTimeoutMs);
    if (slots.next >= this.#switchIndex || (now >= this.#retryRedisAt && askFits)) {
      if (now >= this.#retryRedisAt) await this.#take();
      else await this.#sleep(this.#retryRedisAt - now);
      return;
    }
    const wakeForRedis = this.#retryRedisAt < at - commandTimeoutMs - 50;
    await this.#sleep((wakeForRedis ? this.#retryRedisAt : at) - now);
    if (wakeForRedis || this.#line.size === 0) return;
    const granted = Date.now();
    if (granted - at <= this.#timing.aloneTolerance && granted >= this.#pausedUntil) this.#grantAlone();
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
      answer = await this.#scripts.go(reservation.index, clock.deadline(sentAt, commandTimeoutMs));
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
      this.#grantHead(this.#scripts.reportTo(reservation.index));
    } else {
      // Granted in Redis, but the caller left meanwhile: nothing goes in this slot.
      this.#reservation = undefined;
      this.#scripts.end(reservation.index, true);
    }
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
      answer = await this.#scripts.take({
        processId: this.#processId,
        priority: head.priority,
        priorityAfterHead: this.#priorityAfterHead(),
        deadline: clock.deadline(sentAt, commandTimeoutMs),
        claim: claiming
          ? { next: slots.next, anchor: clock.toRedis(slots.anchor).toFixed(3), cycle: slots.cycle }
          : undefined,
        sinceAloneGrant: this.#lastAloneGrant === undefined ? '' : (sentAt - this.#lastAloneGrant).toFixed(3),
      });
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
    this.#ownSlots = ownSlotsFrom(this.#clock.toLocal(anchor!), index! + 1, position!, total!);
  }

  /** `{'wait', position, last, anchor, now, total}`: not this process's turn yet. */
  async #onWait([, position, last, anchor, , total]: number[]): Promise<void> {
    this.#backInQueue();
    const spacing = this.#timing.spacing;
    const localAnchor = this.#clock.toLocal(anchor!);
    const cycle = Math.max(1, total!);
    this.#ownSlots = ownSlotsFrom(localAnchor, last! + 1, position!, total!);
    // This process may reserve once the slot before its own has come.
    const turnAt = localAnchor + (last! + Math.max(0, position!)) * spacing + this.#timing.reserveAfter;
    const now = Date.now();
    this.#line.shedLate(now, turnAt + spacing - now, cycle * spacing);
    if (this.#line.size > 0) await this.#sleep(Math.min(Math.max(1, turnAt - now + 1), HEARTBEAT_MS), true);
  }
}
