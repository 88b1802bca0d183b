/**
 * Reservations of one restaurant. The spec documents list, create and cancel; retrieve and the
 * arrived / no-show PATCH are inferred by REST convention.
 * @module
 */
import {
  AbortError,
  AmbiguousCreateError,
  ConflictError,
  InputValidationError,
  NotFoundError,
  PartnerApiError,
  RateLimitError,
  ReservationCancelledError,
  ResponseValidationError,
  TimeoutError,
} from '../errors.js';
import type { ApiPromise, WithResponse } from '../transport/api-promise.js';
import { ListPromise } from '../transport/pagination.js';
import { path } from '../transport/path.js';
import { neverReachedServer, outcomeUnknown, type RequestOptions } from '../transport/transport.js';
import { checkRequestOptions, parseInput, parseOutput } from '../transport/validate.js';
import { readStartTime, toServiceStartTime } from '../time.js';
import { checkTimezone } from '../restaurant-timezones.js';
import { Reservation, ReservationCreateInput, ReservationListFilters } from './reservations.schemas.js';
import { apiPromise, checkId, hasResourceBody, listOf, Resource, singleObject } from './resource.js';

/**
 * The `metadata` key under which every create stores its idempotency key, so the reservation can
 * be found again after a failure that left its fate unknown.
 */
export const IDEMPOTENCY_METADATA_KEY = 'restaurant_partner_sdk.idempotency_key';

/** Per-call options of `reservations.create`. */
export interface CreateReservationOptions extends RequestOptions {
  /**
   * The idempotency key of this booking (default: a random UUID). Pass your own, derived from
   * your order id, to make a create you repeat after a crash find the first one.
   */
  idempotencyKey?: string | undefined;
  /**
   * The restaurant's IANA timezone (`'Europe/Brussels'`), when you know it: `start_time` is
   * converted with it and no request is spent reading the restaurants list.
   */
  timezone?: string | undefined;
}

/** Options of `reservations.waitForConfirmation`. */
export interface WaitForConfirmationOptions {
  /** Give up after this long (a {@link TimeoutError}). */
  timeoutMs: number;
  /** Time between two reads (default 2000 ms); every read also waits for its rate-limit slot. */
  intervalMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Per-attempt timeout of each read. */
  requestTimeoutMs?: number | undefined;
}

const restaurantPath = (restaurantId: number | string) => path`/restaurants/${restaurantId}/reservations/`;
const reservationPath = (restaurantId: number | string, id: number | string) => path`/restaurants/${restaurantId}/reservations/${id}/`;

const optionalReservation = (body: unknown, where: { method: string; url: string }): Reservation | null => {
  const single = Array.isArray(body) ? singleObject(body, where) : body;
  return hasResourceBody(single) ? parseOutput(Reservation, single, where) : null;
};

/** `client.reservations` */
export class Reservations extends Resource {
  /**
   * The partner's reservations at a restaurant (`GET /restaurants/:rid/reservations/`). Pages are
   * followed when the service pages. Time filters are sent as query parameters and also applied
   * here, since the spec shows no filters the service is sure to honour.
   */
  list(restaurantId: number | string, filters?: ReservationListFilters, options?: RequestOptions): ListPromise<Reservation> {
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
      value === undefined ? undefined : value instanceof Date ? value.getTime() : readStartTime({ start_time: value }, zone).toMillis();
    const after = instant(parsed.start_time_after);
    const before = instant(parsed.start_time_before);
    const toQuery = (value: string | Date | undefined) => (value instanceof Date ? value.toISOString() : value);
    return listOf(this.transport, {
      path: restaurantPath(rid),
      query: {
        page_size: parsed.page_size,
        start_time_after: toQuery(parsed.start_time_after),
        start_time_before: toQuery(parsed.start_time_before),
      },
      itemSchema: Reservation,
      options,
      filter:
        after === undefined && before === undefined
          ? undefined
          : (reservation) => {
              const at = readStartTime(reservation, zone).toMillis();
              return (after === undefined || at >= after) && (before === undefined || at < before);
            },
    });
  }

  /**
   * Books a table (`POST /restaurants/:rid/reservations/`). `start_time` is converted to the
   * restaurant's timezone. The call is never duplicated by the SDK's own retries: it carries an
   * `Idempotency-Key` header and the same key in `metadata`, and after a failure that leaves the
   * outcome unknown the client looks the reservation up by that key before sending again. When it
   * cannot tell, it throws {@link AmbiguousCreateError} carrying the key.
   *
   * @throws {@link InputValidationError} before any request when the input breaks a spec rule.
   * @throws {@link NoAvailabilityError} when the restaurant has no table then.
   * @example
   * ```ts
   * const reservation = await client.reservations.create(restaurantId, {
   *   start_time: { date: '2026-12-05', time: '19:30' }, adults: 2, first_name: 'Ada',
   * });
   * ```
   */
  create(restaurantId: number | string, input: ReservationCreateInput, options?: CreateReservationOptions): ApiPromise<Reservation> {
    return apiPromise(async () => {
      const rid = checkId(restaurantId, 'restaurant_id');
      const parsed = parseInput(ReservationCreateInput, input);
      // Checked here too, as the timezone look-up below may spend a request first.
      checkRequestOptions(options ?? {});
      const key = options?.idempotencyKey ?? crypto.randomUUID();
      // The key travels in a header, so it must be printable ASCII, and header values lose outer spaces.
      if (typeof key !== 'string' || key.length > 255 || !/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(key)) {
        throw new InputValidationError([{ field: 'idempotencyKey', path: ['idempotencyKey'], code: 'invalid_string', message: 'expected 1 to 255 printable ASCII characters, without leading or trailing spaces' }]);
      }
      const timezone =
        options?.timezone !== undefined ? checkTimezone(options.timezone, 'timezone') : await this.context.timezoneFor(rid, { signal: options?.signal });
      const body: Record<string, unknown> = { ...parsed, start_time: toServiceStartTime(parsed.start_time, timezone) };
      if (this.context.idempotencyMetadata) body.metadata = { ...(parsed.metadata ?? {}), [IDEMPOTENCY_METADATA_KEY]: key };
      try {
        return await this.#sendCreate(rid, key, body, options);
      } catch (error) {
        // A 2xx whose body we cannot read still created the reservation: report it as created
        // (read back through the list by its key) rather than as a failure the partner would retry.
        if (!(error instanceof ResponseValidationError) || !this.context.idempotencyMetadata) throw error;
        const found = await this.findByIdempotencyKey(rid, key, { signal: options?.signal }).catch(() => null);
        if (!found) throw error;
        return { data: found, response: null };
      }
    });
  }

  #sendCreate(rid: number | string, key: string, body: Record<string, unknown>, options: CreateReservationOptions | undefined): Promise<WithResponse<Reservation>> {
    const canLookUp = this.context.idempotencyMetadata;
    // Failures after which the lookup proved the reservation absent: sending again is safe.
    const provenAbsent = new WeakSet<object>();
    const ambiguous = (message: string, cause: unknown, attempts: number) =>
      new AmbiguousCreateError(message, { idempotencyKey: key, restaurantId: rid, attempts, cause });

    return this.transport.request({
      method: 'POST',
      path: restaurantPath(rid),
      body,
      headers: { 'idempotency-key': key },
      safeToRepeat: false,
      options,
      parse: (answer, _response, where) => parseOutput(Reservation, singleObject(answer, where), where),
      isRetryable: (error) =>
        error instanceof RateLimitError ||
        neverReachedServer(error) ||
        (typeof error === 'object' && error !== null && provenAbsent.has(error)),
      recover: async (error, attempt) => {
        // A 429 was not processed and a refused connection never reached the server: the retry
        // layer may send again with the same key.
        if (error instanceof RateLimitError || neverReachedServer(error)) return undefined;
        if (!outcomeUnknown(error)) return undefined;
        if (!canLookUp) {
          throw ambiguous('The create failed after it was sent, and with idempotencyMetadata off the reservation cannot be looked up', error, attempt);
        }
        let found: Reservation | null;
        try {
          found = await this.findByIdempotencyKey(rid, key, { signal: options?.signal, timeoutMs: options?.timeoutMs });
        } catch (lookupError) {
          if (lookupError instanceof AbortError) throw lookupError;
          throw ambiguous('The create failed after it was sent and the lookup by idempotency key failed too', lookupError, attempt);
        }
        if (found) return { body: found };
        // A timeout means the server may still be working on it: absent now proves nothing.
        if (error instanceof TimeoutError) {
          throw ambiguous('The create timed out and no reservation carries its key yet; the service may still be processing it', error, attempt);
        }
        // The server answered (or dropped the connection) and holds no reservation with this key.
        provenAbsent.add(error as object);
        return undefined;
      },
    });
  }

  /**
   * The reservation carrying `idempotencyKey` in its metadata, or null. Use it to reconcile after
   * an {@link AmbiguousCreateError}. Reads the restaurant's list, page by page, through the throttle.
   */
  async findByIdempotencyKey(restaurantId: number | string, idempotencyKey: string, options?: RequestOptions): Promise<Reservation | null> {
    for await (const reservation of this.list(restaurantId, undefined, options)) {
      if (reservation.metadata?.[IDEMPOTENCY_METADATA_KEY] === idempotencyKey) return reservation;
    }
    return null;
  }

  /**
   * One reservation (`GET /restaurants/:rid/reservations/:id/`). The spec shows no detail route;
   * it is inferred by REST convention. When the service has no such route (405, or a 404 without
   * a JSON body), the reservation is found by reading the list instead.
   */
  retrieve(restaurantId: number | string, id: number | string, options?: RequestOptions): ApiPromise<Reservation> {
    return apiPromise(async () => {
      const rid = checkId(restaurantId, 'restaurant_id');
      const reservationId = checkId(id, 'id');
      try {
        return await this.transport.request({
          method: 'GET',
          path: reservationPath(rid, reservationId),
          safeToRepeat: true,
          options,
          parse: (answer, _response, where) => parseOutput(Reservation, singleObject(answer, where), where),
        });
      } catch (error) {
        const noSuchRoute =
          error instanceof PartnerApiError &&
          (error.status === 405 || (error.status === 404 && (error.body === undefined || typeof error.body === 'string')));
        if (!noSuchRoute) throw error;
        for await (const reservation of this.list(rid, undefined, options)) {
          if (String(reservation.id) === String(reservationId)) return { data: reservation, response: null };
        }
        throw new NotFoundError(`Reservation ${reservationId} not found in the list of restaurant ${rid}`, {
          status: 404,
          method: error.method,
          url: error.url,
          cause: error,
        });
      }
    });
  }

  /**
   * Cancels a reservation the partner created (`PATCH .../:id/?action=cancel`). Resolves to the
   * cancelled reservation when the service answers with it, or null when it answers without a
   * body (the spec does not show the answer).
   */
  cancel(restaurantId: number | string, id: number | string, options?: RequestOptions): ApiPromise<Reservation | null> {
    return this.#patch(restaurantId, id, {}, { action: 'cancel' }, 'cancelled', options);
  }

  /** Marks the guest as arrived (`PATCH .../:id/` with `{"arrived": true}`, inferred). Null when answered without a body. */
  markArrived(restaurantId: number | string, id: number | string, options?: RequestOptions): ApiPromise<Reservation | null> {
    return this.#patch(restaurantId, id, { arrived: true }, undefined, 'arrived', options);
  }

  /** Marks the guest as a no-show (`PATCH .../:id/` with `{"no_show": true}`, inferred). Null when answered without a body. */
  markNoShow(restaurantId: number | string, id: number | string, options?: RequestOptions): ApiPromise<Reservation | null> {
    return this.#patch(restaurantId, id, { no_show: true }, undefined, 'no_show', options);
  }

  #patch(
    restaurantId: number | string,
    id: number | string,
    body: unknown,
    query: Record<string, string> | undefined,
    flag: 'cancelled' | 'arrived' | 'no_show',
    options: RequestOptions | undefined,
  ): ApiPromise<Reservation | null> {
    return apiPromise(async () => {
      const rid = checkId(restaurantId, 'restaurant_id');
      const reservationId = checkId(id, 'id');
      // Set once an attempt failed in a way that may have changed the reservation all the same.
      let mayHaveApplied = false;
      return this.transport.request({
        method: 'PATCH',
        path: reservationPath(rid, reservationId),
        query,
        body,
        // Cancelling, or setting a flag to true, twice ends in the same state.
        safeToRepeat: true,
        options,
        parse: (answer, _response, where) => optionalReservation(answer, where),
        recover: async (error) => {
          // Our retry refused as a conflict (already arrived, already cancelled) after an attempt whose
          // outcome is unknown: that attempt may have done it. Read the reservation to tell.
          if (mayHaveApplied && error instanceof ConflictError) {
            const current = await this.retrieve(rid, reservationId, { signal: options?.signal, timeoutMs: options?.timeoutMs }).catch(() => null);
            return current?.[flag] === true ? { body: current } : undefined;
          }
          if (outcomeUnknown(error)) mayHaveApplied = true;
          return undefined;
        },
      });
    });
  }

  /**
   * Waits until an asynchronous-mode reservation is confirmed by reading it every `intervalMs`
   * (each read waits for its rate-limit slot). Resolves with the confirmed reservation; throws
   * {@link ReservationCancelledError} if it is cancelled first and {@link TimeoutError} at the
   * deadline. Webhooks (`RESERVATION_CONFIRMED`) avoid polling altogether.
   */
  async waitForConfirmation(restaurantId: number | string, id: number | string, options: WaitForConfirmationOptions): Promise<Reservation> {
    const clock = this.transport.clock;
    const { timeoutMs, signal } = options;
    if (!(typeof timeoutMs === 'number' && timeoutMs >= 0)) {
      throw new InputValidationError([{ field: 'timeoutMs', path: ['timeoutMs'], code: 'too_small', message: 'expected a number of milliseconds >= 0' }]);
    }
    const intervalMs = options.intervalMs ?? 2000;
    if (!(typeof intervalMs === 'number' && intervalMs >= 0 && Number.isFinite(intervalMs))) {
      throw new InputValidationError([{ field: 'intervalMs', path: ['intervalMs'], code: 'too_small', message: 'expected a finite number of milliseconds >= 0' }]);
    }
    const deadline = clock.now() + timeoutMs;
    for (;;) {
      const reservation = await this.retrieve(restaurantId, id, { signal, timeoutMs: options.requestTimeoutMs });
      if (reservation.confirmed) return reservation;
      if (reservation.cancelled) throw new ReservationCancelledError(`Reservation ${id} was cancelled before it was confirmed`, reservation);
      const left = deadline - clock.now();
      if (left <= 0) throw new TimeoutError(`Reservation ${id} was not confirmed within ${timeoutMs} ms`);
      try {
        await clock.sleep(Math.min(intervalMs, left), signal);
      } catch (error) {
        throw new AbortError('waitForConfirmation was aborted', { cause: signal?.reason ?? error });
      }
    }
  }
}
