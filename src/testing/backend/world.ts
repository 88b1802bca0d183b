/**
 * What a domain module sees of one fake world: its state, clock and dialect, and a way to send
 * events. An interface, so the domain modules never import the backend class (no cycles).
 * @module
 */
import type { ZoneTimes } from './availability.js';
import type { FakeClock } from './fake-clock.js';
import type { Dialect } from './dialects.js';
import type { WebhookEventType, FakeState, ReservationRecord } from './state.js';

export interface World {
  readonly state: FakeState;
  readonly clock: FakeClock;
  readonly dialect: Dialect;
  /** The world's time conversions, each remembered. */
  readonly times: ZoneTimes;
  /** Sends `event` for the reservation to its partner's webhooks; nothing for other-channel bookings. */
  emit(event: WebhookEventType, record: ReservationRecord): void;
  /** Says a reservation changed (its cached wire form is dropped). Every rule that changes one calls it. */
  changed(record: ReservationRecord): void;
  /** The restaurant's reservations holding a table at some instant in [from, to) (cancelled and no-show ones hold none). */
  holdingTables(restaurantId: number, from: number, to: number): Iterable<ReservationRecord>;
  /** Throws a 409 `limit_reached` when the world (or the pool it shares) has no room for one more reservation. */
  checkRoomForReservation(): void;
  /** Throws a 409 `limit_reached` when the world (or the server it shares) holds its limit of bytes. */
  checkRoom(): void;
}
