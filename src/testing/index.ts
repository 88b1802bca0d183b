/**
 * `restaurant-partner-sdk/testing`: a stateful, faithful in-memory fake of the Restaurant
 * Reservation Partner Service for partner CI, with its own clock, dialect switches, fault
 * injection, webhook deliveries and a request journal. Use it in-process (`clientOptions`, or MSW
 * through `.handlers`) or as a standalone HTTP server (`startFakeServer` from
 * `restaurant-partner-sdk/testing/node`, or the `restaurant-partner-fake` bin).
 *
 * This entry loads neither `node:http` nor `msw` at import: msw loads where `.handlers` (or
 * `mswHandlers()`) is first used, so `clientOptions()` works without msw installed.
 *
 * @example
 * ```ts
 * import { setupServer } from 'msw/node';
 * import { createFakeService } from 'restaurant-partner-sdk/testing';
 *
 * const fake = createFakeService();
 * const partner = fake.addPartner();
 * const restaurant = fake.addRestaurant({ partnerIds: [partner.partnerId] });
 * const server = setupServer(...fake.handlers);
 * server.listen();
 * ```
 * @module
 */
// Every export is listed by hand: this list is the public surface (what is not here is private).

// The in-process fake, its options and what it hands back.
export { FakeService, createFakeService } from './fake-service.js';
export type {
  FakeClientOptions,
  FakeServiceOptions,
  FakeSnapshot,
  SeedOption,
  WaitForDeliveryOptions,
} from './fake-service.js';
export type { ApplyToAllClientsOptions } from './apply-to-all-clients.js';
export type { MswHandler } from './adapters/msw.js';
export type { SandboxOptions } from './sandboxes.js';

// Its world: partners, restaurants, reservations, faults, deliveries, the journal, dialects.
export type { AddPartnerInput, FakePartner } from './backend/partners.js';
export type { AddRestaurantInput, FakeRestaurant } from './backend/restaurants.js';
export type { FakeReservation } from './backend/backend.js';
export type { AvailabilityConfig } from './backend/state.js';
export type { FaultSpec, OperationName } from './backend/faults.js';
export type { DeliveryChaosInput } from './backend/chaos.js';
export type { DeliveryLogEntry } from './backend/state.js';
export type { JournalEntry } from './backend/journal.js';
export type { Dialect } from './backend/dialects.js';
export { DEMO_PARTNER } from './backend/seed.js';
export { FakeError } from './backend/fake-error.js';

// Its clock, and a rate limiter that follows it (so a suite never sleeps).
export { FakeClock } from './backend/fake-clock.js';
export { createClockRateLimiter, type ClockRateLimiter } from './clock-rate-limiter.js';

// A fake in another process: the standalone server, or a sandbox of it.
export { connectFake, createSandbox } from './remote-fake.js';
export type { CreateSandboxOptions, PartnerCredentials, RemoteFake, RemoteSandbox } from './remote-fake.js';

// A webhook delivery exactly as the fake sends it, for a receiver's tests.
export { buildDelivery } from '../webhooks/delivery.js';
