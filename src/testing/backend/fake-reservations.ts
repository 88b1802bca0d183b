/**
 * Reservations as the control API and `fake.allReservations()` show them: every channel's, with
 * who made each. The partner API never shows these; apart from the backend, which holds the records.
 * @module
 */
import type { Reservation } from '../../resources/reservations.schemas.js';
import type { FakeState, ReservationRecord } from './state.js';

/** What these views read of a world (the backend; named by shape, so this file never imports it). */
interface Viewed {
  readonly state: FakeState;
  view(record: ReservationRecord): Reservation;
}

/** A reservation as the control API shows it: the partner view plus who made it. */
export type FakeReservation = Reservation & {
  /** `partner` for a booking through the partner API, else the other channel's name. */
  channel: string;
  /** The booking partner's id, or null for another channel. */
  partnerId: string | null;
};

/** Every reservation of a restaurant, whatever its channel, by start time then id. */
export function allReservations(backend: Viewed, restaurantId: number): FakeReservation[] {
  return reservationRecords(backend, restaurantId).map((record) => fakeReservation(backend, record));
}

/** The records of a restaurant's reservations, by start time then id. */
export function reservationRecords(backend: Viewed, restaurantId: number): ReservationRecord[] {
  return [...backend.state.reservations.values()]
    .filter((record) => record.restaurantId === restaurantId)
    .sort((a, b) => a.start - b.start || a.id - b.id);
}

/** A reservation as the control API shows it: the partner view, its channel and its partner. */
export function fakeReservation(backend: Viewed, record: ReservationRecord): FakeReservation {
  return {
    ...backend.view(record),
    channel: record.channel.kind === 'partner' ? 'partner' : record.channel.name,
    partnerId: record.channel.kind === 'partner' ? record.channel.partnerId : null,
  };
}
