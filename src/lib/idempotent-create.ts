/**
 * The idempotent create: everything that keeps `reservations.create` from booking twice, in one
 * place. The invariant: the client never reports success while a second booking made by its own
 * sends exists, and never sends a second create for a key unless the first provably did not take
 * effect.
 *
 * - A caller's own key goes through the booking ledger first: a create with that key already
 *   running waits for it, a key that booked answers with its reservation (one read), a key that
 *   ended ambiguous is held (nothing sent), a key reused for other input is refused.
 * - The key is looked up before the first send, and after every answer that may have booked
 *   (a 429, a 5xx, no answer, a 2xx that is not this create's): a second POST goes out only when
 *   the look-up read the whole list, consistently, and found nothing.
 * - A look-up says "absent" only after a complete and consistent read; otherwise it cannot tell.
 * @module
 */
import {
  AbortError,
  AmbiguousCreateError,
  ConnectionError,
  BookingLedgerUnavailableError,
  IdempotencyKeyReuseError,
  InputValidationError,
  PartnerApiError,
  RateLimitError,
  ResponseValidationError,
  TimeoutError,
} from '../errors.js';
import type { ApiPromise, WithResponse } from '../transport/api-promise.js';
import type { ListPromise } from '../transport/pagination.js';
import { path } from '../transport/path.js';
import {
  neverReachedServer,
  outcomeUnknown,
  type Call,
  type RequestOptions,
} from '../transport/transport.js';
import { checkRequestOptions, parseInput, parseOutput } from '../transport/validate.js';
import { readStartTime, toServiceStartTime } from '../time.js';
import { checkTimezone } from '../restaurant-timezones.js';
import {
  Reservation,
  ReservationCreateInput,
  type ReservationCreateBody,
  type ReservationListFilters,
} from '../resources/reservations.schemas.js';
import { apiPromise, checkId, singleObject, type ResourceContext } from '../resources/resource.js';
import { ledgerSlot, type BookingLedgerEntry } from './booking-ledger.js';

/**
 * The `metadata` key under which every create stores its idempotency key, so the reservation can
 * be found again after a failure that left its fate unknown.
 */
export const IDEMPOTENCY_METADATA_KEY = 'restaurant_partner_sdk.idempotency_key';

/** Default `ambiguousHoldMs`: 15 minutes (the README says why). */
export const DEFAULT_AMBIGUOUS_HOLD_MS = 15 * 60_000;
/** How long a claim lasts unless renewed; renewed every third of it while its create runs. */
const LEASE_MS = 30_000;
/** How long the ledger remembers key -> reservation id: a week of queue redeliveries. */
const REMEMBER_BOOKING_MS = 7 * 24 * 60 * 60_000;
/** Waits between two looks at a key another create holds: doubling from the first to the last. */
const FIRST_WAIT_MS = 50;
const LONGEST_WAIT_MS = 1000;
/** When the look-ups of the settle window run, as shares of the window: at once, then ever further apart. */
const SETTLE_SCHEDULE = [0, 0.1, 0.3, 0.6, 1];
/** The guest fields compared when a key is repeated: those the caller sent. */
const GUEST_FIELDS = ['first_name', 'last_name', 'email', 'phone'] as const;

/** Per-call options of `reservations.create`. */
export interface CreateReservationOptions extends RequestOptions {
  /**
   * The idempotency key of this booking (default: a random UUID). Pass your own, derived from
   * your order id: a create you repeat with it (after a crash, a redelivered job, in another
   * process sharing the booking ledger) returns the first booking instead of booking again.
   */
  idempotencyKey?: string | undefined;
  /**
   * The restaurant's IANA timezone (`'Europe/Brussels'`), when you know it: `start_time` is
   * converted with it and no request is spent reading the restaurants list.
   */
  timezone?: string | undefined;
}

/** The reads of the reservations resource a create and a look-up use. */
export interface ReservationReads {
  list(
    restaurantId: number | string,
    filters?: ReservationListFilters,
    options?: RequestOptions,
  ): ListPromise<Reservation>;
  retrieve(
    restaurantId: number | string,
    id: number | string,
    options?: RequestOptions,
  ): ApiPromise<Reservation>;
}

/** What a look-up by key can tell: found, absent (a complete and consistent read), or it cannot tell. */
export type LookUp =
  { state: 'found'; reservation: Reservation } | { state: 'absent' } | { state: 'unknown'; cause: unknown };

const restaurantPath = (restaurantId: number | string) => path`/restaurants/${restaurantId}/reservations/`;

/** True when a failed create may have booked all the same: a 429, an unknown outcome, or the caller's abort after it was sent. */
function mayHaveTakenEffect(error: unknown): boolean {
  return (
    error instanceof RateLimitError ||
    outcomeUnknown(error) ||
    (error instanceof AbortError && !neverReachedServer(error))
  );
}

/** An answer that refuses the call itself (credentials, permission, no such restaurant), as opposed to one that cannot tell. */
function isDefinitiveRefusal(error: unknown): boolean {
  return (
    error instanceof PartnerApiError &&
    error.status >= 400 &&
    error.status < 500 &&
    error.status !== 408 &&
    error.status !== 429
  );
}

/** `reservations.create`. */
export function createReservation(
  context: ResourceContext,
  reads: ReservationReads,
  restaurantId: number | string,
  input: ReservationCreateInput,
  options: CreateReservationOptions | undefined,
): ApiPromise<Reservation> {
  const secrets = context.transport.secrets;
  return apiPromise(async () => {
    try {
      return announced(
        context,
        restaurantId,
        await new IdempotentCreate(context, reads).run(restaurantId, input, options),
      );
    } catch (error) {
      throw secrets.scrubError(error);
    }
  });
}

/** Hands the booking to the client's `onCreated` listeners; a listener's failure is its own, never the create's. */
function announced(
  context: ResourceContext,
  restaurantId: number | string,
  result: WithResponse<Reservation>,
): WithResponse<Reservation> {
  for (const { listener } of [...context.createdListeners]) {
    try {
      listener(Number(restaurantId), result.data);
    } catch {
      // The booking is made.
    }
  }
  return result;
}

/** `reservations.findByIdempotencyKey`. */
export function findReservationByKey(
  context: ResourceContext,
  reads: ReservationReads,
  restaurantId: number | string,
  key: string,
  options: RequestOptions | undefined,
): Promise<Reservation | null> {
  const secrets = context.transport.secrets;
  return apiPromise(async () => {
    const rid = checkId(restaurantId, 'restaurant_id');
    const result = await lookUpByKey(reads, rid, key, context.transport.call(options));
    if (result.state === 'unknown') throw result.cause;
    return { data: result.state === 'found' ? result.reservation : null, response: null };
  })
    .then((value) => value)
    .catch((error: unknown) => Promise.reject(secrets.scrubError(error)));
}

/**
 * The booking's input as the ledger compares it: restaurant, `start_time` as an instant (UTC),
 * adults, children (0 when omitted) and the guest fields the caller sent. Canonical JSON, so equal
 * input gives an equal string and the fields that differ can be named.
 */
function fingerprintOf(
  restaurantId: number | string,
  parsed: ReservationCreateBody,
  startInstant: string,
): string {
  const fields: Record<string, unknown> = {
    restaurant: String(restaurantId),
    start_time: startInstant,
    adults: parsed.adults,
    children: parsed.children ?? 0,
  };
  for (const field of GUEST_FIELDS) if (parsed[field] !== undefined) fields[field] = parsed[field];
  return JSON.stringify(fields);
}

/** The fields two fingerprints disagree on. */
function differingFields(first: string, second: string): string[] {
  let a: Record<string, unknown>;
  let b: Record<string, unknown>;
  try {
    a = JSON.parse(first) as Record<string, unknown>;
    b = JSON.parse(second) as Record<string, unknown>;
  } catch {
    return ['(input)'];
  }
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  const differing = names.filter((name) => JSON.stringify(a[name]) !== JSON.stringify(b[name]));
  return differing.length > 0 ? differing : ['(input)'];
}

// Guest fields as a service may store them: trimmed, case-folded, a phone number by its digits.
const comparable = (field: string, value: unknown) =>
  typeof value !== 'string'
    ? value
    : field === 'phone'
      ? value.replace(/[^\d+]/g, '')
      : value.trim().toLowerCase();

/** The fields in which a reservation found under the key differs from this create's input. */
function fieldsDifferingFrom(
  found: Reservation,
  parsed: ReservationCreateBody,
  startMillis: number,
  timezone: string | null,
): string[] {
  const differing: string[] = [];
  if (readStartTime(found, timezone).toMillis() !== startMillis) differing.push('start_time');
  if (found.adults !== undefined && found.adults !== parsed.adults) differing.push('adults');
  if (found.children != null && found.children !== (parsed.children ?? 0)) differing.push('children');
  for (const field of GUEST_FIELDS) {
    const sent = parsed[field];
    const stored = found[field];
    if (sent === undefined || stored == null) continue;
    if (comparable(field, sent) !== comparable(field, stored)) differing.push(field);
  }
  return differing;
}

/** One read of the whole list for a key, and whether it saw a stable list. */
type Pass =
  | { state: 'found'; reservation: Reservation }
  | {
      state: 'read';
      complete: boolean;
      ids: string[];
      counted: boolean;
      duplicate: boolean;
      why: { code: string; message: string } | undefined;
    };

async function readPass(
  reads: ReservationReads,
  rid: number | string,
  key: string,
  call: Call,
): Promise<Pass> {
  let page = await reads.list(rid, undefined, call);
  const counts: (number | undefined)[] = [];
  const ids: string[] = [];
  const seenIds = new Set<string>();
  let duplicate = false;
  for (;;) {
    counts.push(page.count);
    for (const reservation of page.items) {
      const id = String(reservation.id);
      // A reservation read twice: the list moved between pages, or a page came back under another URL.
      if (seenIds.has(id)) duplicate = true;
      seenIds.add(id);
      ids.push(id);
      if (reservation.metadata?.[IDEMPOTENCY_METADATA_KEY] === key) return { state: 'found', reservation };
    }
    if (!page.hasNextPage()) break;
    page = await page.getNextPage();
  }
  const counted = counts.every((count) => count !== undefined);
  const sameCount = counted && counts.every((count) => count === counts[0]);
  const count = counts[0];
  let why: { code: string; message: string } | undefined;
  if (duplicate) why = { code: 'pagination_repeat', message: 'a reservation was listed twice' };
  else if (counts.length > 1 && !counted)
    why = { code: 'list_without_count', message: 'the pages report no count' };
  else if (counted && !sameCount)
    why = {
      code: 'list_changed',
      message: `the count changed while the pages were read (${counts.join(', ')})`,
    };
  else if (count !== undefined && ids.length !== count)
    why = {
      code: 'list_ended_early',
      message: `the list ended after ${ids.length} of ${count} reservations`,
    };
  // One answer is one snapshot; several are one only when every page reports the count they add up to.
  return { state: 'read', complete: why === undefined, ids, counted, duplicate, why };
}

/**
 * Reads the whole list for the key. "Absent" only after a complete and consistent read: every page
 * reports the same `count` and the pages add up to it. When the list changed during the read (or
 * has no count), a second read decides: absent when it is consistent itself, or, for a list
 * without counts, when it lists exactly the same reservations. A listing that loops, runs past its
 * page limit or fails, or two reads that disagree, mean "cannot tell", never "absent".
 */
export async function lookUpByKey(
  reads: ReservationReads,
  rid: number | string,
  key: string,
  call: Call,
): Promise<LookUp> {
  try {
    const first = await readPass(reads, rid, key, call);
    if (first.state === 'found') return first;
    if (first.complete) return { state: 'absent' };
    const second = await readPass(reads, rid, key, call);
    if (second.state === 'found') return second;
    if (second.complete) return { state: 'absent' };
    const sameList =
      !first.counted &&
      !second.counted &&
      !first.duplicate &&
      !second.duplicate &&
      first.ids.join(',') === second.ids.join(',');
    if (sameList) return { state: 'absent' };
    return {
      state: 'unknown',
      cause: new ResponseValidationError([
        {
          field: 'count',
          path: ['count'],
          code: second.why?.code ?? 'list_changed',
          message: `the list could not be read whole and consistently: ${first.why?.message ?? 'first read'}, then ${second.why?.message ?? 'a second read listed other reservations'}`,
        },
      ]),
    };
  } catch (error) {
    return { state: 'unknown', cause: error };
  }
}

/** One `reservations.create` call. */
class IdempotentCreate {
  readonly #context: ResourceContext;
  readonly #reads: ReservationReads;
  // Set by run() before anything else reads them.
  #rid: number | string = '';
  #key = '';
  #call!: Call;
  /** Set once a POST of this create was handed to the transport. */
  #posted = false;

  constructor(context: ResourceContext, reads: ReservationReads) {
    this.#context = context;
    this.#reads = reads;
  }

  get #transport() {
    return this.#context.transport;
  }

  async run(
    restaurantId: number | string,
    input: ReservationCreateInput,
    options: CreateReservationOptions | undefined,
  ): Promise<WithResponse<Reservation>> {
    const context = this.#context;
    const rid = (this.#rid = checkId(restaurantId, 'restaurant_id'));
    const parsed = parseInput(ReservationCreateInput, input);
    // Checked here too, as the timezone look-up below may spend a request first.
    checkRequestOptions(options ?? {});
    const key = (this.#key = options?.idempotencyKey ?? crypto.randomUUID());
    // The key travels in a header, so it must be printable ASCII, and header values lose outer spaces.
    if (
      typeof key !== 'string' ||
      key.length > 255 ||
      !/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(key)
    ) {
      throw new InputValidationError([
        {
          field: 'idempotencyKey',
          path: ['idempotencyKey'],
          code: 'invalid_string',
          message: 'expected 1 to 255 printable ASCII characters, without leading or trailing spaces',
        },
      ]);
    }
    // From here on, every request of this create (timezone, look-ups, the POST) shares one deadline.
    const call = (this.#call = this.#transport.call(options));
    const timezone =
      options?.timezone !== undefined
        ? checkTimezone(options.timezone, 'timezone')
        : await context.timezoneFor(rid, call);
    const body: Record<string, unknown> = {
      ...parsed,
      start_time: toServiceStartTime(parsed.start_time, timezone),
    };
    if (context.idempotencyMetadata)
      body.metadata = { ...(parsed.metadata ?? {}), [IDEMPOTENCY_METADATA_KEY]: key };
    // A random key is this call's alone: nothing to share, nothing to look up before sending.
    if (options?.idempotencyKey === undefined) return this.#send(body);
    const start = readStartTime({ start_time: body.start_time as string }, timezone);
    const fingerprint = fingerprintOf(rid, parsed, start.toUTC().toISO() ?? String(body.start_time));
    return this.#throughLedger(fingerprint, async () => {
      // A caller's own key may have booked already with no ledger to tell (another process, a
      // restart): look first. A service declared to honour the header answers a repeat itself.
      if (context.idempotencyMetadata && !context.idempotencyKeyHonoured) {
        const earlier = await lookUpByKey(this.#reads, rid, key, call);
        if (earlier.state === 'found') {
          const differing = fieldsDifferingFrom(earlier.reservation, parsed, start.toMillis(), timezone);
          if (differing.length > 0)
            throw new IdempotencyKeyReuseError({ idempotencyKey: key, restaurantId: rid, fields: differing });
          return { data: earlier.reservation, response: null };
        }
        if (earlier.state === 'unknown') {
          if (isDefinitiveRefusal(earlier.cause)) throw earlier.cause;
          throw this.#ambiguous(
            'Could not tell whether a reservation with this idempotency key exists, so nothing was sent',
            earlier.cause,
            0,
          );
        }
      }
      return this.#send(body);
    });
  }

  /** A ledger operation within the call's signal and deadline; a ledger that fails refuses the create (nothing sent). */
  async #ledger<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await this.#call.within(Promise.resolve().then(operation), { method: 'POST' });
    } catch (error) {
      const callEnded =
        (error instanceof AbortError || error instanceof TimeoutError) && neverReachedServer(error);
      if (callEnded) throw error;
      throw new BookingLedgerUnavailableError(
        `The booking ledger could not be read (${error instanceof Error ? error.message : String(error)}), so the create was not sent: without it the client cannot tell whether this idempotency key is booking or booked elsewhere`,
        { idempotencyKey: this.#key, cause: error },
      );
    }
  }

  /**
   * Runs `create` as the one holder of the key in the ledger, or answers with what the ledger
   * knows: the booking of an earlier create, the outcome of one running now, or an ambiguous hold.
   */
  async #throughLedger(
    fingerprint: string,
    create: () => Promise<WithResponse<Reservation>>,
  ): Promise<WithResponse<Reservation>> {
    const context = this.#context;
    const ledger = context.bookingLedger;
    const slot = ledgerSlot(context.service, context.partnerId, this.#rid, this.#key);
    const token = crypto.randomUUID();
    let waitMs = FIRST_WAIT_MS;
    let waited = false;
    for (;;) {
      const entry = await this.#ledger(() =>
        ledger.claim(slot, { token, fingerprint, leaseMs: LEASE_MS, now: this.#transport.clock.now() }),
      );
      if (entry === undefined) return this.#asHolder(slot, token, fingerprint, create);
      if (entry.fingerprint !== fingerprint) {
        throw new IdempotencyKeyReuseError({
          idempotencyKey: this.#key,
          restaurantId: this.#rid,
          fields: differingFields(entry.fingerprint, fingerprint),
        });
      }
      if (entry.state === 'booked')
        return this.#reads.retrieve(this.#rid, entry.reservationId, this.#call).withResponse();
      if (entry.state === 'ambiguous') {
        if (waited)
          throw this.#ambiguous(
            `An earlier create with this idempotency key, running at the same time, ended with its outcome unknown; until ${new Date(entry.until).toISOString()} nothing is sent with this key`,
            undefined,
            0,
          );
        return this.#whileHeld(slot, entry);
      }
      // Another create with this key is running: wait for its outcome, within this call's signal and deadline.
      waited = true;
      const stop = new AbortController();
      const signal = this.#call.signal ? AbortSignal.any([this.#call.signal, stop.signal]) : stop.signal;
      try {
        const change = ledger.changed
          ? ledger.changed(slot, { timeoutMs: waitMs, signal })
          : sleep(waitMs, signal);
        await this.#call.within(change, { method: 'POST' });
      } finally {
        stop.abort();
      }
      waitMs = Math.min(waitMs * 2, LONGEST_WAIT_MS);
    }
  }

  /** Holds the claim (renewed) while `create` runs, then records its outcome for every other create with the key. */
  async #asHolder(
    slot: string,
    token: string,
    fingerprint: string,
    create: () => Promise<WithResponse<Reservation>>,
  ): Promise<WithResponse<Reservation>> {
    const { bookingLedger: ledger, ambiguousHoldMs } = this.#context;
    const renewal = setInterval(
      () => void ledger.renew(slot, token, LEASE_MS).catch(() => undefined),
      LEASE_MS / 3,
    );
    (renewal as { unref?: () => void }).unref?.();
    // An outcome that cannot be recorded leaves the claim to expire; the next create with the key then looks it up.
    const record = (outcome: BookingLedgerEntry | undefined, keepMs: number) =>
      ledger.settle(slot, token, outcome, keepMs).catch(() => undefined);
    try {
      const result = await create();
      await record(
        { state: 'booked', fingerprint, reservationId: String(result.data.id) },
        REMEMBER_BOOKING_MS,
      );
      return result;
    } catch (error) {
      if (error instanceof AmbiguousCreateError && this.#posted) {
        await record(
          { state: 'ambiguous', fingerprint, until: this.#transport.clock.now() + ambiguousHoldMs },
          ambiguousHoldMs,
        );
      } else {
        // Nothing was booked by this create (refused, never sent, or nothing sent at all).
        await record(undefined, 0);
      }
      throw error;
    } finally {
      clearInterval(renewal);
    }
  }

  /**
   * A key whose create ended ambiguous, still held: nothing is sent. A look-up that finds the
   * booking answers with it (and the ledger remembers it); otherwise the create is ambiguous again.
   */
  async #whileHeld(
    slot: string,
    entry: Extract<BookingLedgerEntry, { state: 'ambiguous' }>,
  ): Promise<WithResponse<Reservation>> {
    const until = new Date(entry.until).toISOString();
    if (!this.#context.idempotencyMetadata) {
      throw this.#ambiguous(
        `A create with this idempotency key ended with its outcome unknown; until ${until} nothing is sent with this key (with idempotencyMetadata off it cannot be looked up)`,
        undefined,
        0,
      );
    }
    const found = await lookUpByKey(this.#reads, this.#rid, this.#key, this.#call);
    if (found.state === 'found') {
      await this.#context.bookingLedger
        .settle(
          slot,
          undefined,
          { state: 'booked', fingerprint: entry.fingerprint, reservationId: String(found.reservation.id) },
          REMEMBER_BOOKING_MS,
        )
        .catch(() => undefined);
      return { data: found.reservation, response: null };
    }
    const why =
      found.state === 'absent' ? 'no reservation carries the key yet' : 'the look-up by key could not tell';
    throw this.#ambiguous(
      `A create with this idempotency key ended with its outcome unknown and ${why}; the service may still commit it, so until ${until} nothing is sent with this key`,
      found.state === 'unknown' ? found.cause : undefined,
      0,
    );
  }

  /**
   * Sends the create. A second POST goes out only when the first provably did not take effect: it
   * was never sent, it was answered 429 and a look-up read the whole list without finding the key,
   * or the service is declared to honour `Idempotency-Key`. After any failure that may have booked,
   * the key is looked up over the settle window: found, it is the answer; else AmbiguousCreateError.
   */
  async #send(body: Record<string, unknown>): Promise<WithResponse<Reservation>> {
    const context = this.#context;
    const key = this.#key;
    const call = this.#call;
    const honoured = context.idempotencyKeyHonoured;
    // Set once any attempt failed in a way that may have booked all the same.
    let mayHaveBooked = false;
    let attempts = 0;
    // Whether the last 429's look-up read the whole list and found nothing: only then is a resend safe.
    let provedAbsent = false;
    this.#posted = true;
    try {
      return await this.#transport.request({
        method: 'POST',
        path: restaurantPath(this.#rid),
        body,
        headers: { 'idempotency-key': key },
        safeToRepeat: false,
        options: call,
        parse: (answer, _response, where) => {
          const created = parseOutput(Reservation, singleObject(answer, where), where);
          // An answer is this create's only when it carries its key; any other (another key, no
          // metadata, metadata null) may be some other reservation: the outcome is unknown.
          if (context.idempotencyMetadata && created.metadata?.[IDEMPOTENCY_METADATA_KEY] !== key) {
            throw new ResponseValidationError(
              [
                {
                  field: `metadata.${IDEMPOTENCY_METADATA_KEY}`,
                  path: ['metadata', IDEMPOTENCY_METADATA_KEY],
                  code: 'other_reservation',
                  message: "the answer does not carry this create's idempotency key",
                },
              ],
              { ...where, body: answer },
            );
          }
          return created;
        },
        isRetryable: (error) =>
          (error instanceof ConnectionError && neverReachedServer(error)) ||
          (honoured &&
            (error instanceof RateLimitError ||
              (outcomeUnknown(error) && !(error instanceof ResponseValidationError)))) ||
          (error instanceof RateLimitError && provedAbsent),
        recover: async (error, attempt) => {
          attempts = attempt;
          provedAbsent = false;
          // A 429 may come from a gateway that forwarded the create: look before any resend.
          if (error instanceof RateLimitError && !honoured && context.idempotencyMetadata) {
            const look = await lookUpByKey(this.#reads, this.#rid, key, call);
            if (look.state === 'found') return { body: look.reservation };
            provedAbsent = look.state === 'absent';
            if (provedAbsent) return undefined;
          }
          if (mayHaveTakenEffect(error)) mayHaveBooked = true;
          return undefined;
        },
      });
    } catch (error) {
      // A 2xx outside the contract, too large to read, or not this create's, may have booked; so
      // may a last 429 that no complete read of the list has cleared.
      const lastMayHaveBooked =
        error instanceof RateLimitError
          ? !provedAbsent
          : error instanceof ResponseValidationError || mayHaveTakenEffect(error);
      if (!mayHaveBooked && !lastMayHaveBooked) throw error;
      const tried = Math.max(attempts, (error as { attempts?: number }).attempts ?? 1);
      // The caller stopped waiting, or no time is left: say so at once, with the key.
      if (error instanceof AbortError || call.signal?.aborted) {
        throw this.#ambiguous(
          'The create was aborted after it was sent; the reservation may exist',
          error,
          tried,
        );
      }
      return { data: await this.#settle(error, tried), response: null };
    }
  }

  /**
   * Looks the key up a few times over the settle window (on the client's clock, within the call's
   * deadline), so a booking the service commits a few seconds after a gateway error is found.
   */
  async #settle(cause: unknown, attempts: number): Promise<Reservation> {
    const context = this.#context;
    if (!context.idempotencyMetadata) {
      throw this.#ambiguous(
        'The create failed after it was sent, and with idempotencyMetadata off the reservation cannot be looked up',
        cause,
        attempts,
      );
    }
    const clock = this.#transport.clock;
    const windowMs = context.createLookupWindowMs;
    const startedAt = clock.now();
    let last: LookUp = { state: 'unknown', cause };
    for (const share of SETTLE_SCHEDULE) {
      const waitMs = startedAt + share * windowMs - clock.now();
      const left = this.#call.remainingMs();
      if (share > 0 && windowMs === 0) break;
      if (left !== undefined && left <= Math.max(0, waitMs)) break;
      if (waitMs > 0) {
        try {
          await clock.sleep(waitMs, this.#call.signal);
        } catch (abort) {
          throw this.#ambiguous(
            'The create was aborted while its outcome was being checked; the reservation may exist',
            abort,
            attempts,
          );
        }
      }
      last = await lookUpByKey(this.#reads, this.#rid, this.#key, this.#call);
      if (last.state === 'found') return last.reservation;
    }
    const why =
      last.state === 'absent'
        ? 'no reservation carries its idempotency key yet'
        : 'the look-up by idempotency key could not tell';
    throw this.#ambiguous(
      `The create failed after it was sent and ${why}; the service may still book it`,
      last.state === 'unknown' ? last.cause : cause,
      attempts,
    );
  }

  #ambiguous(message: string, cause: unknown, attempts: number): AmbiguousCreateError {
    // No attempt of this call: it sent nothing (an earlier create, a hold, or a look-up left it in doubt).
    return new AmbiguousCreateError(message, {
      idempotencyKey: this.#key,
      restaurantId: this.#rid,
      attempts,
      cause,
      sent: attempts === 0 ? 'no' : 'maybe',
    });
  }
}

/** Resolves after `ms`, or at once when `signal` aborts; its timer goes with it. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    if (signal.aborted) done();
    else signal.addEventListener('abort', done, { once: true });
  });
}
