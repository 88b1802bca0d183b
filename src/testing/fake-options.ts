/**
 * What a partner gets from a `FakeService` besides its methods: the client options it hands out,
 * its snapshot, and what its seed description answers.
 * Kept apart from the class so the remote fake (`remote-fake.ts`) shares them without loading it.
 * @module
 */
import type { Clock } from '../transport/clock.js';
import type { RateLimiter } from '../transport/rate-limiter.js';
import type { StateCopy } from './backend/backend.js';
import type { FakePartner } from './backend/partners.js';
import type { FakeRestaurant } from './backend/restaurants.js';

/** Options that make a `PartnerClient` talk to this fake in-process, on the fake's clock. */
export interface FakeClientOptions {
  baseUrl: string;
  partnerId: string;
  apiToken: string;
  rateLimit: RateLimiter | false;
  clock: Clock;
  fetch: typeof fetch;
}

/** An opaque copy of the fake's state (`fake.snapshot()`), for `fake.restore()`. */
export type FakeSnapshot = StateCopy;

/** What the standalone server prints on start and `POST /_fake/reset` answers. */
export interface SeedDescription {
  partners: FakePartner[];
  restaurants: FakeRestaurant[];
}
