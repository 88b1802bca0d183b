/**
 * The service's rate limit: "1 request per second per partner ... beyond it the response is 429"
 * (spec, Limits). A sliding window per partner on the fake's clock; refused requests do not
 * count, so a client that waits as told always gets through.
 * @module
 */

/** Rate-limit setting: requests per second per partner, or `false` for no limit. */
export type RateLimitSetting = number | false;

/** Outcome of one admission check. */
export type Admission = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** A sliding-window limiter keyed by partner. */
export class SlidingWindowLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  #recent = new Map<string, number[]>();

  /**
   * Allows `ceil(rps)` requests in any window of `ceil(rps) / rps` seconds: 2 per second as 2 in
   * 1 s, 2.5 per second as 3 in 1.2 s, 0.5 per second as 1 in 2 s. Over time exactly `rps`.
   */
  constructor(readonly requestsPerSecond: number) {
    if (!(requestsPerSecond > 0 && Number.isFinite(requestsPerSecond))) {
      throw new RangeError('rate limit must be a positive number of requests per second, or false');
    }
    this.#limit = Math.ceil(requestsPerSecond);
    this.#windowMs = (1000 * this.#limit) / requestsPerSecond;
  }

  /** Counts the request if it fits in the window; otherwise says how long to wait (whole seconds, at least 1). */
  admit(partnerId: string, now: number): Admission {
    const admission = this.peek(partnerId, now);
    if (admission.allowed) this.count(partnerId, now);
    return admission;
  }

  /** Whether a request would fit now, without counting it. */
  peek(partnerId: string, now: number): Admission {
    const recent = (this.#recent.get(partnerId) ?? []).filter((at) => at > now - this.#windowMs);
    this.#recent.set(partnerId, recent);
    if (recent.length < this.#limit) return { allowed: true };
    const waitMs = recent[0]! + this.#windowMs - now;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  /** Counts a request admitted now. */
  count(partnerId: string, now: number): void {
    const recent = this.#recent.get(partnerId) ?? [];
    recent.push(now);
    this.#recent.set(partnerId, recent);
  }

  /** Forgets every window (reset). */
  clear(): void {
    this.#recent.clear();
  }
}

/**
 * The rate limit of one world: its setting and the windows that count it, on the fake's clock and,
 * for callers that do not sleep on a frozen fake clock, on real time too.
 */
export class WorldRateLimit {
  #setting: RateLimitSetting = false;
  #limiter: SlidingWindowLimiter | undefined;
  #realTimeLimiter: SlidingWindowLimiter | undefined;

  get setting(): RateLimitSetting {
    return this.#setting;
  }

  /** Changes the rate limit (windows start afresh). */
  set(setting: RateLimitSetting): void {
    this.#setting = setting;
    this.#limiter = setting === false ? undefined : new SlidingWindowLimiter(setting);
    this.#realTimeLimiter = setting === false ? undefined : new SlidingWindowLimiter(setting);
  }

  /**
   * Counts a request against the partner's window on the fake's clock. On a frozen clock, a caller
   * that does not sleep on the fake's clock (MSW with the app's own client, real HTTP) waits in
   * real time as told, and a window on a clock that never moves would refuse it for ever: for it,
   * the request passes when it fits the window on the fake's clock or on real time.
   * `fake.clientOptions()` sleeps on the fake's clock and is counted on it alone.
   */
  admit(partnerId: string, clock: { now(): number; frozen: boolean }, onFakeClock: boolean): Admission {
    if (!this.#limiter || !this.#realTimeLimiter) return { allowed: true };
    const fakeNow = clock.now();
    if (!clock.frozen || onFakeClock) return this.#limiter.admit(partnerId, fakeNow);
    const realNow = performance.now();
    const onFake = this.#limiter.peek(partnerId, fakeNow);
    const onReal = this.#realTimeLimiter.peek(partnerId, realNow);
    if (onFake.allowed || onReal.allowed) {
      this.#limiter.count(partnerId, fakeNow);
      this.#realTimeLimiter.count(partnerId, realNow);
      return { allowed: true };
    }
    return {
      allowed: false,
      retryAfterSeconds: Math.min(onFake.retryAfterSeconds, onReal.retryAfterSeconds),
    };
  }
}
