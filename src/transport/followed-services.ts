/**
 * The one piece of process-wide state the client reads on every call: services whose clock and
 * rate limit a test fake has taken over (`fake.applyToAllClients()` from
 * `restaurant-partner-sdk/testing`). An app that builds its own `PartnerClient` then paces, backs
 * off and waits on the fake's clock without being rewritten to accept injected options.
 *
 * Only code in the process can add an entry (nothing a server answers reaches it), an entry names
 * one service (origin, loopback names as one) and applies to no other, and the function that
 * added it removes it. Held under a `Symbol.for` key, so every copy of this package in a process
 * (the core entry and the testing entry bundled apart) sees the same entries.
 * @module
 */
import type { Clock } from './clock.js';
import type { RateLimiter } from './rate-limiter.js';
import { serviceOrigin } from './service.js';

/** What a followed service imposes on every client that talks to it. */
export interface FollowedService {
  /** The clock retry back-off, look-up windows, deadlines and polling run on. */
  readonly clock: Clock;
  /** The limiter a partner's calls wait on (the client's own is set aside while followed). */
  limiterFor(partnerId: string): RateLimiter;
}

const REGISTRY = Symbol.for('restaurant-partner-sdk.followed-services.v1');

/** Per service, the entries in the order they were added: the latest is in force. */
type Registry = Map<string, FollowedService[]>;

function registry(): Registry {
  const holder = globalThis as { [REGISTRY]?: Registry };
  holder[REGISTRY] ??= new Map();
  return holder[REGISTRY];
}

/** The origin key of a base URL (a fake answers on a whole origin), or undefined when it does not parse (such a client never follows). */
function keyOf(baseUrl: string): string | undefined {
  return URL.canParse(baseUrl) ? serviceOrigin(baseUrl) : undefined;
}

/**
 * Makes every client of the service at `baseUrl` follow `followed` from its next call on.
 * Returns a function that undoes exactly this entry (a second call does nothing).
 */
export function followService(baseUrl: string, followed: FollowedService): () => void {
  const key = keyOf(baseUrl);
  if (key === undefined) throw new TypeError(`not an absolute URL: ${JSON.stringify(baseUrl)}`);
  const entries = registry().get(key) ?? [];
  entries.push(followed);
  registry().set(key, entries);
  return () => {
    const current = registry().get(key);
    const index = current?.lastIndexOf(followed) ?? -1;
    if (!current || index < 0) return;
    current.splice(index, 1);
    if (current.length === 0) registry().delete(key);
  };
}

/** Whether the service at `baseUrl` is followed by this entry already. */
export function isFollowedBy(baseUrl: string, followed: FollowedService): boolean {
  const key = keyOf(baseUrl);
  return key !== undefined && (registry().get(key)?.includes(followed) ?? false);
}

/** The entry in force for the service at `baseUrl`, if any (read by the transport at each call). */
export function followedService(baseUrl: string): FollowedService | undefined {
  const holder = globalThis as { [REGISTRY]?: Registry };
  const entries = holder[REGISTRY];
  if (!entries || entries.size === 0) return undefined;
  const key = keyOf(baseUrl);
  return key === undefined ? undefined : entries.get(key)?.at(-1);
}
