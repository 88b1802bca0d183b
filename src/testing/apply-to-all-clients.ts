/**
 * `fake.applyToAllClients()`: every `PartnerClient` of the process that talks to a service this
 * fake answers paces, backs off and waits on the fake's clock and at the fake's rate limit, the
 * clients built before the call included, with no change to the app. It writes to the one
 * process-wide registry of followed services the client reads, for the fake's
 * own base URL, the URLs given, and each origin the fake's MSW handlers serve while it is on.
 * @module
 */
import type { Clock } from '../transport/clock.js';
import { followService, isFollowedBy, type FollowedService } from '../transport/followed-services.js';
import type { RateLimiter } from '../transport/rate-limiter.js';
import { createClockRateLimiter } from './clock-rate-limiter.js';
import type { RateLimitSetting } from './backend/rate-limit.js';

/** Options of `fake.applyToAllClients()`. */
export interface ApplyToAllClientsOptions {
  /**
   * More base URLs the fake answers (your app's configured one, say). The fake's own `baseUrl` is
   * always included, and so is each origin its MSW handlers serve while this is on.
   */
  baseUrls?: readonly string[];
}

/** A limiter that never waits: the fake's rate limit is off. */
const unlimited: RateLimiter = {
  acquire: () => Promise.resolve(),
  pause: () => undefined,
  queueDepth: 0,
};

/** What one fake needs to say about itself. */
export interface FollowSource {
  readonly clock: Clock;
  readonly baseUrl: string;
  readonly rateLimit: RateLimitSetting;
}

/** The applications in force of one fake, so its MSW handlers can add origins they serve. */
export class ClientFollowing {
  readonly #active = new Set<{ followed: FollowedService; undo: (() => void)[] }>();

  constructor(private readonly source: FollowSource) {}

  /** Starts one application; the function returned ends it (a second call does nothing). */
  apply(options: ApplyToAllClientsOptions = {}): () => void {
    const baseUrls = options.baseUrls ?? [];
    if (!Array.isArray(baseUrls) || baseUrls.some((url) => typeof url !== 'string' || !URL.canParse(url)))
      throw new TypeError('applyToAllClients: baseUrls must be a list of absolute URLs');
    const source = this.source;
    // One limiter per partner and rate, on the fake's clock: every client of a partner shares it.
    const limiters = new Map<string, RateLimiter>();
    const followed: FollowedService = {
      clock: source.clock,
      limiterFor(partnerId) {
        const rate = source.rateLimit;
        if (rate === false) return unlimited;
        const key = `${partnerId} ${rate}`;
        let limiter = limiters.get(key);
        if (!limiter) {
          limiter = createClockRateLimiter({ requestsPerSecond: rate, clock: source.clock });
          limiters.set(key, limiter);
        }
        return limiter;
      },
    };
    const application = { followed, undo: [] as (() => void)[] };
    // Checked above: every one a string.
    for (const url of [source.baseUrl, ...(baseUrls as readonly string[])])
      if (!isFollowedBy(url, followed)) application.undo.push(followService(url, followed));
    this.#active.add(application);
    return () => {
      if (!this.#active.delete(application)) return;
      for (const undo of application.undo) undo();
    };
  }

  /** The MSW handlers served a request to `url`: its service follows the fake from the next call. */
  served(url: string): void {
    for (const application of this.#active) {
      if (!isFollowedBy(url, application.followed))
        application.undo.push(followService(new URL(url).origin, application.followed));
    }
  }
}
