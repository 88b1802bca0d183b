/**
 * A rate limiter that runs on a {@link Clock} of your choice instead of real time: the fake
 * service's clock (what `fake.clientOptions()` uses, so a partner's suite never sleeps) or a test's
 * manual clock. It paces exactly as the SDK's real-time limiter does (same spacing, same margin
 * after an idle spell, same pause on 429, same bounded queue with cancellation, same priorities
 * and the same refusal of a call whose place puts it past its deadline), but its waits are the
 * clock's sleeps.
 * @module
 */
import type { Clock } from '../transport/clock.js';
import { type RateLimiter, checkPriority, type Priority } from '../transport/rate-limiter.js';
import { deadlineOn, tooLong, waitForPlace, WaitingLine } from '../transport/waiting-line.js';
import {
  checkMaxQueue,
  checkRequestsPerSecond,
  grantSpacingMs,
  idleExtraMs,
  RateLimitQueueFullError,
} from '../transport/throttle.js';

/** Options of {@link createClockRateLimiter}. */
export interface ClockRateLimiterOptions {
  /** Requests allowed per second of the clock. */
  requestsPerSecond: number;
  /** The time source every wait goes through (a `FakeClock`, or any `Clock`). */
  clock: Clock;
  /** Most calls allowed to wait at once; one more is refused with `RateLimitQueueFullError`. Default 1000. */
  maxQueue?: number;
}

/**
 * Creates a limiter on `clock`. Pass it as a client's `rateLimit` when the client's `clock` is not
 * the real one: the default limiter built from `{ requestsPerSecond }` always runs on real time.
 *
 * @example
 * ```ts
 * const clock = new FakeClock({ frozen: true });
 * const client = new PartnerClient({ ...credentials, clock, rateLimit: createClockRateLimiter({ requestsPerSecond: 1, clock }) });
 * ```
 */
/** A limiter on a clock of your choice: its estimates are numbers of the clock's milliseconds. */
export interface ClockRateLimiter extends RateLimiter.Paced {
  estimateWaitMs(priority?: Priority): number;
  /** Takes effect at once: nothing to wait for. */
  pause(ms: number): void;
}

export function createClockRateLimiter(options: ClockRateLimiterOptions): ClockRateLimiter {
  const { requestsPerSecond, clock } = options;
  checkRequestsPerSecond(requestsPerSecond);
  if (!clock || typeof clock.now !== 'function' || typeof clock.sleep !== 'function') {
    throw new TypeError('clock must be a Clock ({ now(), sleep(ms, signal) })');
  }
  const maxQueue = checkMaxQueue(options.maxQueue);
  const spacing = grantSpacingMs(requestsPerSecond);
  const margin = spacing - 1000 / requestsPerSecond;
  const idleExtra = idleExtraMs(requestsPerSecond);
  const line = new WaitingLine();
  let nextAllowedAt = Number.NEGATIVE_INFINITY;
  let pumping = false;
  let pumpSleep: AbortController | undefined;

  const grant = (now: number) => {
    const lateness = now - nextAllowedAt;
    if (lateness >= 0 && lateness <= margin) {
      // Served from the queue by a sleep that ended a little late: anchor on the slot itself, so
      // lateness does not add up into a lower rate. No gap falls below the interval.
      nextAllowedAt += spacing;
    } else if (lateness > spacing) {
      nextAllowedAt = now + spacing + idleExtra;
    } else {
      nextAllowedAt = now + spacing;
    }
  };

  // One loop serves the queue head; it re-reads `nextAllowedAt` after every sleep, so a pause
  // that arrives mid-sleep is honoured without re-arming anything.
  const pump = async () => {
    if (pumping) return;
    pumping = true;
    try {
      while (line.size > 0) {
        const now = clock.now();
        if (now >= nextAllowedAt) {
          grant(now);
          line.grantHead();
          // Places moved: refuse, now, whoever can no longer be served by its deadline.
          if (line.size > 0) line.shedLate(now, nextAllowedAt - now, spacing);
          continue;
        }
        pumpSleep = new AbortController();
        try {
          await clock.sleep(nextAllowedAt - now, pumpSleep.signal);
        } catch {
          // The sleep is cut short only when the queue emptied; the loop condition ends it.
        }
        pumpSleep = undefined;
      }
    } finally {
      pumping = false;
    }
  };

  line.onEmpty = () => pumpSleep?.abort();

  const estimateWaitMs = (priority?: Priority): number =>
    waitForPlace(line.ahead(checkPriority(priority)), nextAllowedAt - clock.now(), spacing);

  return {
    requestsPerSecond,
    acquire(acquireOptions: RateLimiter.AcquireOptions = {}): Promise<void> {
      const { signal } = acquireOptions;
      if (signal?.aborted) return Promise.reject(signal.reason);
      const priority = checkPriority(acquireOptions.priority);
      const now = clock.now();
      if (line.size === 0 && !pumping && now >= nextAllowedAt) {
        grant(now);
        return Promise.resolve();
      }
      if (line.size >= maxQueue) return Promise.reject(new RateLimitQueueFullError(maxQueue));
      const wait = estimateWaitMs(priority);
      if (now + wait > deadlineOn(now, acquireOptions.maxWaitMs))
        return Promise.reject(tooLong(wait, acquireOptions.maxWaitMs!, priority));
      return line.join({ ...acquireOptions, priority }, now, () => void pump());
    },
    pause(ms: number): void {
      if (!(ms > 0)) return;
      nextAllowedAt = Math.max(nextAllowedAt, clock.now() + ms);
      if (line.size > 0) line.shedLate(clock.now(), nextAllowedAt - clock.now(), spacing);
    },
    get queueDepth(): number {
      return line.size;
    },
    kind: 'process',
    estimateWaitMs,
  };
}
