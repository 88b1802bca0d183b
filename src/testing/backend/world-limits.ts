/**
 * How much one fake world may hold. Everything the fake keeps is bounded, so a suite that runs
 * away (a loop that books for ever, a fault injected in a loop) meets a clear refusal naming the
 * limit, never a fake that slows down or runs out of memory. Each limit is listed in the limits
 * table (`limits.ts` of the fake, docs/fake.md).
 * @module
 */
import { FakeError } from './fake-error.js';
import type { FakeState } from './state.js';

/** Most reservations one world holds (every channel, cancelled ones included). */
export const MAX_RESERVATIONS = 200_000;
/** Most partners one world holds. */
export const MAX_PARTNERS = 1000;
/** Most restaurants one world holds. */
export const MAX_RESTAURANTS = 10_000;
/** Most webhooks one partner may have. */
export const MAX_WEBHOOKS_PER_PARTNER = 20;
/** Most faults waiting to hit at once. */
export const MAX_PENDING_FAULTS = 1000;
/** Most operations waiting for their delayed commit (`commitDelayMs`), counting those pending faults will add. */
export const MAX_PENDING_COMMITS = 1000;
/** Most reservations all named snapshots of one world hold together (each snapshot copies the whole state). */
export const MAX_SNAPSHOT_RESERVATIONS = 1_000_000;
/** Most reservations all the sandboxes of one server hold together. */
export const MAX_SANDBOX_RESERVATIONS = 1_000_000;

/** 409 `limit_reached`, naming the limit and what frees room. */
export function limitReached(what: string, limit: number | string, room: string): FakeError {
  return new FakeError(
    409,
    `The fake's limit is reached: at most ${typeof limit === 'number' ? limit.toLocaleString('en') : limit} ${what}. ${room}`,
    { code: 'limit_reached' },
  );
}

/** A world's room for more of a kind of record; a shared pool (the sandboxes of a server) may say less. */
export interface WorldRoom {
  /** Reservations the pool still has room for, beyond what this world holds. */
  sharedReservations?: () => number;
  /** Bytes the worlds of the server hold together, this one included, and their limit. */
  sharedBytes?: () => { held: number; limit: number };
}

/** Throws a `limit_reached` refusal when one more reservation would not fit. */
export function checkRoomForReservation(state: FakeState, room: WorldRoom): void {
  if (state.reservations.size >= MAX_RESERVATIONS)
    throw limitReached(
      'reservations in one fake',
      MAX_RESERVATIONS,
      'Reset it (POST /_fake/reset) or use a new one.',
    );
  if (room.sharedReservations && room.sharedReservations() <= 0) {
    throw limitReached(
      'reservations across the sandboxes of this server',
      MAX_SANDBOX_RESERVATIONS,
      'Delete sandboxes you no longer use (DELETE /_fake/sandboxes/:id).',
    );
  }
}
