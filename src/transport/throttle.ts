/**
 * The client's own rate limiter, paced by p-throttle. p-throttle decides when the next slot
 * opens; this module adds what it lacks: a FIFO whose waiting calls can be cancelled one by one,
 * a pause gate for 429 answers and for the margin after an idle spell, a bounded queue and its
 * depth. It runs on real time (`Date.now` and timers), as p-throttle does; a limiter that follows a
 * virtual clock lives with the fake service (`createClockRateLimiter` in `restaurant-partner-sdk/testing`).
 * @module
 */
import pThrottle from 'p-throttle';
import { PartnerSdkError } from '../errors.js';
import type { AcquireOptions, RateLimiter } from './rate-limiter.js';
import type { Waiter } from './waiting-line.js';

/** Options of {@link createRateLimiter}. */
export interface RateLimiterOptions {
  /** Requests allowed per second. The service's limit is 1 per partner. */
  requestsPerSecond: number;
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

/**
 * Extra wait for the grant that follows a grant made after an idle spell. The first request after
 * idle reaches the service later after its grant (connection set-up) than the next one will,
 * which shrinks their gap as the service sees it: measured at about 20 ms on loopback, more with
 * TLS or in a process that just started.
 */
export function idleExtraMs(requestsPerSecond: number): number {
  return Math.min(50, grantSpacingMs(requestsPerSecond) / 2);
}

/**
 * Loads what a process's first request needs: ky, which the transport imports on first use, and
 * with it the runtime's fetch implementation (Node loads its own on first use). Without this, a
 * process's first request reaches the service long after its grant (measured 90-300 ms on a busy
 * host, against 15-35 ms once loaded), and the next grant lands less than an interval after it at
 * the service. Limiters call it when they are created (and the Redis limiter before a process's
 * first grant); it runs once per process.
 */
let firstRequestPrepared: Promise<void> | undefined;
let firstRequestReady = false;
export const prepareFirstRequest = (): Promise<void> =>
  (firstRequestPrepared ??= (async () => {
    try {
      await import('ky');
      await new Response('{}').json();
    } catch {
      // Nothing more to load in this runtime; the first request loads what it needs.
    }
    firstRequestReady = true;
  })());

/** Checks a `requestsPerSecond` option (shared by every limiter of the SDK). */
export function checkRequestsPerSecond(requestsPerSecond: unknown): asserts requestsPerSecond is number {
  if (!(typeof requestsPerSecond === 'number' && requestsPerSecond > 0 && Number.isFinite(requestsPerSecond))) {
    throw new RangeError('requestsPerSecond must be a positive finite number');
  }
}

/** Checks a `maxQueue` option and returns it with its default. */
export function checkMaxQueue(maxQueue: unknown): number {
  if (maxQueue === undefined) return 1000;
  if (!(typeof maxQueue === 'number' && Number.isInteger(maxQueue) && maxQueue >= 0)) {
    throw new RangeError('maxQueue must be an integer >= 0');
  }
  return maxQueue;
}


/** One p-throttle instance with the controller that can drop its pending call. */
interface Engine {
  controller: AbortController;
  /** Runs `serve` when p-throttle grants the next slot: at once (synchronously) when one is free. */
  slot: (serve: () => void) => Promise<void>;
}

/**
 * Creates a rate limiter that grants at most `requestsPerSecond` slots per second, in arrival
 * order, on real time. Each client builds its own (never module-global); pass the same limiter
 * object to several clients of one partner to make them share the budget. Several processes
 * share one budget through `createRedisRateLimiter` (`restaurant-partner-sdk/redis`).
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
  checkRequestsPerSecond(requestsPerSecond);
  if ('clock' in options) {
    // Earlier versions paced on a `clock` option; ignoring it would make a suite sleep for real.
    throw new TypeError('createRateLimiter runs on real time and takes no clock: use createClockRateLimiter({ requestsPerSecond, clock }) from restaurant-partner-sdk/testing');
  }
  const maxQueue = checkMaxQueue(options.maxQueue);
  // Started now, so that it is under way (or done) by the first call.
  void prepareFirstRequest();
  const interval = 1000 / requestsPerSecond;
  const spacing = grantSpacingMs(requestsPerSecond);
  const idleExtra = idleExtraMs(requestsPerSecond);
  const waiters: Waiter[] = [];
  // The pause gate: nobody is granted before this instant (a 429's Retry-After, the idle margin).
  let notBefore = Number.NEGATIVE_INFINITY;
  let gateTimer: ReturnType<typeof setTimeout> | undefined;
  let lastGrantAt = Number.NEGATIVE_INFINITY;

  // p-throttle's windowed mode with a limit of 1 anchors each slot on the previous slot, not on
  // when its timer fired, so timer lateness does not add up into a lower rate. At most one call is
  // ever pending in it, and the slot goes to whoever heads the queue when it opens, so a cancelled
  // call costs no slot.
  const newEngine = (): Engine => {
    const controller = new AbortController();
    const slot = pThrottle({ limit: 1, interval: spacing, signal: controller.signal })(async (serve: () => void) => serve());
    return { controller, slot };
  };
  let engine = newEngine();
  let enginePending = false;

  /**
   * Drops p-throttle's pending call and its memory of past slots; the gate then carries the
   * spacing from the last real grant, so a fresh engine's first, immediate slot is never early.
   */
  const resetEngine = () => {
    if (enginePending) engine.controller.abort(new Error('rate limiter engine reset'));
    engine = newEngine();
    enginePending = false;
    notBefore = Math.max(notBefore, lastGrantAt + spacing);
  };

  const grantHead = (at: number) => {
    const waiter = waiters.shift()!;
    if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
    // A grant after an idle spell: the one after it keeps the idle margin.
    if (at - lastGrantAt > 2 * spacing) notBefore = Math.max(notBefore, at + spacing + idleExtra);
    lastGrantAt = at;
    waiter.resolve();
  };

  let preparing = false;

  /** Asks for the next slot for the queue head, unless a wait (p-throttle's or the gate's) is already on. */
  const serveQueue = () => {
    if (waiters.length === 0 || enginePending || gateTimer !== undefined || preparing) return;
    if (!firstRequestReady) {
      // The process's first request would wait for ky after its grant anyway: wait before the
      // grant instead, so the request leaves as soon as it is granted.
      preparing = true;
      void prepareFirstRequest().then(() => {
        preparing = false;
        serveQueue();
      });
      return;
    }
    const now = Date.now();
    if (now < notBefore) {
      gateTimer = setTimeout(() => {
        gateTimer = undefined;
        serveQueue();
      }, notBefore - now);
      return;
    }
    const current = engine;
    enginePending = true;
    current
      .slot(() => {
        if (current !== engine) return;
        enginePending = false;
        const at = Date.now();
        // A pause that arrived during p-throttle's wait, or nobody left: decide again.
        if (waiters.length === 0 || at < notBefore) return serveQueue();
        if (at - lastGrantAt < interval) {
          // The previous grant's timer fired so late that this slot, anchored on the previous
          // slot, would come closer than one interval after it: hold this one back instead.
          resetEngine();
          return serveQueue();
        }
        grantHead(at);
        serveQueue();
      })
      // Rejected only by a reset, which already decided what comes next.
      .catch(() => undefined);
  };

  /** Takes a waiting call out of the queue without spending a slot. */
  const leave = (waiter: Waiter) => {
    const index = waiters.indexOf(waiter);
    if (index >= 0) waiters.splice(index, 1);
    if (waiters.length === 0) {
      // Nobody left to serve: no timer outlives the queue, and no slot is spent on nobody.
      clearTimeout(gateTimer);
      gateTimer = undefined;
      if (enginePending) resetEngine();
    }
  };

  return {
    acquire(acquireOptions: AcquireOptions = {}): Promise<void> {
      const { signal } = acquireOptions;
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (waiters.length >= maxQueue && waiters.length > 0) return Promise.reject(new RateLimitQueueFullError(maxQueue));
      return new Promise<void>((resolve, reject) => {
        const waiter: Waiter = { resolve, signal, onAbort: undefined };
        waiters.push(waiter);
        // A free slot is granted right here, synchronously; otherwise the call waits its turn.
        serveQueue();
        if (!waiters.includes(waiter)) return;
        if (waiters.length > maxQueue) {
          leave(waiter);
          reject(new RateLimitQueueFullError(maxQueue));
          return;
        }
        if (signal) {
          waiter.onAbort = () => {
            leave(waiter);
            reject(signal.reason);
          };
          signal.addEventListener('abort', waiter.onAbort, { once: true });
        }
      });
    },
    pause(ms: number): void {
      if (!(ms > 0)) return;
      notBefore = Math.max(notBefore, Date.now() + ms);
    },
    get queueDepth(): number {
      return waiters.length;
    },
  };
}
