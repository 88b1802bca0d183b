/**
 * Reservations of one restaurant. The spec documents list, create and cancel; retrieve and the
 * arrived / no-show PATCH are inferred by REST convention.
 * @module
 */
import {
  AbortError,
  AmbiguousCreateError,
  ConflictError,
  ConnectionError,
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
import { neverReachedServer, outcomeUnknown, type Call, type RequestOptions } from '../transport/transport.js';
import { checkRequestOptions, parseInput, parseOutput } from '../transport/validate.js';
import { readStartTime, toServiceStartTime } from '../time.js';
import { checkTimezone } from '../restaurant-timezones.js';
import type { RequestHeaders } from '../transport/headers.js';
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
   * your order id: it is looked up before the first send, so a create you repeat after a crash
   * returns the first booking instead of booking again, on any service.
   */
  idempotencyKey?: string | undefined;
  /**
   * The restaurant's IANA timezone (`'Europe/Brussels'`), when you know it: `start_time` is
   * converted with it and no request is spent reading the restaurants list.
   */
  timezone?: string | undefined;
}

/** Options of `reservations.waitForConfirmation`. Give `deadlineMs` (or its older name `timeoutMs`). */
export interface WaitForConfirmationOptions {
  /** How long to wait in all, reads included; then a {@link TimeoutError}. */
  deadlineMs?: number | undefined;
  /**
   * @deprecated The older name of `deadlineMs`, kept working. Everywhere else `timeoutMs` limits one
   * attempt, while here it always meant the whole wait; `deadlineMs` says so.
   */
  timeoutMs?: number | undefined;
  /** Time between two reads (default 2000 ms); every read also waits for its rate-limit slot. */
  intervalMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Per-attempt timeout of each read. */
  requestTimeoutMs?: number | undefined;
  /** Retries of each read. */
  maxRetries?: number | undefined;
  /** Extra headers of each read, as every method's `headers`. */
  headers?: RequestHeaders | undefined;
}

/**
 * The creates with a caller's own key now running in this process, by service, restaurant and key:
 * each settles to its AmbiguousCreateError, or to undefined.
 */
const createsInFlight = new Map<string, Promise<AmbiguousCreateError | undefined>>();

/** When the look-ups of the settle window run, as shares of the window: at once, then ever further apart. */
const SETTLE_SCHEDULE = [0, 0.1, 0.3, 0.6, 1];

/** What a look-up by key can tell: found, absent (the whole list was read), or it cannot tell. */
type LookUp = { state: 'found'; reservation: Reservation } | { state: 'absent' } | { state: 'unknown'; cause: unknown };

/** True when a failed create may have booked all the same: its outcome is unknown, or the caller aborted it after it was sent. */
function mayHaveTakenEffect(error: unknown): boolean {
  return outcomeUnknown(error) || (error instanceof AbortError && !neverReachedServer(error));
}

/** An answer that refuses the call itself (credentials, permission, no such restaurant), as opposed to one that cannot tell. */
function isDefinitiveRefusal(error: unknown): boolean {
  return error instanceof PartnerApiError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
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
   * `Idempotency-Key` header and the same key in `metadata`, and a second POST goes out only when
   * the first provably did not take effect (never sent, 429, or `idempotencyKeyHonoured`). After a
   * failure that leaves the outcome unknown, the reservation is looked up by its key over a short
   * settle window; when it is not found, {@link AmbiguousCreateError} carries the key.
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
    return this.scrubbed(() => this.#announceCreated(restaurantId, async () => {
      const rid = checkId(restaurantId, 'restaurant_id');
      const parsed = parseInput(ReservationCreateInput, input);
      // Checked here too, as the timezone look-up below may spend a request first.
      checkRequestOptions(options ?? {});
      const key = options?.idempotencyKey ?? crypto.randomUUID();
      // The key travels in a header, so it must be printable ASCII, and header values lose outer spaces.
      if (typeof key !== 'string' || key.length > 255 || !/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(key)) {
        throw new InputValidationError([{ field: 'idempotencyKey', path: ['idempotencyKey'], code: 'invalid_string', message: 'expected 1 to 255 printable ASCII characters, without leading or trailing spaces' }]);
      }
      // From here on, every request of this create (timezone, look-ups, the POST) shares one deadline.
      const call = this.transport.call(options);
      const timezone = options?.timezone !== undefined ? checkTimezone(options.timezone, 'timezone') : await this.context.timezoneFor(rid, call);
      const body: Record<string, unknown> = { ...parsed, start_time: toServiceStartTime(parsed.start_time, timezone) };
      if (this.context.idempotencyMetadata) body.metadata = { ...(parsed.metadata ?? {}), [IDEMPOTENCY_METADATA_KEY]: key };
      // A caller's own key may have booked already (a repeat after a crash): look first, on any
      // service. A service declared to honour the header answers a repeat with the first booking.
      if (options?.idempotencyKey !== undefined && this.context.idempotencyMetadata && !this.context.idempotencyKeyHonoured) {
        // Two creates with the same key at once would both look, both find nothing and both book:
        // the second waits for the first to settle, and its look-up then finds that booking.
        return this.#oneAtATime(rid, key, call, async () => {
          const earlier = await this.#lookUp(rid, key, call);
          if (earlier.state === 'found') return { data: earlier.reservation, response: null };
          if (earlier.state === 'unknown') {
            if (isDefinitiveRefusal(earlier.cause)) throw earlier.cause;
            throw this.#ambiguous(rid, key, 'Could not tell whether a reservation with this idempotency key exists, so nothing was sent', earlier.cause, 0);
          }
          return this.#sendCreate(rid, key, body, call);
        });
      }
      return this.#sendCreate(rid, key, body, call);
    }));
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

  async #announceCreated(restaurantId: number | string, create: () => Promise<WithResponse<Reservation>>): Promise<WithResponse<Reservation>> {
    const result = await create();
    for (const { listener } of [...this.context.createdListeners]) {
      try {
        listener(Number(restaurantId), result.data);
      } catch {
        // The booking is made; a listener's failure is its own.
      }
    }
    return result;
  }

  /**
   * Runs `work` once every earlier create with the same key (same service and restaurant) in this
   * process has settled. One that ended with its outcome unknown may still book: then nothing is
   * sent, and this create is as ambiguous as that one.
   */
  async #oneAtATime<T>(rid: number | string, key: string, call: Call, work: () => Promise<T>): Promise<T> {
    const slot = `${this.transport.baseUrl} ${rid} ${key}`;
    // The wait ends by the call's own signal and deadline (nothing sent then).
    for (let earlier = createsInFlight.get(slot); earlier; earlier = createsInFlight.get(slot)) {
      const ended = await call.within(earlier, { method: 'POST' });
      if (ended) throw this.#ambiguous(rid, key, 'An earlier create with this idempotency key, running at the same time, ended with its outcome unknown, so nothing was sent', ended, 0);
    }
    const mine = work();
    const settled = mine.then(
      () => undefined,
      (error: unknown) => (error instanceof AmbiguousCreateError ? error : undefined),
    );
    createsInFlight.set(slot, settled);
    try {
      return await mine;
    } finally {
      if (createsInFlight.get(slot) === settled) createsInFlight.delete(slot);
    }
  }

  /**
   * Sends the create. A second POST goes out only when the first provably did not take effect: it
   * was never sent, it was answered 429, or the service is declared to honour `Idempotency-Key`.
   * After any failure that leaves the outcome unknown, the reservation is looked up by its key
   * over a short settle window: found, it is the answer; not found, {@link AmbiguousCreateError}.
   */
  async #sendCreate(rid: number | string, key: string, body: Record<string, unknown>, call: Call): Promise<WithResponse<Reservation>> {
    const honoured = this.context.idempotencyKeyHonoured;
    // Set once any attempt failed in a way that may have booked all the same.
    let mayHaveBooked = false;
    let attempts = 0;
    try {
      return await this.transport.request({
        method: 'POST',
        path: restaurantPath(rid),
        body,
        headers: { 'idempotency-key': key },
        safeToRepeat: false,
        options: call,
        parse: (answer, _response, where) => {
          const created = parseOutput(Reservation, singleObject(answer, where), where);
          // An answer carrying another key is some other reservation, not this create's: its outcome is unknown.
          const carried = created.metadata?.[IDEMPOTENCY_METADATA_KEY];
          if (this.context.idempotencyMetadata && carried !== undefined && carried !== key) {
            throw new ResponseValidationError(
              [{ field: `metadata.${IDEMPOTENCY_METADATA_KEY}`, path: ['metadata', IDEMPOTENCY_METADATA_KEY], code: 'other_reservation', message: "the answer carries another create's idempotency key" }],
              { ...where, body: answer },
            );
          }
          return created;
        },
        isRetryable: (error) => error instanceof RateLimitError || (error instanceof ConnectionError && neverReachedServer(error)) || (honoured && outcomeUnknown(error) && !(error instanceof ResponseValidationError)),
        recover: async (error, attempt) => {
          attempts = attempt;
          if (mayHaveTakenEffect(error)) mayHaveBooked = true;
          return undefined;
        },
      });
    } catch (error) {
      // A 2xx outside the contract (or too large to read) booked all the same.
      if (error instanceof ResponseValidationError) mayHaveBooked = true;
      if (!mayHaveBooked && !mayHaveTakenEffect(error)) throw error;
      const tried = Math.max(attempts, (error as { attempts?: number }).attempts ?? 1);
      // The caller stopped waiting, or no time is left: say so at once, with the key.
      if (error instanceof AbortError || call.signal?.aborted) {
        throw this.#ambiguous(rid, key, 'The create was aborted after it was sent; the reservation may exist', error, tried);
      }
      return { data: await this.#settle(rid, key, error, call, tried), response: null };
    }
  }

  /**
   * Looks the key up a few times over the settle window (on the client's clock, within the call's
   * deadline), so a booking the service commits a few seconds after a gateway error is found.
   */
  async #settle(rid: number | string, key: string, cause: unknown, call: Call, attempts: number): Promise<Reservation> {
    if (!this.context.idempotencyMetadata) {
      throw this.#ambiguous(rid, key, 'The create failed after it was sent, and with idempotencyMetadata off the reservation cannot be looked up', cause, attempts);
    }
    const clock = this.transport.clock;
    const windowMs = this.context.createLookupWindowMs;
    const startedAt = clock.now();
    let last: LookUp = { state: 'unknown', cause };
    for (const share of SETTLE_SCHEDULE) {
      const waitMs = startedAt + share * windowMs - clock.now();
      const left = call.remainingMs();
      if (share > 0 && windowMs === 0) break;
      if (left !== undefined && left <= Math.max(0, waitMs)) break;
      if (waitMs > 0) {
        try {
          await clock.sleep(waitMs, call.signal);
        } catch (abort) {
          throw this.#ambiguous(rid, key, 'The create was aborted while its outcome was being checked; the reservation may exist', abort, attempts);
        }
      }
      last = await this.#lookUp(rid, key, call);
      if (last.state === 'found') return last.reservation;
    }
    const why = last.state === 'absent' ? 'no reservation carries its idempotency key yet' : 'the look-up by idempotency key could not tell';
    throw this.#ambiguous(rid, key, `The create failed after it was sent and ${why}; the service may still book it`, last.state === 'unknown' ? last.cause : cause, attempts);
  }

  #ambiguous(rid: number | string, key: string, message: string, cause: unknown, attempts: number): AmbiguousCreateError {
    // No attempt of this call: it sent nothing (an earlier create, or a look-up, left it in doubt).
    return new AmbiguousCreateError(message, { idempotencyKey: key, restaurantId: rid, attempts, cause, sent: attempts === 0 ? 'no' : 'maybe' });
  }

  /**
   * Reads the whole list for the key. Honest: a listing that loops, runs past its page limit,
   * ends before its `count` or fails means "cannot tell", never "absent".
   */
  async #lookUp(rid: number | string, key: string, call: Call): Promise<LookUp> {
    try {
      let page = await this.list(rid, undefined, call);
      let seen = 0;
      const ids = new Set<string>();
      for (;;) {
        seen += page.items.length;
        // A reservation read twice means a page came back under another URL (the first page as
        // `?page=1`): the count no longer tells whether every reservation was read.
        for (const { id } of page.items) {
          if (ids.has(String(id))) {
            return { state: 'unknown', cause: new ResponseValidationError([{ field: 'next', path: ['next'], code: 'pagination_repeat', message: `reservation ${id} was listed twice` }]) };
          }
          ids.add(String(id));
        }
        const found = page.items.find((reservation) => reservation.metadata?.[IDEMPOTENCY_METADATA_KEY] === key);
        if (found) return { state: 'found', reservation: found };
        if (!page.hasNextPage()) break;
        page = await page.getNextPage();
      }
      if (page.count !== undefined && seen < page.count) {
        return { state: 'unknown', cause: new ResponseValidationError([{ field: 'count', path: ['count'], code: 'list_ended_early', message: `the list ended after ${seen} of ${page.count} reservations` }]) };
      }
      return { state: 'absent' };
    } catch (error) {
      return { state: 'unknown', cause: error };
    }
  }

  /**
   * The reservation carrying `idempotencyKey` in its metadata, or null when the whole list was read
   * and none does. Use it to reconcile after an {@link AmbiguousCreateError}. Reads the
   * restaurant's list, page by page, through the throttle; a list that cannot be read whole (it
   * loops, ends before its `count`, or fails) rejects rather than answer null.
   */
  findByIdempotencyKey(restaurantId: number | string, idempotencyKey: string, options?: RequestOptions): Promise<Reservation | null> {
    return this.scrubbed(async () => {
      const rid = checkId(restaurantId, 'restaurant_id');
      const result = await this.#lookUp(rid, idempotencyKey, this.transport.call(options));
      if (result.state === 'unknown') throw result.cause;
      return { data: result.state === 'found' ? result.reservation : null, response: null };
    }).then((value) => value);
  }

  /**
   * One reservation (`GET /restaurants/:rid/reservations/:id/`). The spec shows no detail route;
   * it is inferred by REST convention. When the service has no such route (405, or a 404 without
   * a JSON body), the reservation is found by reading the list instead.
   */
  retrieve(restaurantId: number | string, id: number | string, options?: RequestOptions): ApiPromise<Reservation> {
    return this.scrubbed(async () => {
      const rid = checkId(restaurantId, 'restaurant_id');
      const reservationId = checkId(id, 'id');
      const call = this.transport.call(options);
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
          (error.status === 405 || (error.status === 404 && (error.body === undefined || typeof error.body === 'string')));
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
      const call = this.transport.call(options);
      // Set once an attempt failed in a way that may have changed the reservation all the same.
      let mayHaveApplied = false;
      return this.transport.request({
        method: 'PATCH',
        path: reservationPath(rid, reservationId),
        query,
        body,
        // Cancelling, or setting a flag to true, twice ends in the same state.
        safeToRepeat: true,
        options: call,
        parse: (answer, _response, where) => optionalReservation(answer, where),
        recover: async (error) => {
          // Our retry refused as a conflict (already arrived, already cancelled) after an attempt whose
          // outcome is unknown: that attempt may have done it. Read the reservation to tell.
          if (mayHaveApplied && error instanceof ConflictError) {
            const current = await this.retrieve(rid, reservationId, call).catch(() => null);
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
   * {@link ReservationCancelledError} if it is cancelled first and {@link TimeoutError} once
   * `deadlineMs` has passed. Webhooks (`RESERVATION_CONFIRMED`) avoid polling altogether.
   */
  async waitForConfirmation(restaurantId: number | string, id: number | string, options: WaitForConfirmationOptions): Promise<Reservation> {
    const clock = this.transport.clock;
    const { signal } = options ?? {};
    const waitField = options?.deadlineMs !== undefined ? 'deadlineMs' : 'timeoutMs';
    const waitMs = options?.deadlineMs ?? options?.timeoutMs;
    if (!(typeof waitMs === 'number' && waitMs >= 0 && Number.isFinite(waitMs))) {
      throw new InputValidationError([{ field: waitField, path: [waitField], code: 'too_small', message: 'expected a finite number of milliseconds >= 0 (how long to wait in all)' }]);
    }
    const intervalMs = options.intervalMs ?? 2000;
    if (!(typeof intervalMs === 'number' && intervalMs >= 0 && Number.isFinite(intervalMs))) {
      throw new InputValidationError([{ field: 'intervalMs', path: ['intervalMs'], code: 'too_small', message: 'expected a finite number of milliseconds >= 0' }]);
    }
    // Every read shares the wait's deadline; its own timeout per attempt is `requestTimeoutMs`.
    const call = this.transport.call({ signal, timeoutMs: options.requestTimeoutMs, maxRetries: options.maxRetries, deadlineMs: waitMs > 0 ? waitMs : undefined, headers: options.headers });
    const deadline = clock.now() + waitMs;
    for (;;) {
      const reservation = await this.retrieve(restaurantId, id, call);
      if (reservation.confirmed) return reservation;
      if (reservation.cancelled) throw new ReservationCancelledError(`Reservation ${id} was cancelled before it was confirmed`, reservation);
      const left = deadline - clock.now();
      // Every read so far was answered: what the wait ended on was sent.
      if (left <= 0) throw new TimeoutError(`Reservation ${id} was not confirmed within ${waitMs} ms`, { sent: 'yes' });
      try {
        await clock.sleep(Math.min(intervalMs, left), signal);
      } catch (error) {
        throw new AbortError('waitForConfirmation was aborted', { cause: signal?.reason ?? error, sent: 'yes' });
      }
    }
  }
}
