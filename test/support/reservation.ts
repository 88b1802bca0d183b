/**
 * The one reservation fixture of test/: a confirmed dinner for two, as the service answers it and
 * as a webhook carries it. A test overrides only the fields it is about, so a field added to the
 * reservation is added here once. test/house/doubles.test.ts fails when another file writes out a
 * whole reservation again.
 */
import type { Reservation } from '../../src/resources/reservations.schemas.js';

/** A reservation, typed: override the fields the test is about. */
export function reservation(overrides: Partial<Reservation> = {}): Reservation {
  return {
    id: 41,
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
    phone: null,
    start_time: '2026-12-05T19:30:00+01:00',
    duration: 'PT2H',
    adults: 2,
    children: 0,
    comment: null,
    cancelled: false,
    cancelled_at: null,
    confirmed: true,
    confirmed_at: '2026-11-23T12:00:00+01:00',
    confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS',
    arrived: false,
    arrived_at: null,
    no_show: false,
    no_show_at: null,
    language: 'en',
    metadata: null,
    ...overrides,
  };
}

/**
 * The same reservation as a wire body, where a test may plant what no valid reservation holds (a
 * wrong type, an unknown field) or echo a create's body over it, as a service stores it.
 */
export function reservationBody(overrides: object = {}): Record<string, unknown> {
  return { ...reservation(), ...overrides };
}
