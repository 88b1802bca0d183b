/**
 * What a resource module sees of the fake: the state, the clock, the dialect, and ways to emit
 * events. Kept as an interface so the resource modules do not import the service (no cycles).
 * @module
 */
import type { FakeClock } from './clock.js';
import type { Deliveries } from './deliveries.js';
import type { Dialect } from './dialects.js';
import type { EventType, FakeState, PartnerRecord, ReservationRecord } from './state.js';

export interface FakeInternals {
  readonly state: FakeState;
  readonly clock: FakeClock;
  readonly dialect: Dialect;
  /** The delivery queue (`fake.deliveries` is the log). */
  readonly deliveryQueue: Deliveries;
  /** The reservation as the partner API shows it (in the current dialect). */
  serializeReservation(record: ReservationRecord): Record<string, unknown>;
  /** Queues `event` for the reservation's partner; nothing for other-channel bookings. */
  emit(event: EventType, record: ReservationRecord): void;
}

/** Path parameters, already checked to be positive integers. */
export interface RouteParams {
  restaurantId?: number;
  reservationId?: number;
  webhookId?: number;
}

export interface OperationContext {
  fake: FakeInternals;
  partner: PartnerRecord;
  params: RouteParams;
  url: URL;
  request: Request;
  /** Parsed JSON body, or undefined when there was none. */
  body: unknown;
  /** The request URL up to and including `/api/v1/partnership` (any proxy prefix kept). */
  apiRoot: string;
}

export type Operation = (context: OperationContext) => Response | Promise<Response>;
