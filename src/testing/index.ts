/**
 * `restaurant-partner-sdk/testing`: a stateful, faithful in-memory fake of the Restaurant
 * Reservation Partner Service for partner CI, with its own clock, dialect switches, fault
 * injection and webhook deliveries. Use it in-process (MSW or `clientOptions`) or as a standalone
 * HTTP server (`startFakeServer`, or the `restaurant-partner-fake` bin).
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
import { createMswHandlers } from './msw.js';
import { FakeService, type FakeServiceOptions } from './service.js';
import { startFakeServer as startCoreServer, type FakeServerOptions, type RunningFakeServer } from './node-server.js';

/**
 * Creates a fake service. `.handlers` are ready for MSW's `setupServer(...)`; `.handle(request)`
 * serves a fetch `Request` directly; `.clientOptions(partner)` builds `PartnerClient` options.
 */
export function createFakeService(options: FakeServiceOptions = {}): FakeService {
  const fake = new FakeService(options);
  fake.handlers = createMswHandlers(fake);
  return fake;
}

/** Starts the fake on `node:http` (loopback, free port by default); its fake also has MSW handlers. */
export function startFakeServer(options: FakeServerOptions = {}): Promise<RunningFakeServer> {
  return startCoreServer({ ...options, fake: options.fake ?? createFakeService(options) });
}

export { FakeService, createFakeCore } from './service.js';
export type { FakeServiceOptions, FakeClientOptions, FakeSnapshot, HandleContext, SeedDescription } from './service.js';
export type { FakeServerOptions, RunningFakeServer } from './node-server.js';
export { FakeClock, type FakeClockOptions } from './clock.js';
export { defaultDialect, resolveDialect, type Dialect } from './dialects.js';
export { OPERATIONS, type FaultSpec, type OperationName, type ActiveFault } from './faults.js';
export { FakeControlError, isFakeControlError, CONTROL_ROUTES, type AddPartnerInput, type AddRestaurantInput, type FakePartner, type FakeRestaurant } from './control.js';
export { defaultAvailability } from './availability.js';
export { DEMO_PARTNER, type SeedOption } from './seed.js';
export { DEFAULT_RETRY_DELAYS_MS, type DeliveryHandler, type DeliveryOptions } from './deliveries.js';
export type { AvailabilityConfig, OpeningPeriod, DurationRule, DeliveryLogEntry, ConfirmationModeValue } from './state.js';
export type { RateLimitSetting } from './rate-limit.js';
export { buildDelivery, TEST_EVENT, type BuiltDelivery, type DeliveryContent } from '../webhooks/delivery.js';
