/**
 * The sync's share of the partner's rate. Reconciliation reads wait here, then on the client's
 * own limiter at background priority, so they never take more than `budgetShare` of the rate over
 * any 10 s window, and an interactive call finds at most one of them ahead of it.
 * @module
 */
import type { Clock } from '../transport/clock.js';
import type { RateLimiter } from '../transport/rate-limiter.js';

/** The window over which the share is kept. */
export const BUDGET_WINDOW_MS = 10_000;

/** The partner's rate as the client's limiter states it; 1 request per second (the spec's limit) when it does not say. */
export function partnerRate(limiter: RateLimiter | undefined): number {
  const stated = limiter?.requestsPerSecond;
  return typeof stated === 'number' && stated > 0 && Number.isFinite(stated) ? stated : 1;
}

/**
 * Least time between two of the sync's requests. With n = floor(share x rate x 10 s) requests
 * allowed per window, n >= 1 spaced 10 s / n apart never put more than n in any 10 s window; when
 * the share is under one request per window, requests are spaced 1 / (share x rate) apart, the
 * share on average. A 1 % margin keeps two grants at exactly the spacing out of one window.
 */
export function backgroundSpacingMs(requestsPerSecond: number, budgetShare: number): number {
  const perWindow = Math.floor(requestsPerSecond * budgetShare * (BUDGET_WINDOW_MS / 1000) + 1e-9);
  const spacing = perWindow >= 1 ? BUDGET_WINDOW_MS / perWindow : 1000 / (requestsPerSecond * budgetShare);
  return spacing * 1.01;
}

/**
 * A limiter for the sync's own copy of the client: each attempt (pages and retries included) waits
 * for the spacing after the previous one was granted, then for the partner's limiter at
 * background priority. Attempts go one at a time, so the partner's queue never holds more than one
 * of the sync's, and the spacing counts from the moment each was really granted.
 */
export function createBackgroundLimiter(
  inner: RateLimiter | undefined,
  clock: Clock,
  spacingMs: number,
): RateLimiter.Paced {
  let lastGrantAt = Number.NEGATIVE_INFINITY;
  let turn: Promise<unknown> = Promise.resolve();
  let waiting = 0;
  return {
    requestsPerSecond: 1000 / spacingMs,
    acquire(options: RateLimiter.AcquireOptions = {}) {
      const { signal } = options;
      const askedAt = clock.now();
      waiting += 1;
      const mine = turn.then(async () => {
        signal?.throwIfAborted();
        // Never more than the spacing: a clock set back would otherwise make it hours.
        const wait = Math.min(spacingMs, lastGrantAt + spacingMs - clock.now());
        if (wait > 0) await clock.sleep(wait, signal);
        // The call's time left shrank by the wait here.
        const maxWaitMs =
          options.maxWaitMs === undefined
            ? undefined
            : Math.max(0, options.maxWaitMs - (clock.now() - askedAt));
        const slot = await inner?.acquire({ ...options, priority: 'background', maxWaitMs });
        lastGrantAt = clock.now();
        // Handed on, so the client reports the request's end to the partner's limiter.
        return slot;
      });
      turn = mine.catch(() => undefined);
      return mine.finally(() => {
        waiting -= 1;
      });
    },
    pause(ms: number) {
      return inner?.pause(ms);
    },
    get queueDepth() {
      return waiting;
    },
    estimateWaitMs() {
      return Math.max(0, Math.min(spacingMs, lastGrantAt + spacingMs - clock.now())) + waiting * spacingMs;
    },
  };
}
