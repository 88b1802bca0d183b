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
export { FakeService, createFakeService } from './fake-service.js';
export type {
  FakeServiceOptions,
  FakeClientOptions,
  FakeSnapshot,
  HandleContext,
  SeedDescription,
  SeedOption,
  WaitForDeliveryOptions,
} from './fake-service.js';
export type { SandboxOptions } from './sandboxes.js';
export type { ApplyToAllClientsOptions } from './apply-to-all-clients.js';
export { connectFake, createSandbox } from './remote-fake.js';
export type { MswHandler } from './adapters/msw.js';
export type {
  CreateSandboxOptions,
  PartnerCredentials,
  RemoteClientOptions,
  RemoteClock,
  RemoteFake,
  RemoteRestaurantActions,
  RemoteSandbox,
  RemoteState,
  RemoteStateOptions,
} from './remote-fake.js';
export { FakeClock, type FakeClockOptions } from './backend/fake-clock.js';
export type { MemoryLimits } from './backend/memory.js';
export {
  createClockRateLimiter,
  type ClockRateLimiter,
  type ClockRateLimiterOptions,
} from './clock-rate-limiter.js';
export { defaultDialect, resolveDialect, DIALECT_VALUES, type Dialect } from './backend/dialects.js';
export { OPERATIONS, type FaultSpec, type OperationName, type ActiveFault } from './backend/faults.js';
export { FakeError, isFakeError, type FieldErrors } from './backend/fake-error.js';
export { CONTROL_ROUTES, type ControlRoute } from './control/routes.js';
export {
  TRANSITIONS,
  type ReservationState,
  type ReservationAction,
  type Transition,
} from './backend/transitions.js';
export type { FakeReservation } from './backend/backend.js';
export type { JournalEntry } from './backend/journal.js';
export type { AddPartnerInput, FakePartner } from './backend/partners.js';
export type { AddRestaurantInput, FakeRestaurant } from './backend/restaurants.js';
export { defaultAvailability } from './backend/availability.js';
export { DEMO_PARTNER } from './backend/seed.js';
export type { DeliveryChaosInput, DeliveryChaosSettings } from './backend/chaos.js';
export { DEFAULT_RETRY_DELAYS_MS, type DeliveryHandler, type DeliveryOptions } from './backend/deliveries.js';
export type {
  AvailabilityConfig,
  OpeningPeriod,
  DurationRule,
  DeliveryLogEntry,
  ConfirmationModeValue,
  EventType,
} from './backend/state.js';
export type { RateLimitSetting } from './backend/rate-limit.js';
export {
  buildDelivery,
  TEST_EVENT,
  type BuiltDelivery,
  type DeliveryContent,
  type DeliveryReservation,
} from '../webhooks/delivery.js';
