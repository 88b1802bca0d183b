/**
 * One budget per partner in a process: clients built for the same partner and the same service
 * share one limiter by default, since the service counts requests per partner, not per client.
 * @module
 */
import { serviceOf } from './service.js';
import type { RateLimiter } from './rate-limiter.js';
import { createRateLimiter } from './throttle.js';

interface Held {
  deref(): RateLimiter.Local | undefined;
}

// Held weakly where the runtime can (a limiter no client uses any more is collected with its last
// client); where it cannot, held for the process's life, as the clients themselves usually are.
const hold = (limiter: RateLimiter.Local): Held =>
  typeof WeakRef === 'function' ? new WeakRef(limiter) : { deref: () => limiter };
const limiters = new Map<string, Held>();
let sweepAt = 64;

/**
 * The limiter shared by every client of `partnerId` on the service at `baseUrl` that asked for
 * the same `{ requestsPerSecond, maxQueue }`; created on first use.
 */
export function sharedRateLimiter(
  partnerId: string,
  baseUrl: URL,
  options: { requestsPerSecond: number; maxQueue?: number | undefined },
): RateLimiter.Local {
  const key = JSON.stringify([
    partnerId,
    serviceOf(baseUrl),
    options.requestsPerSecond,
    options.maxQueue ?? null,
  ]);
  const found = limiters.get(key)?.deref();
  if (found) return found;
  const limiter = createRateLimiter({
    requestsPerSecond: options.requestsPerSecond,
    maxQueue: options.maxQueue,
  });
  limiters.set(key, hold(limiter));
  // Entries whose limiter was collected go when the map has doubled since the last sweep.
  if (limiters.size >= sweepAt) {
    for (const [entry, held] of limiters) if (!held.deref()) limiters.delete(entry);
    sweepAt = Math.max(64, limiters.size * 2);
  }
  return limiter;
}
