/**
 * The client's own rate limiter, paced by p-throttle. p-throttle decides when the next slot
 * opens; this module adds what it lacks: a queue whose waiting calls can be cancelled one by one,
 * interactive calls before background ones, a pause gate for 429 answers, a margin after an idle
 * spell, a bounded queue and its depth, a refusal at once for a call whose place puts it
 * past its deadline, and the service's window counted from each request's answer
 * ({@link RequestWindow}). It runs on real time (`Date.now` and timers), as p-throttle does; a limiter that follows a
 * virtual clock lives with the fake service (`createClockRateLimiter` in `restaurant-partner-sdk/testing`).
 * @module
 */
import { nameErrorClass, PartnerSdkError } from '../errors/base.js';
import { type RateLimiter, checkPriority, type Priority } from './rate-limiter.js';
import { firstRequestIsReady, newPacer, prepareFirstRequest, type Slot } from './pacer.js';
import { RequestWindow } from './request-window.js';

export { prepareFirstRequest } from './pacer.js';
import { deadlineOn, tooLong, waitForPlace, WaitingLine } from './waiting-line.js';

/** Options of {@link createRateLimiter}. */
export interface RateLimiterOptions {
  /** Requests allowed per second. The service's limit is 1 per partner. */
  requestsPerSecond: number;
  /** Most calls allowed to wait at once; one more is refused with {@link RateLimitQueueFullError}. Default 1000. */
  maxQueue?: number;
}

/** The limiter's queue was full: the caller is producing requests faster than the limit drains them. Retryable: the queue drains. */
export class RateLimitQueueFullError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'RateLimitQueueFullError');
  }
  /** The queue bound that was reached. */
  readonly maxQueue: number;
  constructor(maxQueue: number) {
    super(`Rate-limit queue is full (${maxQueue} calls waiting); slow down or raise maxQueue`, {
      retryable: true,
    });
    this.maxQueue = maxQueue;
  }
}

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

/** Checks a `requestsPerSecond` option (shared by every limiter of the SDK). */
export function checkRequestsPerSecond(requestsPerSecond: unknown): asserts requestsPerSecond is number {
  if (!(
    typeof requestsPerSecond === 'number' &&
    requestsPerSecond > 0 &&
    Number.isFinite(requestsPerSecond)
  )) {
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

/** One pacer instance with the controller that can drop its pending call. */
interface Engine {
  controller: AbortController;
  slot: Slot;
}

/**
 * How many grants the service may see in one window, and that window: `requestsPerSecond` per
 * second counted as whole requests (0.5 per second is 1 per 2 s; 2.5 per second is 2 per 800 ms).
 */
export function serviceWindow(requestsPerSecond: number): { count: number; ms: number } {
  const count = Math.max(1, Math.floor(requestsPerSecond));
  return { count, ms: (count * 1000) / requestsPerSecond };
}

/**
 * Creates a rate limiter that grants at most `requestsPerSecond` slots per second on real time:
 * interactive calls first, each priority in arrival order. Clients of one partner and one service
 * share one by default; pass the same limiter object to several clients to share it explicitly.
 * Several processes share one budget through `createRedisRateLimiter` (`restaurant-partner-sdk/redis`).
 *
 * @example
 * ```ts
 * const limiter = createRateLimiter({ requestsPerSecond: 1 });
 * const a = new PartnerClient({ ...credentials, rateLimit: limiter });
 * const b = new PartnerClient({ ...credentials, rateLimit: limiter }); // same budget as `a`
 * ```
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter.Local {
  const { requestsPerSecond } = options;
  checkRequestsPerSecond(requestsPerSecond);
  if ('clock' in options) {
    // Earlier versions paced on a `clock` option; ignoring it would make a suite sleep for real.
    throw new TypeError(
      'createRateLimiter runs on real time and takes no clock: use createClockRateLimiter({ requestsPerSecond, clock }) from restaurant-partner-sdk/testing',
    );
  }
  const maxQueue = checkMaxQueue(options.maxQueue);
  // Started now, so that it is under way (or done) by the first call.
  void prepareFirstRequest();
  const interval = 1000 / requestsPerSecond;
  const spacing = grantSpacingMs(requestsPerSecond);
  const idleExtra = idleExtraMs(requestsPerSecond);
  // The requests the service may still count: no grant puts more in its window than it allows,
  // whatever the timers did and however late each request reached it.
  const window = serviceWindow(requestsPerSecond);
  const requests = new RequestWindow(window, spacing - interval);
  // Where the service allows several requests per window, the window above keeps the margin
  // against late arrivals (measured from answers, or the spacing's margin over a whole window for
  // slots nobody reports on), so the pacer keeps only a quarter of the spacing's margin: the rate
  // comes within 0.5 % of the limit while answers come quickly, and a late answer holds back only
  // the grant a window after it.
  const pace = window.count > 1 ? interval + (spacing - interval) / 4 : spacing;
  const line = new WaitingLine<RateLimiter.Slot>();
  // The pause gate: nobody is granted before this instant (a 429's Retry-After).
  let notBefore = Number.NEGATIVE_INFINITY;
  let gateTimer: ReturnType<typeof setTimeout> | undefined;
  let lastGrantAt = Number.NEGATIVE_INFINITY;
  // Whether the queue emptied since the last grant: a late grant is an idle spell only then (with
  // callers queued all along it is a late timer, and the connection is warm).
  let drained = true;
  // When the queue last started being served after it had emptied.
  let busySince = Number.NEGATIVE_INFINITY;

  // The pacer anchors each slot on the previous slot, not on when its timer fired, so timer
  // lateness under one interval does not add up into a lower rate; slots a longer stall of the
  // event loop made late are made up after it (see `makeUpLateSlots`). At most one call is ever
  // pending in it, and the slot goes to whoever heads the queue when it opens, so a cancelled
  // call costs no slot.
  const newEngine = (): Engine => {
    const controller = new AbortController();
    return { controller, slot: newPacer(pace, controller.signal) };
  };
  let engine: Engine | undefined;
  let enginePending = false;

  /**
   * Drops the pacer's pending call and its memory of past slots; the gate then carries the
   * spacing from the last real grant, so a fresh engine's first, immediate slot is never early.
   */
  const resetEngine = () => {
    if (enginePending) engine?.controller.abort(new Error('rate limiter engine reset'));
    engine = undefined;
    enginePending = false;
    notBefore = Math.max(notBefore, lastGrantAt + pace);
  };

  /** When the next grant could happen, counted from `now` (0 when a slot is free). */
  const nextSlotInMs = (now: number) => Math.max(0, Math.max(notBefore, lastGrantAt + spacing) - now);

  const grantHead = (at: number) => {
    // A grant after an idle spell counts in the service's window with the idle margin until its
    // answer tells when it really arrived: the grant after it keeps the margin only then.
    const afterIdle = drained && at - lastGrantAt > 2 * spacing;
    if (drained) busySince = at;
    lastGrantAt = at;
    line.grantHead(requests.grant(at, afterIdle ? idleExtra : 0));
    drained = line.size === 0;
    // Places moved (an interactive call may have gone ahead of background ones): refuse, now,
    // whoever can no longer be served by its deadline.
    if (line.size > 0) line.shedLate(at, spacing, spacing);
  };

  // As many slots as the pacing gives in one of the service's windows.
  const slotsPerWindow = Math.floor(window.ms / pace);

  /**
   * Grants at once the slots a stall of the event loop (a busy process, a collection of garbage,
   * a host that ran something else) made the pacer miss: p-throttle anchors each slot on the
   * previous one, so a timer late by less than an interval is made up by the next slot, but a
   * longer stall is lost for good, and with hundreds of callers in one process stalls of 30-500
   * ms come every few seconds. The service's window tells how many slots were missed: on pace, it
   * holds as many requests as the pacing gives per window (fewer since the queue started being
   * served); whatever it lacks beyond one slot is granted now, while the window allows it.
   */
  const makeUpLateSlots = (at: number) => {
    const onPace = Math.min(slotsPerWindow, Math.floor((at - busySince) / pace));
    let missed = onPace - requests.size(at);
    while (missed-- > 0 && line.size > 0 && at >= notBefore && requests.openAt(at) <= at) grantHead(at);
  };

  let preparing = false;

  /** Asks for the next slot for the queue head, unless a wait (the pacer's or the gate's) is already on. */
  const serveQueue = () => {
    if (line.size === 0 || enginePending || gateTimer !== undefined || preparing) return;
    if (!firstRequestIsReady()) {
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
    // The service's window decides before the pacer does: a slot is never spent on a grant the
    // window would refuse.
    const opensAt = Math.max(notBefore, requests.openAt(now));
    if (now < opensAt) {
      gateTimer = setTimeout(() => {
        gateTimer = undefined;
        serveQueue();
      }, opensAt - now);
      return;
    }
    const current = (engine ??= newEngine());
    enginePending = true;
    current
      .slot(() => {
        if (current !== engine) return;
        enginePending = false;
        const at = Date.now();
        // A pause came during the pacer's wait, or nobody is left: decide again.
        if (line.size === 0 || at < notBefore) return serveQueue();
        if (requests.openAt(at) > at) {
          // An answer showed a request reached the service later than its grant: the window
          // opens a little later. The pacer counted this slot as spent and would open the next
          // one a whole spacing on; a fresh one grants as soon as the window opens.
          resetEngine();
          return serveQueue();
        }
        grantHead(at);
        makeUpLateSlots(at);
        serveQueue();
      })
      // Rejected only by a reset, which already decided what comes next.
      .catch(() => undefined);
  };

  // An answer can open the window sooner than the margin it replaces: a wait for room looks again.
  requests.onMovedEarlier = () => {
    if (gateTimer === undefined || line.size === 0) return;
    clearTimeout(gateTimer);
    gateTimer = undefined;
    serveQueue();
  };

  // Nobody left to serve: no timer outlives the queue, and no slot is spent on nobody.
  line.onEmpty = () => {
    drained = true;
    clearTimeout(gateTimer);
    gateTimer = undefined;
    if (enginePending) resetEngine();
  };

  const estimateWaitMs = (priority?: Priority): number => {
    const now = Date.now();
    return waitForPlace(
      line.ahead(checkPriority(priority)),
      line.size > 0 ? Math.max(nextSlotInMs(now), 1) : nextSlotInMs(now),
      spacing,
    );
  };

  return {
    kind: 'process',
    requestsPerSecond,
    acquire(acquireOptions: RateLimiter.AcquireOptions = {}): Promise<RateLimiter.Slot> {
      const { signal } = acquireOptions;
      if (signal?.aborted) return Promise.reject(signal.reason);
      const priority = checkPriority(acquireOptions.priority);
      if (line.size >= maxQueue && line.size > 0)
        return Promise.reject(new RateLimitQueueFullError(maxQueue));
      const now = Date.now();
      const wait = line.size > 0 || !firstRequestIsReady() ? estimateWaitMs(priority) : nextSlotInMs(now);
      if (now + wait > deadlineOn(now, acquireOptions.maxWaitMs))
        return Promise.reject(tooLong(wait, acquireOptions.maxWaitMs!, priority));
      // A free slot is granted right here, synchronously; otherwise the call waits its turn.
      return line.join(
        { ...acquireOptions, priority },
        now,
        serveQueue,
        maxQueue,
        () => new RateLimitQueueFullError(maxQueue),
      );
    },
    pause(ms: number): void {
      if (!(ms > 0)) return;
      notBefore = Math.max(notBefore, Date.now() + ms);
      if (line.size > 0) line.shedLate(Date.now(), nextSlotInMs(Date.now()), spacing);
    },
    get queueDepth(): number {
      return line.size;
    },
    estimateWaitMs,
  };
}
