/**
 * The client's own rate limiter. It runs on the {@link Clock} interface (so a fake service's
 * virtual clock can drive it and a test suite never sleeps), lets one queued call be cancelled
 * without touching the others, and pauses the whole bucket when the service answers 429.
 * p-throttle can do none of these three, which is why this module exists.
 * @module
 */
import { PartnerSdkError } from '../errors.js';
import { systemClock, type Clock } from './clock.js';
import type { AcquireOptions, RateLimiter } from './rate-limiter.js';

/** Options of {@link createRateLimiter}. */
export interface RateLimiterOptions {
  /** Requests allowed per second. The spec's limit is 1 per partner. */
  requestsPerSecond: number;
  /** Time source for waits; defaults to the real clock. */
  clock?: Clock;
  /** Most calls allowed to wait at once; one more is refused with {@link RateLimitQueueFullError}. Default 1000. */
  maxQueue?: number;
}

/** The limiter's queue was full: the caller is producing requests faster than the limit drains them. */
export class RateLimitQueueFullError extends PartnerSdkError {
  override name = 'RateLimitQueueFullError';
  /** The queue bound that was reached. */
  readonly maxQueue: number;
  constructor(maxQueue: number) {
    super(`Rate-limit queue is full (${maxQueue} calls waiting); slow down or raise maxQueue`);
    this.maxQueue = maxQueue;
  }
}
/** True when a call was refused because the rate limiter's queue was full. */
export const isRateLimitQueueFullError = (error: unknown): error is RateLimitQueueFullError => error instanceof RateLimitQueueFullError;

/**
 * Spacing between two grants. The service counts requests in a window on its own clock, and two
 * requests granted exactly one interval apart can land in the same window after network jitter,
 * so each grant keeps a small margin: 1 % plus 5 ms, but never more than 2 % of the interval,
 * which keeps throughput at 98 % of the limit or better at any rate.
 */
export function grantSpacingMs(requestsPerSecond: number): number {
  const interval = 1000 / requestsPerSecond;
  return interval + Math.min(interval * 0.01 + 5, interval * 0.02);
}

interface Waiter {
  resolve: () => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * Creates a rate limiter that grants at most `requestsPerSecond` slots per second, in arrival
 * order. Each client builds its own (never module-global); pass the same limiter object to several
 * clients of one partner to make them share the budget.
 *
 * @example
 * ```ts
 * const limiter = createRateLimiter({ requestsPerSecond: 1 });
 * const a = new PartnerClient({ ...credentials, rateLimit: limiter });
 * const b = new PartnerClient({ ...credentials, rateLimit: limiter }); // same budget as `a`
 * ```
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { requestsPerSecond } = options;
  if (!(typeof requestsPerSecond === 'number' && requestsPerSecond > 0 && Number.isFinite(requestsPerSecond))) {
    throw new RangeError('requestsPerSecond must be a positive finite number');
  }
  const clock = options.clock ?? systemClock;
  const maxQueue = options.maxQueue ?? 1000;
  const spacing = grantSpacingMs(requestsPerSecond);
  const margin = spacing - 1000 / requestsPerSecond;
  // The first request after an idle spell reaches the service later after its grant (connection
  // set-up) than the next one will, which shrinks their gap as the service sees it; measured at
  // about 20 ms on loopback, more with TLS. The grant that follows it keeps this much extra.
  const idleExtraMs = Math.min(50, spacing / 2);
  const waiters: Waiter[] = [];
  let nextAllowedAt = Number.NEGATIVE_INFINITY;
  let pumping = false;
  let pumpSleep: AbortController | undefined;

  const grant = (now: number) => {
    const lateness = now - nextAllowedAt;
    if (lateness >= 0 && lateness <= margin) {
      // Served from the queue by a timer that fired a little late: anchor on the slot itself, so
      // timer lateness does not add up into a lower rate. No gap falls below the interval.
      nextAllowedAt += spacing;
    } else if (lateness > spacing) {
      nextAllowedAt = now + spacing + idleExtraMs;
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
      while (waiters.length > 0) {
        const now = clock.now();
        if (now >= nextAllowedAt) {
          const waiter = waiters.shift()!;
          if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
          grant(now);
          waiter.resolve();
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

  return {
    acquire(acquireOptions: AcquireOptions = {}): Promise<void> {
      const { signal } = acquireOptions;
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (waiters.length === 0 && !pumping && clock.now() >= nextAllowedAt) {
        grant(clock.now());
        return Promise.resolve();
      }
      if (waiters.length >= maxQueue) return Promise.reject(new RateLimitQueueFullError(maxQueue));
      return new Promise<void>((resolve, reject) => {
        const waiter: Waiter = { resolve, signal, onAbort: undefined };
        if (signal) {
          waiter.onAbort = () => {
            const index = waiters.indexOf(waiter);
            if (index >= 0) waiters.splice(index, 1);
            // Nobody left to serve: stop the pending sleep so no timer outlives the queue.
            if (waiters.length === 0) pumpSleep?.abort();
            reject(signal.reason);
          };
          signal.addEventListener('abort', waiter.onAbort, { once: true });
        }
        waiters.push(waiter);
        void pump();
      });
    },
    pause(ms: number): void {
      if (!(ms > 0)) return;
      nextAllowedAt = Math.max(nextAllowedAt, clock.now() + ms);
    },
    get queueDepth(): number {
      return waiters.length;
    },
  };
}
