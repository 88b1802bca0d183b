/**
 * The fake's own clock. Rate limits, lead times, timestamps and delivery retries all read it, so
 * a test moves time instead of waiting for it.
 * @module
 */
import { Duration } from 'luxon';
import type { Clock } from '../../transport/clock.js';

// Captured once so a test that installs fake timers (vi.useFakeTimers) cannot stall the fake's
// own scheduling: virtual sleeps and due work must keep running whatever the test does to timers.
export const realSetTimeout = globalThis.setTimeout.bind(globalThis);
export const realClearTimeout = globalThis.clearTimeout.bind(globalThis);

/** Options of {@link FakeClock}. */
export interface FakeClockOptions {
  /**
   * `false` (default): the clock follows real time plus a virtual offset, so a client with a
   * real-time limiter, or curl against the standalone server, sees real-time rate limits.
   * `true`: time moves only through `advance`, `set` and `sleep` (deterministic tests).
   */
  frozen?: boolean;
  /** Where the clock starts (a Date, an ISO 8601 string or epoch milliseconds). Default: now. */
  startAt?: Date | string | number;
}

/** Work the clock runs when time passes (the fake's delivery retries, commits a fault delayed). */
export interface DueWork {
  /** Epoch milliseconds of the earliest scheduled work, if any. */
  nextDueAt(): number | undefined;
  /** Runs everything due at or before `now`. */
  runDue(now: number): Promise<void>;
}

interface Sleeper {
  target: number;
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * The latest instant the fake's clock reaches: the end of year 9999, the last one ISO 8601's
 * four-digit years (and `Date#toISOString`) can write. A move past it is refused, so no request can
 * leave the clock where timestamps no longer format.
 */
export const LATEST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Parses a duration given as milliseconds or as an ISO 8601 duration (`PT1H`, `P1D`). */
function toMilliseconds(duration: number | string): number {
  if (typeof duration === 'number') {
    if (!Number.isFinite(duration) || duration < 0)
      throw new RangeError('duration must be a non-negative number of milliseconds');
    return duration;
  }
  const parsed = Duration.fromISO(duration);
  if (!parsed.isValid) throw new RangeError(`"${duration}" is not an ISO 8601 duration (for example PT1H)`);
  const milliseconds = parsed.toMillis();
  if (milliseconds < 0) throw new RangeError('duration must not be negative');
  return milliseconds;
}

/**
 * `Date.parse('2030-02-30')` is 2 March: a date whose day the month does not have is refused
 * instead of rolled over (the written date is read back from the same fields).
 */
function refuseImpossibleDate(text: string): void {
  const date = /^([+-]?\d{4,6})-(\d{2})-(\d{2})/.exec(text.trim());
  if (!date) return;
  const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
  const probe = new Date(Date.UTC(2000, month - 1, day));
  probe.setUTCFullYear(year);
  if (month < 1 || month > 12 || day < 1 || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) {
    throw new RangeError(`"${text}" names a day its month does not have`);
  }
}

/** Parses an instant given as a Date, an ISO 8601 string or epoch milliseconds. */
function toEpochMilliseconds(instant: Date | string | number): number {
  const value =
    instant instanceof Date ? instant.getTime() : typeof instant === 'number' ? instant : Date.parse(instant);
  if (!Number.isFinite(value)) throw new RangeError(`"${String(instant)}" is not a valid date-time`);
  if (typeof instant === 'string') refuseImpossibleDate(instant);
  if (value > LATEST_INSTANT || value < 0)
    throw new RangeError(`"${String(instant)}" is outside the years 1970 to 9999 the fake's clock covers`);
  return value;
}

/**
 * A {@link Clock} the fake owns. `sleep(ms)` moves virtual time forward by what remains and
 * resolves at once, so a client built with `fake.clientOptions(partner)` never really waits.
 *
 * @example
 * ```ts
 * const fake = createFakeService({ clock: { frozen: true, startAt: '2026-12-01T09:00:00Z' } });
 * await fake.clock.advance('PT5M'); // runs delivery retries that fall due
 * ```
 */
export class FakeClock implements Clock {
  #frozen: boolean;
  #base: number;
  #offset = 0;
  #sleepers: Sleeper[] = [];
  #draining = false;
  #dueWork: DueWork[] = [];
  #dueTimer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> = Promise.resolve();

  constructor(options: FakeClockOptions = {}) {
    this.#frozen = options.frozen ?? false;
    const start = options.startAt === undefined ? Date.now() : toEpochMilliseconds(options.startAt);
    // Frozen: the base is the start instant. Following real time: the offset carries the start.
    this.#base = this.#frozen ? start : 0;
    this.#offset = this.#frozen ? 0 : start - Date.now();
  }

  /** Whether time moves only when told to. */
  get frozen(): boolean {
    return this.#frozen;
  }

  /**
   * Stops the clock where it is (`true`): from then on time moves only through `advance`, `set`
   * and `sleep`, so a run (delivery chaos included) replays the same way; `false` lets it follow
   * real time again from where it stands.
   */
  setFrozen(frozen: boolean): void {
    if (frozen === this.#frozen) return;
    const now = this.now();
    this.#frozen = frozen;
    this.#base = frozen ? now : 0;
    this.#offset = frozen ? 0 : now - Date.now();
    this.rearm();
  }

  /** Milliseconds since the epoch, in the fake's time. */
  now(): number {
    // A running clock set near the end of its range stops there instead of running past it.
    return Math.min((this.#frozen ? this.#base : Date.now()) + this.#offset, LATEST_INSTANT);
  }

  /** The fake's current time as a Date. */
  date(): Date {
    return new Date(this.now());
  }

  /**
   * Virtual sleep: resolves (on the next macrotask) with the clock moved forward to `now + ms`,
   * without waiting in real time. Concurrent sleepers wake in order of their targets.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const sleeper: Sleeper = {
        target: this.now() + Math.max(0, ms),
        resolve,
        reject,
        signal,
        onAbort: undefined,
      };
      if (signal) {
        sleeper.onAbort = () => {
          this.#sleepers = this.#sleepers.filter((other) => other !== sleeper);
          reject(signal.reason);
        };
        signal.addEventListener('abort', sleeper.onAbort, { once: true });
      }
      this.#sleepers.push(sleeper);
      this.#drainSleepers();
    });
  }

  /** Moves time forward by milliseconds or an ISO 8601 duration, running the work that falls due. */
  async advance(duration: number | string): Promise<void> {
    const milliseconds = toMilliseconds(duration);
    if (!(this.now() + milliseconds <= LATEST_INSTANT)) {
      throw new RangeError(`advancing by ${String(duration)} would take the clock past the year 9999`);
    }
    return this.#moveTo(() => this.now() + milliseconds);
  }

  /** Sets the time (never backwards), running the work that falls due on the way. */
  async set(instant: Date | string | number): Promise<void> {
    const target = toEpochMilliseconds(instant);
    if (target < this.now()) throw new RangeError('the fake clock cannot move backwards');
    return this.#moveTo(() => target);
  }

  /** Registers work to run when time passes (the fake registers its delivery queue and delayed commits). */
  attachDueWork(work: DueWork): void {
    this.#dueWork.push(work);
    this.rearm();
  }

  /** Stops running `work` (its world was disposed); the clock goes on for any other world sharing it. */
  detachDueWork(work: DueWork): void {
    this.#dueWork = this.#dueWork.filter((other) => other !== work);
    this.rearm();
  }

  /** The earliest due time over every registered source of work. */
  #nextDueAt(): number | undefined {
    let earliest: number | undefined;
    for (const work of this.#dueWork) {
      const next = work.nextDueAt();
      if (next !== undefined && (earliest === undefined || next < earliest)) earliest = next;
    }
    return earliest;
  }

  /** Re-arms the real-time timer for the next due work (when following real time); runs what is already due. */
  rearm(): void {
    if (this.#dueTimer) realClearTimeout(this.#dueTimer);
    this.#dueTimer = undefined;
    const next = this.#nextDueAt();
    if (next === undefined) return;
    if (next <= this.now()) {
      void this.runDue();
      return;
    }
    if (this.#frozen) return;
    // Capped so a far-away retry never overflows setTimeout; unref'd so it never keeps a process alive.
    const timer = realSetTimeout(() => void this.runDue(), Math.min(next - this.now(), 2 ** 31 - 1));
    (timer as { unref?: () => void }).unref?.();
    this.#dueTimer = timer;
  }

  /** Runs what is due now; serialised so two passes never deliver the same attempt twice. */
  runDue(): Promise<void> {
    const run = this.#running.then(async () => {
      for (const work of this.#dueWork) await work.runDue(this.now());
    });
    this.#running = run.catch(() => undefined).then(() => this.rearm());
    return run;
  }

  /** Stops the real-time timer (the fake is being disposed). */
  dispose(): void {
    if (this.#dueTimer) realClearTimeout(this.#dueTimer);
    this.#dueTimer = undefined;
  }

  #setNow(target: number): void {
    // A virtual sleep asked for more than the clock can hold stops at its end instead of breaking it.
    const bounded = Math.min(target, LATEST_INSTANT);
    if (bounded > this.now()) this.#offset += bounded - this.now();
  }

  async #moveTo(target: () => number): Promise<void> {
    const end = target();
    // Step from one due item to the next so each runs at its own time (timestamps stay truthful).
    for (;;) {
      const next = this.#nextDueAt();
      if (next === undefined || next > end) break;
      this.#setNow(next);
      await this.runDue();
    }
    this.#setNow(end);
    await this.runDue();
  }

  #drainSleepers(): void {
    if (this.#draining) return;
    this.#draining = true;
    realSetTimeout(() => {
      this.#draining = false;
      if (this.#sleepers.length === 0) return;
      this.#sleepers.sort((a, b) => a.target - b.target);
      const sleeper = this.#sleepers.shift()!;
      if (sleeper.onAbort) sleeper.signal?.removeEventListener('abort', sleeper.onAbort);
      this.#setNow(sleeper.target);
      sleeper.resolve();
      void this.runDue();
      if (this.#sleepers.length > 0) this.#drainSleepers();
    }, 0);
  }
}
