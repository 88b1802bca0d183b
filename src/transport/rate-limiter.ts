/**
 * The rate-limit contract. The client asks its limiter for a slot before every attempt (retries
 * and pages included). One limiter may be shared by several clients of the same partner, and the
 * `/redis` store implements the same interface to share one budget across processes.
 * @module
 */

/**
 * Which calls go first when several wait for the budget. `'interactive'` (the default): someone
 * is waiting for the answer, such as a guest's booking. `'background'`: a job that can wait, such
 * as a sync; it is granted a slot only when no interactive call waits.
 */
export type Priority = 'interactive' | 'background';

/**
 * How the request sent in a slot ended: `'answered'` when the service's answer (any status)
 * arrived, `'failed'` when none came after it may have left (a timeout, a dropped connection),
 * `'unsent'` when it never left.
 */
export type SlotOutcome = 'answered' | 'failed' | 'unsent';

/** A limiter the client waits on before each attempt. */
export interface RateLimiter {
  /**
   * Resolves when one request may be sent now, with a {@link RateLimiter.Slot} to report its end on
   * when the limiter wants to know (the client always reports). Rejects when `signal` aborts or
   * the queue is full.
   */
  acquire(options?: RateLimiter.AcquireOptions): Promise<RateLimiter.Slot | void>;
  /**
   * The service answered 429: nobody using this limiter may send for `ms` milliseconds. The
   * whole bucket pauses, not just the failing call, because the service counts per partner.
   */
  pause(ms: number): void | Promise<void>;
  /**
   * What kind of limiter this is, as observers report it: `'process'` (the SDK's in-process
   * limiter) or `'redis'` (the shared budget). A limiter of your own may leave it out (`'custom'`).
   */
  readonly kind?: string | undefined;
  /** How many calls are waiting for a slot (for load shedding and monitoring). */
  readonly queueDepth: number;
  /** The budget this limiter paces to, in requests per second (every limiter of the SDK has it). */
  readonly requestsPerSecond?: number | undefined;
  /**
   * How long a call of this priority asking now would wait for its slot, in milliseconds (every
   * limiter of the SDK has it; the Redis limiter answers with a Promise, since it asks Redis).
   */
  estimateWaitMs?(priority?: Priority): number | Promise<number>;
}

/**
 * The limiter's own types, under the one name the core entry exports for them:
 * `RateLimiter.AcquireOptions`, `RateLimiter.Slot`, `RateLimiter.Paced` (every limiter of the
 * SDK) and `RateLimiter.Local` (what `createRateLimiter` returns).
 */
// eslint-disable-next-line @typescript-eslint/no-namespace -- types only: one public name covers the limiter's types, so a partner's declarations can name every one (the core entry's names are counted)
export declare namespace RateLimiter {
  /** Options of one wait for a slot. */
  export interface AcquireOptions {
    /** Aborting it rejects the wait with the signal's reason and frees the queue place. */
    signal?: AbortSignal | undefined;
    /** The call's priority. Default `'interactive'`. */
    priority?: Priority | undefined;
    /**
     * How long the caller can wait at most (the time left before its deadline). A limiter that can
     * tell the wait will be longer rejects at once with `RateLimitWaitTooLongError` instead of
     * making the caller wait for a slot it could not use.
     */
    maxWaitMs?: number | undefined;
  }

  /**
   * What a limiter may hand back with a slot. The service counts a request when it receives it,
   * which the client only knows to lie between the grant and the answer: a limiter that is told when
   * the answer came counts the request from then, so a request held up on its way (a busy event
   * loop, a slow connection, a stalled server) never lets the next ones crowd the service's window.
   */
  export interface Slot {
    /** Tells the limiter how the request sent in this slot ended. Only the first call counts. */
    end(outcome: SlotOutcome): void;
  }

  /** The SDK's own limiters: each tells its rate and estimates waits. */
  export interface Paced extends RateLimiter {
    readonly requestsPerSecond: number;
    estimateWaitMs(priority?: Priority): number | Promise<number>;
  }

  /** The in-process limiter (`createRateLimiter`): estimates waits at once and hands out slots to report on. */
  export interface Local extends Paced {
    acquire(options?: AcquireOptions): Promise<Slot>;
    /** Takes effect at once: nothing to wait for. */
    pause(ms: number): void;
    estimateWaitMs(priority?: Priority): number;
  }
}

/** Checks a `priority` option (refused by name rather than treated as the default). */
export function checkPriority(priority: unknown, field = 'priority'): Priority {
  if (priority === undefined) return 'interactive';
  if (priority !== 'interactive' && priority !== 'background')
    throw new TypeError(`${field} must be 'interactive' or 'background'`);
  return priority;
}
