/**
 * The reservation fixture of test/, typed: the one reservation of ./reservation-wire.mjs (shared
 * with the bench), of which a test overrides only the fields it is about.
 */
import type { Reservation } from '../../src/resources/reservations.schemas.js';
import { RESERVATION } from './reservation-wire.mjs';

/** A reservation, typed: override the fields the test is about. */
export function reservation(overrides: Partial<Reservation> = {}): Reservation {
  return { ...RESERVATION, ...overrides };
}

/**
 * The same reservation as a wire body, where a test may plant what no valid reservation holds (a
 * wrong type, an unknown field) or echo a create's body over it, as a service stores it.
 */
export function reservationBody(overrides: object = {}): Record<string, unknown> {
  return { ...reservation(), ...overrides };
}
