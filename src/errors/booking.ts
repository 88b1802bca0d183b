/**
 * The errors of a booking: a create whose outcome is unknown, a key reused for another booking, a
 * ledger that cannot be reached, a reservation cancelled before it was confirmed, and the three
 * ways a rebook stops.
 * @module
 */
import type { Reservation } from '../resources/reservations.schemas.js';
import { isPartnerSdkError, nameErrorClass, PartnerSdkError, type RequestSent } from './base.js';

/**
 * A create failed in a way that leaves its outcome unknown (a 5xx, a dropped connection or a
 * timeout after the request was sent, a malformed 2xx, a redirect, your abort or the deadline after
 * sending) and looking its key up did not find it, or could not tell. The booking may still be
 * committed later (an origin behind a gateway can finish after the gateway's 504).
 *
 * Retryable. The recovery, in full: **repeat the same create (the same restaurant, input and
 * idempotency key) later, at or after `holdUntil` at the latest.** The key is `idempotencyKey`:
 * yours, or the random one a create without yours got. In a job queue, that is the job's own retry
 * with a backoff. A repeat never books twice:
 *
 * - until `holdUntil` (`ambiguousHoldMs`, 15 minutes by default, on the client's clock), a repeat
 *   sends nothing: it looks the key up and returns the booking when it is there, or throws this
 *   error again with the same `holdUntil`;
 * - after it, a repeat looks the key up once more, and sends a create only when no reservation
 *   carries the key.
 *
 * Never book again with a new key, or without one: the first create may still commit, and that
 * books twice. `reservations.findByIdempotencyKey(restaurantId, key)` reads the key without
 * booking; its null means "not found yet". The hold lives in the booking ledger: with the default
 * ledger, repeat in the same process; from another process, or after a restart, only with the
 * Redis or Postgres ledger, which every process shares.
 */
export class AmbiguousCreateError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'AmbiguousCreateError');
  }
  /** The key the create was sent with (yours, or the random one the client chose): repeat with it. */
  readonly idempotencyKey: string;
  readonly restaurantId: number | string;
  /** How many times the create was attempted, retries included (0: nothing was sent by this call). */
  readonly attempts: number;
  /**
   * Until when (on the client's clock) a repeat with the same key sends nothing but a look-up:
   * from then on, a repeat makes a last look-up and may book. Undefined when no hold was recorded.
   */
  readonly holdUntil: Date | undefined;
  constructor(
    message: string,
    details: {
      idempotencyKey: string;
      restaurantId: number | string;
      attempts?: number;
      cause?: unknown;
      sent?: RequestSent | undefined;
      /** Until when a repeat with the same key sends nothing (on the client's clock). */
      holdUntil?: Date | undefined;
    },
  ) {
    super(message, { cause: details.cause, sent: details.sent ?? 'maybe', retryable: true });
    this.idempotencyKey = details.idempotencyKey;
    this.restaurantId = details.restaurantId;
    this.attempts = details.attempts ?? 1;
    // A copy: the caller's Date stays theirs to change.
    this.holdUntil = details.holdUntil === undefined ? undefined : new Date(details.holdUntil.getTime());
  }
}

/**
 * A create reused an idempotency key for another booking: the key is already tied to a booking
 * (or a create still running) whose restaurant, start time, party size or guest fields differ.
 * Nothing was sent. `fields` names the fields that differ. Use a new key for a new booking (derive
 * it from your order id and what makes the booking different), or repeat the first booking's
 * input exactly. Not retryable: the same call is refused again.
 */
export class IdempotencyKeyReuseError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'IdempotencyKeyReuseError');
  }
  readonly idempotencyKey: string;
  readonly restaurantId: number | string;
  /** The fields whose values differ from the booking the key already names (`start_time`, `adults`, ...). */
  readonly fields: string[];
  constructor(details: { idempotencyKey: string; restaurantId: number | string; fields: string[] }) {
    super(
      `Idempotency key ${JSON.stringify(details.idempotencyKey)} already names a booking with other values of ${details.fields.join(', ')}; nothing was sent. Use a new key for a new booking.`,
      { retryable: false },
    );
    this.idempotencyKey = details.idempotencyKey;
    this.restaurantId = details.restaurantId;
    this.fields = [...details.fields];
  }
}

/**
 * The booking ledger could not be read or written (its Redis is unreachable or too slow), so a
 * create with your own idempotency key was not sent: without the ledger the client cannot tell
 * whether another process is booking, or has booked, with that key. Nothing was sent; repeat the
 * create once the ledger's store is back (retryable).
 */
export class BookingLedgerUnavailableError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'BookingLedgerUnavailableError');
  }
  readonly idempotencyKey: string;
  constructor(message: string, details: { idempotencyKey: string; cause?: unknown }) {
    super(message, { cause: details.cause, retryable: true });
    this.idempotencyKey = details.idempotencyKey;
  }
}

/**
 * `waitForConfirmation` saw the reservation cancelled (by the restaurant or the customer) before it
 * was confirmed. `reservation` is the cancelled reservation as last read. Not retryable: a
 * cancelled reservation stays cancelled.
 */
export class ReservationCancelledError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'ReservationCancelledError');
  }
  readonly reservation: Reservation;
  constructor(message: string, reservation: Reservation) {
    super(message, { sent: 'yes', retryable: false });
    this.reservation = reservation;
  }
}

/**
 * True for an {@link IdempotencyKeyReuseError}, from this copy of the package or another (see
 * {@link isPartnerSdkError}).
 */
export const isIdempotencyKeyReuseError = (error: unknown): error is IdempotencyKeyReuseError =>
  isPartnerSdkError(error, IdempotencyKeyReuseError);

/** The state that keeps a reservation from being rebooked. */
export type UnrebookableState = 'cancelled' | 'arrived' | 'no_show';

/**
 * `reservations.rebook` refused the reservation to move: it is already cancelled, the guest
 * arrived, or was marked a no-show (`state` says which). Nothing was booked or cancelled; only the
 * reservation was read (and, when it is cancelled, your key looked up, in case an earlier rebook
 * with it already finished). Repeating will not help.
 */
export class ReservationNotRebookableError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'ReservationNotRebookableError');
  }
  readonly restaurantId: number | string;
  readonly reservationId: number | string;
  readonly state: UnrebookableState;
  constructor(details: {
    restaurantId: number | string;
    reservationId: number | string;
    state: UnrebookableState;
  }) {
    const what = { cancelled: 'is cancelled', arrived: 'is marked arrived', no_show: 'is marked a no-show' };
    super(
      `Reservation ${details.reservationId} ${what[details.state]}, so it cannot be rebooked; nothing was booked or cancelled`,
      { sent: 'yes' },
    );
    this.restaurantId = details.restaurantId;
    this.reservationId = details.reservationId;
    this.state = details.state;
  }
}

/**
 * `reservations.rebook` booked the new time but the restaurant did not confirm it: the new booking
 * was cancelled before it was confirmed (`reason: 'cancelled'`: the restaurant refused it, or an
 * earlier rebook with this key cancelled it past its deadline), or it was not confirmed before
 * `confirmationDeadlineMs` (`reason: 'deadline'`: the client then cancelled it). Either way the old booking is untouched and the only live one. Repeating the rebook
 * with the same key ends the same way; to try again, rebook with a new key.
 */
export class RebookNotConfirmedError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'RebookNotConfirmedError');
  }
  readonly reason: 'cancelled' | 'deadline';
  readonly idempotencyKey: string;
  readonly restaurantId: number | string;
  /** The old booking, still live. */
  readonly reservationId: number | string;
  /** The new booking, cancelled. */
  readonly newReservationId: number;
  constructor(
    message: string,
    details: {
      reason: 'cancelled' | 'deadline';
      idempotencyKey: string;
      restaurantId: number | string;
      reservationId: number | string;
      newReservationId: number;
      cause?: unknown;
    },
  ) {
    super(message, { cause: details.cause, sent: 'yes' });
    this.reason = details.reason;
    this.idempotencyKey = details.idempotencyKey;
    this.restaurantId = details.restaurantId;
    this.reservationId = details.reservationId;
    this.newReservationId = details.newReservationId;
  }
}

/** The step at which a rebook stopped: booking the new time, waiting for its confirmation, cancelling the new one (not confirmed in time), or cancelling the old one. */
export type RebookStep = 'create' | 'confirm' | 'cancel-new' | 'cancel-old';

/**
 * `reservations.rebook` stopped midway (a failure whose outcome is unknown, your abort, the
 * restaurant's service unreachable) and may have left two live bookings: the old one and the new
 * one. **Repeat the rebook with the same `idempotencyKey`** (later, from your queue's retry): it
 * picks the saga up where it stopped, books nothing more, and ends with exactly one live booking.
 * `step` says where it stopped; `newReservationId` is the new booking once known; `cause` is the
 * failure.
 */
export class RebookIncompleteError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'RebookIncompleteError');
  }
  readonly step: RebookStep;
  readonly idempotencyKey: string;
  readonly restaurantId: number | string;
  /** The old booking. */
  readonly reservationId: number | string;
  /** The new booking, when it is known to exist. */
  readonly newReservationId: number | undefined;
  constructor(
    message: string,
    details: {
      step: RebookStep;
      idempotencyKey: string;
      restaurantId: number | string;
      reservationId: number | string;
      newReservationId?: number | undefined;
      cause?: unknown;
      sent?: RequestSent | undefined;
    },
  ) {
    // Retryable: repeating the rebook with the same key finishes it.
    super(message, { cause: details.cause, sent: details.sent ?? 'maybe', retryable: true });
    this.step = details.step;
    this.idempotencyKey = details.idempotencyKey;
    this.restaurantId = details.restaurantId;
    this.reservationId = details.reservationId;
    this.newReservationId = details.newReservationId;
  }
}
