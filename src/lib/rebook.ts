/**
 * The rebook saga: moves a booking to a new time when the service has no modify operation for
 * partners. It books the new time (through the idempotent create, under a key derived from the
 * caller's), waits for the restaurant's confirmation where the restaurant confirms by hand, then
 * cancels the old booking. The invariant: once a rebook has ended (success, or a refusal), exactly
 * one of the two bookings is live; a rebook that stops midway says so, and repeating it with the
 * same key ends the same saga without booking anything more.
 *
 * The saga keeps no state of its own: a repeat reads where it stands from the service.
 * - The old booking cancelled means the saga passed its last step (or someone else cancelled it):
 *   the new booking is looked up by its key, and is the answer when it is live.
 * - Otherwise the create with the derived key answers with the first booking (the ledger, or a
 *   look-up by key), never a second one; a new booking already cancelled means an earlier run ended
 *   "not confirmed", and it ends so again.
 * @module
 */
import {
  AbortError,
  AmbiguousCreateError,
  IdempotencyKeyReuseError,
  InputValidationError,
  RateLimitWaitTooLongError,
  RebookIncompleteError,
  RebookNotConfirmedError,
  ReservationCancelledError,
  ReservationNotRebookableError,
  type FieldIssue,
  type RebookStep,
} from '../errors.js';
import type { ApiPromise } from '../transport/api-promise.js';
import type { RequestOptions } from '../transport/transport.js';
import { checkRequestOptions, parseInput } from '../transport/validate.js';
import { toServiceStartTime } from '../start-time.js';
import { ReservationCreateInput, type Reservation } from '../resources/reservations.schemas.js';
import { apiPromise, checkId, type ResourceContext } from '../resources/resource.js';
import type { WaitForConfirmationOptions } from '../resources/reservations.js';
import {
  checkIdempotencyKey,
  createReservation,
  findReservationByKey,
  type ReservationReads,
} from './idempotent-create.js';

/**
 * The `metadata` key under which the new booking names the booking it replaces, so a key reused
 * to move another booking is refused instead of cancelling that one.
 */
export const REBOOK_METADATA_KEY = 'restaurant_partner_sdk.rebook_of';

/**
 * Default `confirmationDeadlineMs`: 5 minutes. While a rebook waits, the guest holds two tables
 * (the old booking and the unconfirmed new one) and the call holds your job; a restaurant that
 * confirms by hand during service answers within minutes, and one that has not answered by then
 * may not answer for hours. Past the deadline the safe end is the old booking kept.
 */
export const DEFAULT_CONFIRMATION_DEADLINE_MS = 5 * 60_000;
/** Longest `confirmationDeadlineMs` taken: a call that waits longer than a day is a job, not a call. */
const MAX_CONFIRMATION_DEADLINE_MS = 24 * 60 * 60_000;
/** Time between two reads of the new booking while waiting: 60 reads over the default wait, a fifth of the 1 request/second budget. */
const CONFIRMATION_POLL_MS = 5_000;
/** Appended to the rebook key to make the key of the new booking's create. */
const NEW_BOOKING_KEY_SUFFIX = ':new';
/** Longest rebook key: the create's key (with the suffix) must stay within the header's 255 characters. */
const MAX_KEY_LENGTH = 255 - NEW_BOOKING_KEY_SUFFIX.length;

/** Options of `reservations.rebook`. */
export interface RebookOptions {
  /**
   * The key of this rebook, derived from your own record of the change (`change-${change.id}`):
   * repeating the rebook with it after a crash or a {@link RebookIncompleteError} finishes the same
   * rebook and never books twice. The new booking is created with the key `${idempotencyKey}:new`.
   * 1 to 251 printable ASCII characters.
   */
  idempotencyKey: string;
  /**
   * How long this call waits for the restaurant to confirm the new booking when it confirms by
   * hand (default 5 minutes). Past it, the new booking is cancelled and the old one kept
   * ({@link RebookNotConfirmedError}). A repeat of the rebook waits again from its own start.
   */
  confirmationDeadlineMs?: number | undefined;
  /** Stops the rebook; one stopped after it may have booked throws {@link RebookIncompleteError}. */
  signal?: AbortSignal | undefined;
}

/** The resource methods a rebook uses. */
export interface RebookSteps extends ReservationReads {
  cancel(
    restaurantId: number | string,
    id: number | string,
    options?: RequestOptions,
  ): ApiPromise<Reservation | null>;
  waitForConfirmation(
    restaurantId: number | string,
    id: number | string,
    options: WaitForConfirmationOptions,
  ): Promise<Reservation>;
}

/** `reservations.rebook`. */
export function rebookReservation(
  context: ResourceContext,
  steps: RebookSteps,
  restaurantId: number | string,
  reservationId: number | string,
  input: ReservationCreateInput,
  options: RebookOptions,
): ApiPromise<Reservation> {
  const secrets = context.transport.secrets;
  return apiPromise(async () => {
    try {
      return {
        data: await new Rebook(context, steps).run(restaurantId, reservationId, input, options),
        response: null,
      };
    } catch (error) {
      throw secrets.scrubError(error);
    }
  });
}

const refuse = (field: string, code: string, message: string): never => {
  const issue: FieldIssue = { field, path: [field], code, message };
  throw new InputValidationError([issue]);
};

/** Checks the options before any request, with the create's rules for the key. */
function checkOptions(options: RebookOptions | undefined): {
  key: string;
  deadlineMs: number;
  signal: AbortSignal | undefined;
} {
  if (options === null || typeof options !== 'object')
    return refuse(
      'idempotencyKey',
      'invalid_type',
      'expected { idempotencyKey }: a rebook needs your own key',
    );
  const { idempotencyKey: key, confirmationDeadlineMs, signal } = options;
  checkRequestOptions({ signal });
  checkIdempotencyKey(key, 'idempotencyKey', MAX_KEY_LENGTH);
  const deadlineMs = confirmationDeadlineMs ?? DEFAULT_CONFIRMATION_DEADLINE_MS;
  if (!(
    typeof deadlineMs === 'number' &&
    Number.isFinite(deadlineMs) &&
    deadlineMs >= 0 &&
    deadlineMs <= MAX_CONFIRMATION_DEADLINE_MS
  )) {
    refuse(
      'confirmationDeadlineMs',
      'invalid_option',
      `expected a number of milliseconds from 0 to ${MAX_CONFIRMATION_DEADLINE_MS} (a day)`,
    );
  }
  return { key, deadlineMs, signal };
}

/** Whether the restaurant still has to confirm the booking by hand. */
function awaitsConfirmation(reservation: Reservation): boolean {
  if (reservation.confirmed === true) return false;
  return (
    reservation.confirmed === false || reservation.confirmation_mode === 'CONFIRMATION_MODE_ASYNCHRONOUS'
  );
}

/** One `reservations.rebook` call. */
class Rebook {
  readonly #context: ResourceContext;
  readonly #steps: RebookSteps;
  // Set by run() before anything reads them.
  #rid: number | string = '';
  #oldId: number | string = '';
  #key = '';
  #signal: AbortSignal | undefined;
  /** Set when the old booking was found cancelled (or arrived, no-show) by someone else during the wait. */
  #oldGone = false;

  constructor(context: ResourceContext, steps: RebookSteps) {
    this.#context = context;
    this.#steps = steps;
  }

  async run(
    restaurantId: number | string,
    reservationId: number | string,
    input: ReservationCreateInput,
    options: RebookOptions,
  ): Promise<Reservation> {
    const rid = (this.#rid = checkId(restaurantId, 'restaurant_id'));
    const oldId = (this.#oldId = checkId(reservationId, 'reservation_id'));
    const parsed = parseInput(ReservationCreateInput, input);
    const { key, deadlineMs, signal } = checkOptions(options);
    this.#key = key;
    this.#signal = signal;
    const call = { signal };
    // The create's own check of the time (a time a clock change skips is refused) needs the
    // restaurant's timezone; checked now, before the old booking is read. The timezone is cached
    // for the create, so this costs no request beyond the one the create would spend.
    toServiceStartTime(parsed.start_time, await this.#context.timezoneFor(rid, call));

    const old = await this.#steps.retrieve(rid, oldId, call);
    if (old.arrived === true)
      throw new ReservationNotRebookableError({ restaurantId: rid, reservationId: oldId, state: 'arrived' });
    if (old.no_show === true)
      throw new ReservationNotRebookableError({ restaurantId: rid, reservationId: oldId, state: 'no_show' });
    if (old.cancelled === true) return this.#afterOldCancelled();

    const created = await this.#book(input);
    const confirmed =
      awaitsConfirmation(created) || created.cancelled === true
        ? await this.#confirm(created, deadlineMs)
        : created;
    if (this.#oldGone) return confirmed;
    try {
      await this.#steps.cancel(rid, oldId, call);
    } catch (error) {
      throw this.#incomplete(
        'cancel-old',
        `The new booking ${confirmed.id} is confirmed, but cancelling the old booking ${oldId} failed, so it may still be live`,
        error,
        confirmed.id,
      );
    }
    return confirmed;
  }

  get #newKey(): string {
    return `${this.#key}${NEW_BOOKING_KEY_SUFFIX}`;
  }

  /**
   * The old booking is cancelled: either an earlier run with this key passed its last step (or the
   * old one was cancelled by someone else after the new one was booked), and the new booking is
   * the one live; or nothing was ever booked with this key, and the old booking cannot be moved.
   */
  async #afterOldCancelled(): Promise<Reservation> {
    const refused = new ReservationNotRebookableError({
      restaurantId: this.#rid,
      reservationId: this.#oldId,
      state: 'cancelled',
    });
    // Without the key in metadata nothing can be found: the old booking is simply cancelled.
    if (!this.#context.idempotencyMetadata) throw refused;
    const found = await findReservationByKey(this.#context, this.#steps, this.#rid, this.#newKey, {
      signal: this.#signal,
    });
    if (found === null || found.cancelled === true || found.arrived === true || found.no_show === true)
      throw refused;
    this.#checkReplaces(found);
    return found;
  }

  /** Books the new time through the idempotent create: a repeat returns the first booking. */
  async #book(input: ReservationCreateInput): Promise<Reservation> {
    const withMarker: ReservationCreateInput = this.#context.idempotencyMetadata
      ? { ...input, metadata: { ...(input.metadata ?? {}), [REBOOK_METADATA_KEY]: String(this.#oldId) } }
      : input;
    let created: Reservation;
    try {
      created = await createReservation(this.#context, this.#steps, this.#rid, withMarker, {
        idempotencyKey: this.#newKey,
        signal: this.#signal,
      });
    } catch (error) {
      // Any other failure of the create means it booked nothing (the create's own promise): the
      // old booking is untouched and the only one, so the error goes out as it is
      // (NoAvailabilityError included).
      if (error instanceof AmbiguousCreateError)
        throw this.#incomplete(
          'create',
          'Booking the new time ended with its outcome unknown; the old booking is untouched',
          error,
          undefined,
        );
      throw error;
    }
    this.#checkReplaces(created);
    return created;
  }

  /** A booking under this key that replaces another booking: the key was reused for another move. */
  #checkReplaces(booking: Reservation): void {
    const replaces = booking.metadata?.[REBOOK_METADATA_KEY];
    if (replaces !== undefined && replaces !== String(this.#oldId))
      throw new IdempotencyKeyReuseError({
        idempotencyKey: this.#key,
        restaurantId: this.#rid,
        fields: ['reservation_id'],
      });
  }

  /**
   * Waits for the restaurant to confirm the new booking. Refused or not confirmed in time, the new
   * booking ends cancelled and the old one stays: {@link RebookNotConfirmedError}.
   */
  async #confirm(created: Reservation, deadlineMs: number): Promise<Reservation> {
    const notConfirmed = (reason: 'cancelled' | 'deadline', cause: unknown) =>
      new RebookNotConfirmedError(
        reason === 'cancelled'
          ? `The new booking ${created.id} was cancelled before it was confirmed (the restaurant refused it, or an earlier rebook with this key cancelled it past its deadline); the old booking ${this.#oldId} is kept`
          : `The restaurant did not confirm the new booking ${created.id} within ${deadlineMs} ms; it was cancelled and the old booking ${this.#oldId} is kept`,
        {
          reason,
          idempotencyKey: this.#key,
          restaurantId: this.#rid,
          reservationId: this.#oldId,
          newReservationId: created.id,
          cause,
        },
      );
    // Cancelled already: the restaurant refused it, or an earlier run with this key cancelled it.
    if (created.cancelled === true) throw notConfirmed('cancelled', undefined);
    const clock = this.#context.transport.clock;
    const deadline = clock.now() + deadlineMs;
    try {
      return await this.#steps.waitForConfirmation(this.#rid, created.id, {
        deadlineMs,
        intervalMs: CONFIRMATION_POLL_MS,
        signal: this.#signal,
      });
    } catch (error) {
      if (error instanceof ReservationCancelledError) throw notConfirmed('cancelled', error);
      // The wait's time ran out: its deadline passed, or its last read could not get a rate-limit
      // slot before it. Anything else (a failure, your abort) leaves the saga to a repeat.
      const outOfTime =
        !(error instanceof AbortError) &&
        !this.#signal?.aborted &&
        (clock.now() >= deadline || error instanceof RateLimitWaitTooLongError);
      if (!outOfTime)
        throw this.#incomplete(
          'confirm',
          `Waiting for the restaurant to confirm the new booking ${created.id} failed; the old booking is untouched`,
          error,
          created.id,
        );
      try {
        // The old booking cancelled meanwhile (by the customer or the restaurant): cancelling the
        // new one would leave none, so it is kept, and is the answer, confirmed or not.
        const old = await this.#steps.retrieve(this.#rid, this.#oldId, { signal: this.#signal });
        if (old.cancelled === true || old.arrived === true || old.no_show === true) {
          this.#oldGone = true;
          return await this.#steps.retrieve(this.#rid, created.id, { signal: this.#signal });
        }
        await this.#steps.cancel(this.#rid, created.id, { signal: this.#signal });
      } catch (cancelError) {
        throw this.#incomplete(
          'cancel-new',
          `The restaurant did not confirm the new booking ${created.id} in time, and cancelling it failed (or the old booking could not be read first), so it may still be live`,
          cancelError,
          created.id,
        );
      }
      throw notConfirmed('deadline', error);
    }
  }

  #incomplete(
    step: RebookStep,
    what: string,
    cause: unknown,
    newReservationId: number | undefined,
  ): RebookIncompleteError {
    return new RebookIncompleteError(
      `${what}. Repeat the rebook with the same idempotencyKey to finish it: it books nothing more.`,
      {
        step,
        idempotencyKey: this.#key,
        restaurantId: this.#rid,
        reservationId: this.#oldId,
        newReservationId,
        cause,
        // The old booking was read: this call reached the service.
        sent: 'yes',
      },
    );
  }
}
