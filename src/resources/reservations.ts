/**
 * Reservations of one restaurant. The spec documents list, create and cancel; retrieve and the
 * arrived / no-show PATCH are inferred by REST convention.
 * @module
 */
import { NotFoundError, PartnerApiError } from '../errors.js';
import type { ApiPromise, WithResponse } from '../transport/api-promise.js';
import { ListPromise } from '../transport/pagination.js';
import type { Call, RequestOptions } from '../transport/transport.js';
import { parseInput, parseOutput } from '../transport/validate.js';
import { startInstant } from '../start-time.js';
import {
  createReservation,
  findReservationByKey,
  type CreateReservationOptions,
} from '../lib/idempotent-create.js';
import { rebookReservation, type RebookOptions } from '../lib/rebook.js';
import { waitForConfirmation, type WaitForConfirmationOptions } from './reservation-confirmation.js';
import { reservationPath, restaurantReservationsPath } from './reservation-paths.js';
import { CANCEL, MARK_ARRIVED, MARK_NO_SHOW, patchReservation } from './reservation-status.js';
import { Reservation, ReservationCreateInput, ReservationListFilters } from './reservations.schemas.js';
import { checkId, listOf, Resource, singleObject } from './resource.js';

export {
  IDEMPOTENCY_METADATA_KEY,
  FINGERPRINT_METADATA_KEY,
  type CreateReservationOptions,
} from '../lib/idempotent-create.js';
export { REBOOK_METADATA_KEY, type RebookOptions } from '../lib/rebook.js';
export type { WaitForConfirmationOptions } from './reservation-confirmation.js';

/** `client.reservations` */
export class Reservations extends Resource {
  /**
   * The partner's reservations at a restaurant (`GET /restaurants/:rid/reservations/`). Pages are
   * followed when the service pages. Time filters are sent as query parameters and also applied
   * here, since the spec shows no filters the service is sure to honour.
   */
  list(
    restaurantId: number | string,
    filters?: ReservationListFilters,
    options?: RequestOptions,
  ): ListPromise<Reservation> {
    let rid: number | string;
    let parsed: ReservationListFilters;
    try {
      rid = checkId(restaurantId, 'restaurant_id');
      parsed = parseInput(ReservationListFilters, filters ?? {});
    } catch (error) {
      // Bad input rejects like every other method, rather than throwing synchronously.
      return new ListPromise<Reservation>(() => Promise.reject(error));
    }
    // Values without an offset (in the list and in the filters) are read in the restaurant's zone
    // when it is cached, else in the process's own zone.
    const zone = this.context.cachedTimezone(rid) ?? undefined;
    const instant = (value: string | Date | undefined) =>
      value === undefined ? undefined : value instanceof Date ? value.getTime() : startInstant(value, zone);
    const after = instant(parsed.start_time_after);
    const before = instant(parsed.start_time_before);
    const toQuery = (value: string | Date | undefined) =>
      value instanceof Date ? value.toISOString() : value;
    return listOf(this.transport, {
      path: restaurantReservationsPath(rid),
      query: {
        page_size: parsed.page_size,
        start_time_after: toQuery(parsed.start_time_after),
        start_time_before: toQuery(parsed.start_time_before),
      },
      itemSchema: Reservation,
      options,
      operation: 'reservations.list',
      restaurantId: rid,
      filter:
        after === undefined && before === undefined
          ? undefined
          : (reservation) => {
              const at = startInstant(reservation.start_time, zone);
              return (after === undefined || at >= after) && (before === undefined || at < before);
            },
    });
  }

  /**
   * Books a table (`POST /restaurants/:rid/reservations/`). `start_time` is converted to the
   * restaurant's timezone. Never books twice: the create carries an `Idempotency-Key` header and
   * the same key in `metadata`, a second POST goes out only when the first provably did not take
   * effect, and after any failure that may have booked the key is looked up; when the booking is
   * not found, {@link AmbiguousCreateError} carries the key. With your own `idempotencyKey`, the
   * booking ledger (`bookingLedger`) makes a repeat return the first booking, makes a create that
   * runs at the same time wait for it, and refuses the key for another booking
   * ({@link IdempotencyKeyReuseError}).
   *
   * @throws {@link InputValidationError} before any request when the input breaks a spec rule.
   * @throws {@link NoAvailabilityError} when the restaurant has no table then.
   * @throws {@link AmbiguousCreateError} when the booking may exist and could not be found: repeat
   * the same create with `error.idempotencyKey` later (by `error.holdUntil`); it never books twice.
   * @example
   * ```ts
   * const reservation = await client.reservations.create(restaurantId, {
   *   start_time: { date: '2026-12-05', time: '19:30' }, adults: 2, first_name: 'Ada',
   * });
   * ```
   */
  create(
    restaurantId: number | string,
    input: ReservationCreateInput,
    options?: CreateReservationOptions,
  ): ApiPromise<Reservation> {
    return createReservation(this.context, this, restaurantId, input, options);
  }

  /**
   * Moves a booking to a new time or party (the service has no modify operation for partners):
   * books `input` with the key `${idempotencyKey}:new`, waits for the restaurant's confirmation
   * where it confirms by hand (up to `confirmationDeadlineMs`, 5 minutes by default), then cancels
   * the old booking, and resolves with the new one. It ends with exactly one live booking: the new
   * one, or the old one untouched when the new time is refused or not confirmed. A rebook that
   * stops midway (a crash, an unknown outcome, your abort) is finished by repeating it with the
   * same key: it books nothing more.
   *
   * @throws {@link InputValidationError} before any request when the input or options break a rule.
   * @throws {@link ReservationNotRebookableError} when the old booking is cancelled, arrived or a no-show (nothing sent but reads).
   * @throws {@link NoAvailabilityError} when the restaurant has no table at the new time; the old booking is untouched.
   * @throws {@link RebookNotConfirmedError} when the new booking was refused or not confirmed in time; it is cancelled, the old one kept.
   * @throws {@link RebookIncompleteError} when the rebook stopped midway: repeat it with the same key.
   * @example
   * ```ts
   * const moved = await client.reservations.rebook(restaurantId, booking.id, {
   *   start_time: { date: '2026-12-05', time: '21:00' }, adults: 2, first_name: 'Ada',
   * }, { idempotencyKey: `change-${change.id}` });
   * ```
   */
  rebook(
    restaurantId: number | string,
    reservationId: number | string,
    input: ReservationCreateInput,
    options: RebookOptions,
  ): ApiPromise<Reservation> {
    return rebookReservation(this.context, this, restaurantId, reservationId, input, options);
  }

  /**
   * Calls `listener` with each reservation this client (and every `withOptions` copy of it)
   * creates, once created. Returns a function that stops the calls. A listener that throws never
   * fails the create. The reservation sync uses it to follow the bookings a process makes.
   */
  onCreated(listener: (restaurantId: number, reservation: Reservation) => void): () => void {
    if (typeof listener !== 'function') throw new TypeError('onCreated expects a function');
    const listeners = this.context.createdListeners;
    const entry = { listener };
    listeners.add(entry);
    return () => void listeners.delete(entry);
  }

  /**
   * The reservation carrying `idempotencyKey` in its metadata, or null when the whole list was read,
   * consistently, and none does. Reads the restaurant's list, page by page, through the throttle;
   * a list that cannot be read whole and consistently (it loops, ends before its `count`, changes
   * between pages and a second read does not settle it, or fails) rejects rather than answer null.
   * A read-only check: to recover from an {@link AmbiguousCreateError}, repeat the same create with
   * `error.idempotencyKey` instead: it also returns the booking when it exists, and never books twice.
   */
  findByIdempotencyKey(
    restaurantId: number | string,
    idempotencyKey: string,
    options?: RequestOptions,
  ): Promise<Reservation | null> {
    return findReservationByKey(this.context, this, restaurantId, idempotencyKey, options);
  }

  /**
   * One reservation (`GET /restaurants/:rid/reservations/:id/`). The spec shows no detail route;
   * it is inferred by REST convention. When the service has no such route (405, or a 404 without
   * a JSON body), the reservation is found by reading the list instead.
   */
  retrieve(
    restaurantId: number | string,
    id: number | string,
    options?: RequestOptions,
  ): ApiPromise<Reservation> {
    return this.scrubbed(async () => {
      const rid = checkId(restaurantId, 'restaurant_id');
      const reservationId = checkId(id, 'id');
      return this.transport.run(
        options,
        'reservations.retrieve',
        (call) => this.#retrieve(rid, reservationId, call),
        {
          restaurantId: rid,
        },
      );
    });
  }

  async #retrieve(
    rid: number | string,
    reservationId: number | string,
    call: Call,
  ): Promise<WithResponse<Reservation>> {
    try {
      return await this.transport.request({
        method: 'GET',
        path: reservationPath(rid, reservationId),
        safeToRepeat: true,
        options: call,
        parse: (answer, _response, where) => parseOutput(Reservation, singleObject(answer, where), where),
      });
    } catch (error) {
      const noSuchRoute =
        error instanceof PartnerApiError &&
        (error.status === 405 ||
          (error.status === 404 && (error.body === undefined || typeof error.body === 'string')));
      if (!noSuchRoute) throw error;
      for await (const reservation of this.list(rid, undefined, call)) {
        if (String(reservation.id) === String(reservationId)) return { data: reservation, response: null };
      }
      throw new NotFoundError(`Reservation ${reservationId} not found in the list of restaurant ${rid}`, {
        status: 404,
        method: error.method,
        url: error.url,
        cause: error,
      });
    }
  }

  /**
   * Cancels a reservation the partner created (`PATCH .../:id/?action=cancel`). Resolves to the
   * cancelled reservation when the service answers with it, or null when it answers without a
   * body (the spec does not show the answer).
   */
  cancel(
    restaurantId: number | string,
    id: number | string,
    options?: RequestOptions,
  ): ApiPromise<Reservation | null> {
    return patchReservation(this.transport, this.#read, restaurantId, id, CANCEL, options);
  }

  /** Marks the guest as arrived (`PATCH .../:id/` with `{"arrived": true}`, inferred). Null when answered without a body. */
  markArrived(
    restaurantId: number | string,
    id: number | string,
    options?: RequestOptions,
  ): ApiPromise<Reservation | null> {
    return patchReservation(this.transport, this.#read, restaurantId, id, MARK_ARRIVED, options);
  }

  /** Marks the guest as a no-show (`PATCH .../:id/` with `{"no_show": true}`, inferred). Null when answered without a body. */
  markNoShow(
    restaurantId: number | string,
    id: number | string,
    options?: RequestOptions,
  ): ApiPromise<Reservation | null> {
    return patchReservation(this.transport, this.#read, restaurantId, id, MARK_NO_SHOW, options);
  }

  /** `retrieve` within a call already running (a status change settling a retry, a wait's reads). */
  readonly #read = (rid: number | string, id: number | string, call: Call): ApiPromise<Reservation> =>
    this.retrieve(rid, id, call);

  /**
   * Waits until an asynchronous-mode reservation is confirmed by reading it every `intervalMs`
   * (each read waits for its rate-limit slot). Resolves with the confirmed reservation; throws
   * {@link ReservationCancelledError} if it is cancelled first and {@link TimeoutError} once
   * `deadlineMs` has passed. Webhooks (`RESERVATION_CONFIRMED`) avoid polling altogether.
   */
  waitForConfirmation(
    restaurantId: number | string,
    id: number | string,
    options: WaitForConfirmationOptions,
  ): Promise<Reservation> {
    return waitForConfirmation(this.transport, this.#read, restaurantId, id, options);
  }
}
