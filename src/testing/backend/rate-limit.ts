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
