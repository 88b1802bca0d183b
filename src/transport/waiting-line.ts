/**
 * The queue in front of a rate limiter: interactive calls before background ones, each in arrival
 * order; a caller whose signal aborts leaves at once, so a cancelled call costs nobody a slot; a
 * caller whose place puts its slot past its deadline is refused at once
 * ({@link RateLimitWaitTooLongError}). Shared by the SDK's three limiters; each grants from the
 * head in its own way.
 * @module
 */
import { RateLimitWaitTooLongError } from '../errors.js';
import { type RateLimiter, checkPriority, type Priority } from './rate-limiter.js';

/** A caller waiting for a slot; `Grant` is what it receives with its slot (nothing by default). */
export interface Waiter<Grant = void> {
  resolve: (grant: Grant) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  priority: Priority;
  /** When the caller asked, on the limiter's clock. */
  since: number;
  /** The limiter's clock past which the caller cannot use a slot (`Infinity`: no deadline). */
  deadlineAt: number;
}

/**
 * How long a newcomer waits, given how many calls are served before it (`ahead`), when the next
 * slot opens (`nextSlotInMs`, 0 when one is free) and the spacing between slots.
 */
export const waitForPlace = (ahead: number, nextSlotInMs: number, spacingMs: number): number =>
  Math.max(0, nextSlotInMs) + ahead * spacingMs;

/** The two lines of waiting callers of one limiter; each granted caller receives a `Grant`. */
export class WaitingLine<Grant = void> {
  readonly #interactive: Waiter<Grant>[] = [];
  readonly #background: Waiter<Grant>[] = [];
  /** Runs when the last caller left without a grant (to end the limiter's sleep: no timer outlives the queue). */
  onEmpty: () => void = () => undefined;

  get size(): number {
    return this.#interactive.length + this.#background.length;
  }

  /** How many interactive calls wait. */
  get interactive(): number {
    return this.#interactive.length;
  }

  /** The caller served next: the oldest interactive one, else the oldest background one. */
  head(): Waiter<Grant> | undefined {
    return this.#interactive[0] ?? this.#background[0];
  }

  /** How many calls are served before a newcomer of `priority`. */
  ahead(priority: Priority): number {
    return priority === 'interactive' ? this.#interactive.length : this.size;
  }

  /** Takes the head out of the line and resolves it with `grant`: its slot is granted. */
  grantHead(grant: Grant): Waiter<Grant> | undefined {
    const waiter = this.#interactive.shift() ?? this.#background.shift();
    if (!waiter) return undefined;
    if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
    waiter.resolve(grant);
    return waiter;
  }

  /** Takes a caller out without a grant and rejects it with `reason`. */
  refuse(waiter: Waiter<Grant>, reason: unknown): void {
    const line = waiter.priority === 'interactive' ? this.#interactive : this.#background;
    const index = line.indexOf(waiter);
    if (index < 0) return;
    line.splice(index, 1);
    if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
    waiter.reject(reason);
    if (this.size === 0) this.onEmpty();
  }

  /**
   * Puts a caller at the back of its priority's line, then calls `serve`. `now` is the limiter's
   * clock; `maxWaitMs` in `options` becomes the caller's deadline on it. A caller still waiting
   * after `serve` while more than `maxSize` wait is refused with `full()`.
   */
  join(
    options: RateLimiter.AcquireOptions,
    now: number,
    serve: () => void,
    maxSize = Number.POSITIVE_INFINITY,
    full: () => unknown = () => undefined,
  ): Promise<Grant> {
    const { signal } = options;
    const priority = checkPriority(options.priority);
    return new Promise<Grant>((resolve, reject) => {
      const waiter: Waiter<Grant> = {
        resolve,
        reject,
        signal,
        onAbort: undefined,
        priority,
        since: now,
        deadlineAt: deadlineOn(now, options.maxWaitMs),
      };
      if (signal) {
        waiter.onAbort = () => this.refuse(waiter, signal.reason);
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      (priority === 'interactive' ? this.#interactive : this.#background).push(waiter);
      serve();
      if (this.size > maxSize) this.refuse(waiter, full());
    });
  }

  /**
   * Refuses every caller whose slot, by its place in the line, would come after its deadline.
   * `nextSlotInMs`: when the head's slot opens; `spacingMs`: between slots.
   */
  shedLate(now: number, nextSlotInMs: number, spacingMs: number): void {
    let place = 0;
    for (const line of [this.#interactive, this.#background]) {
      for (const waiter of [...line]) {
        const wait = waitForPlace(place, nextSlotInMs, spacingMs);
        if (now + wait > waiter.deadlineAt)
          this.refuse(waiter, tooLong(wait, waiter.deadlineAt - now, waiter.priority));
        else place += 1;
      }
    }
  }
}

/** The caller's deadline on the limiter's clock. */
export const deadlineOn = (now: number, maxWaitMs: number | undefined): number =>
  typeof maxWaitMs === 'number' && maxWaitMs >= 0 ? now + maxWaitMs : Number.POSITIVE_INFINITY;

/** The error of a call refused because its wait would outlast its deadline. */
export const tooLong = (
  estimatedWaitMs: number,
  maxWaitMs: number,
  priority: Priority,
): RateLimitWaitTooLongError => new RateLimitWaitTooLongError({ estimatedWaitMs, maxWaitMs, priority });
