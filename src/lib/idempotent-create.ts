/**
 * The idempotent create: everything that keeps `reservations.create` from booking twice, in one
 * place. The invariant: the client never reports success while a second booking made by its own
 * sends exists, and never sends a second create for a key unless the first provably did not take
 * effect.
 *
 * - Every key, the caller's or a random one, is claimed in the booking ledger before anything is
 *   sent, and recorded as "maybe sent" (a fence) right before the POST goes: a create with that
 *   key already running waits for it, a key that booked answers with its reservation (one read), a
 *   key that ended ambiguous, or whose holder stopped renewing its claim after it may have sent, is
 *   held (nothing sent), a key reused for other input (another restaurant included) is refused.
 * - A caller's key is looked up before the first send, and every key after every answer that may
 *   follow a commit (a 429, a 4xx, a 5xx, no answer, a 2xx that is not this create's), over the
 *   settle window: a second POST goes out only when reads spread over the window agree that the
 *   key is absent.
 * - A look-up says "absent" only when two complete reads of the whole list agree; otherwise it
 *   cannot tell.
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
import { path } from '../transport/path.js';
import {
  neverReachedServer,
  outcomeUnknown,
  type Call,
  type RequestOptions,
} from '../transport/transport.js';
import { checkRequestOptions, parseInput, parseOutput } from '../transport/validate.js';
import { startInstant, toServiceStartTime } from '../start-time.js';
import { checkTimezone } from '../restaurant-timezones.js';
import {
  Reservation,
  ReservationCreateInput,
  type ReservationCreateBody,
} from '../resources/reservations.schemas.js';
import { apiPromise, checkId, singleObject, type ResourceContext } from '../resources/resource.js';
import { ledgerSlot, type BookingLedgerEntry } from './booking-ledger.js';
import { observedCreate } from './create-outcome.js';
import { differingFields, digestOf, fieldsDifferingFrom, fingerprintOf } from './fingerprint.js';
import {
  IDEMPOTENCY_METADATA_KEY,
  KeySearch,
  lookUpByKey,
  type LookUp,
  type ReservationReads,
} from './look-up-by-key.js';

export {
  IDEMPOTENCY_METADATA_KEY,
  lookUpByKey,
  type LookUp,
  type ReservationReads,
} from './look-up-by-key.js';

/**
 * The `metadata` key under which every create stores a digest of its input, so a repeat with the
 * key is compared with what the key first booked, not with what the restaurant changed since.
 */
export const FINGERPRINT_METADATA_KEY = 'restaurant_partner_sdk.fingerprint';

/** Default `ambiguousHoldMs`: 15 minutes (docs/exactly-once.md says why). */
export const DEFAULT_AMBIGUOUS_HOLD_MS = 15 * 60_000;
/**
 * How long a claim lasts unless renewed; renewed every third of it while its create runs. Short,
 * so a create repeated after its worker died learns within seconds that the key is held: a lapsed
 * claim whose create may have been sent is an ambiguous hold, never "never sent".
 */
const LEASE_MS = 3_000;
/** How long the ledger remembers key -> reservation id: a week of queue redeliveries. */
const REMEMBER_BOOKING_MS = 7 * 24 * 60 * 60_000;
/**
 * Waits between two looks at a key another create holds: doubling from the first to the last. The
 * last is short beside the lease, so a repeat after its holder died acts within about 3.5 s.
 */
const FIRST_WAIT_MS = 50;
const LONGEST_WAIT_MS = 500;
/** When the look-ups of the settle window run, as shares of the window: at once, then ever further apart. */
const SETTLE_SCHEDULE = [0, 0.1, 0.3, 0.6, 1];

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
  /**
   * Your own database transaction, with a booking ledger that keeps its entries in your database
   * (`createPostgres(...).bookingLedger()`): the key is claimed inside it, so your order row and the
   * claim commit together. What may have been sent is recorded outside it, so a rollback after the
   * booking was sent never frees the key (docs/postgres.md). Any other ledger refuses it.
   */
  tx?: object | undefined;
}

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

/** Two refusals with one status: the call itself is refused, whatever it asks. */
function sameRefusal(first: unknown, second: unknown): boolean {
  return (
    isDefinitiveRefusal(first) &&
    isDefinitiveRefusal(second) &&
    (first as PartnerApiError).status === (second as PartnerApiError).status
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
      const create = new IdempotentCreate(context, reads);
      const run = (call: Call) => create.run(restaurantId, input, options, call);
      return announced(
        context,
        restaurantId,
        await observedCreate(context.transport, options, { restaurantId, input }, create, run),
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

/**
 * An idempotency key as the service can carry it: it travels in a header, so printable ASCII,
 * without outer spaces (header values lose them), at most `maxLength` characters.
 */
export function checkIdempotencyKey(key: unknown, field: string, maxLength = 255): string {
  if (
    typeof key === 'string' &&
    key.length <= maxLength &&
    /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(key)
  )
    return key;
  throw new InputValidationError([
    {
      field,
      path: [field],
      code: 'invalid_string',
      message: `expected 1 to ${maxLength} printable ASCII characters, without leading or trailing spaces`,
    },
  ]);
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
    const checkedKey = checkIdempotencyKey(key, 'key');
    const result = await context.transport.run(
      options,
      'reservations.findByIdempotencyKey',
      (call) => lookUpByKey(reads, rid, checkedKey, call),
      { restaurantId: rid },
    );
    if (result.state === 'unknown') throw result.cause;
    return { data: result.state === 'found' ? result.reservation : null, response: null };
  })
    .then((value) => value)
    .catch((error: unknown) => Promise.reject(secrets.scrubError(error)));
}

/** One `reservations.create` call. */
class IdempotentCreate {
  readonly #context: ResourceContext;
  readonly #reads: ReservationReads;
  // Set by run() before anything else reads them.
  #rid: number | string = '';
  #key = '';
  #call!: Call;
  /** The digest of this create's input, as stored in the booking's metadata. */
  #digest = '';
  /** Set once a POST of this create may have left: from the fence on, a lapsed claim is a hold. */
  #posted = false;
  /** How the create got its booking, once it has one (observers and logs read it). */
  outcome: 'created' | 'replayed' | 'recovered_by_lookup' = 'created';
  /** Set when an earlier create's ambiguous end holds the key: nothing of this one is sent. */
  held = false;

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
    call: Call,
  ): Promise<WithResponse<Reservation>> {
    const context = this.#context;
    const rid = (this.#rid = checkId(restaurantId, 'restaurant_id'));
    const parsed = parseInput(ReservationCreateInput, input);
    // Checked here too, as the timezone look-up below may spend a request first.
    checkRequestOptions(options ?? {});
    const tx = options?.tx;
    if (tx !== undefined) this.#checkTransaction(tx);
    const ownKey = options?.idempotencyKey !== undefined;
    const key = (this.#key = checkIdempotencyKey(
      options?.idempotencyKey ?? crypto.randomUUID(),
      'idempotencyKey',
    ));
    // From here on, every request of this create (timezone, look-ups, the POST) shares one deadline.
    this.#call = call;
    const timezone =
      options?.timezone !== undefined
        ? checkTimezone(options.timezone, 'timezone')
        : await context.timezoneFor(rid, call);
    const startTime = toServiceStartTime(parsed.start_time, timezone);
    // A restaurant without a timezone gets a local time without offset: read it in UTC, as it was
    // written, so every worker's fingerprint agrees whatever its host's zone.
    const zone = timezone ?? 'UTC';
    const start = startInstant(startTime, zone);
    const fingerprint = fingerprintOf(
      rid,
      parsed,
      Number.isFinite(start) ? new Date(start).toISOString() : startTime,
    );
    this.#digest = await digestOf(fingerprint);
    const body: Record<string, unknown> = { ...parsed, start_time: startTime };
    if (context.idempotencyMetadata) {
      body.metadata = {
        ...(parsed.metadata ?? {}),
        [IDEMPOTENCY_METADATA_KEY]: key,
        [FINGERPRINT_METADATA_KEY]: this.#digest,
      };
    }
    return this.#throughLedger(fingerprint, !ownKey, tx, async (fence, neverUsed) => {
      // A caller's own key may have booked already with no ledger to tell (another process, a
      // restart): look first. A random key is this call's alone: nothing to look up before sending.
      // A service declared to honour the header answers a repeat itself; a durable ledger that
      // never saw the key tells it was never sent.
      if (ownKey && context.idempotencyMetadata && !context.idempotencyKeyHonoured && !neverUsed) {
        const earlier = await lookUpByKey(this.#reads, rid, key, call);
        if (earlier.state === 'found') {
          this.#checkSameBooking(earlier.reservation, parsed, start, zone);
          this.outcome = 'replayed';
          return { data: earlier.reservation, response: null };
        }
        if (earlier.state === 'unknown') {
          // The caller's abort, or an answer that refuses the call itself, is reported as it is.
          if (earlier.cause instanceof AbortError || isDefinitiveRefusal(earlier.cause)) throw earlier.cause;
          throw this.#ambiguous(
            'Could not tell whether a reservation with this idempotency key exists, so nothing was sent',
            earlier.cause,
            0,
          );
        }
      }
      await fence();
      return this.#send(body, fence);
    });
  }

  /**
   * A booking found under the key answers a repeat only when the key first booked this input: the
   * digest in its metadata says what that was, whatever the restaurant changed since. A booking
   * without one (made by an older client) is taken as the key's.
   */
  #checkSameBooking(
    found: Reservation,
    parsed: ReservationCreateBody,
    startMillis: number,
    timezone: string | null,
  ): void {
    const stored = found.metadata?.[FINGERPRINT_METADATA_KEY];
    if (typeof stored !== 'string' || stored === this.#digest) return;
    const differing = fieldsDifferingFrom(found, parsed, startMillis, timezone);
    throw new IdempotencyKeyReuseError({
      idempotencyKey: this.#key,
      restaurantId: this.#rid,
      fields: differing.length > 0 ? differing : ['(input)'],
    });
  }

  /** `tx` only with a ledger that claims inside the caller's transaction, refused before any request. */
  #checkTransaction(tx: unknown): void {
    const ledger = this.#context.bookingLedger;
    if (typeof ledger.acceptTransaction === 'function') return ledger.acceptTransaction(tx);
    throw new InputValidationError([
      {
        field: 'tx',
        path: ['tx'],
        code: 'invalid_option',
        message:
          "a transaction needs a booking ledger kept in your database (createPostgres(...).bookingLedger() from 'restaurant-partner-sdk/postgres'); this client's ledger cannot claim inside it",
      },
    ]);
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
    fresh: boolean,
    tx: object | undefined,
    create: (fence: () => Promise<void>, neverUsed: boolean) => Promise<WithResponse<Reservation>>,
  ): Promise<WithResponse<Reservation>> {
    const context = this.#context;
    const ledger = context.bookingLedger;
    // A UUID names one partner however it is spelt.
    const slot = ledgerSlot(context.service, context.partnerId.toLowerCase(), this.#key);
    const token = crypto.randomUUID();
    let waitMs = FIRST_WAIT_MS;
    for (;;) {
      const entry = await this.#ledger(() =>
        ledger.claim(slot, {
          token,
          fingerprint,
          leaseMs: LEASE_MS,
          now: this.#transport.clock.now(),
          holdMs: this.#holdMs(),
          fresh,
          ...(tx === undefined ? {} : { tx }),
        }),
      );
      if (entry === undefined || entry.state === 'claimed') {
        const neverUsed = ledger.durable === true && entry?.state === 'claimed' && !entry.used;
        return this.#asHolder(slot, token, fingerprint, fresh, (fence) => create(fence, neverUsed));
      }
      if (entry.fingerprint !== fingerprint) {
        throw new IdempotencyKeyReuseError({
          idempotencyKey: this.#key,
          restaurantId: this.#rid,
          fields: differingFields(entry.fingerprint, fingerprint),
        });
      }
      if (entry.state === 'booked') return this.#readBooking(entry.reservationId);
      // Held: after an ambiguous end, or a holder that died after sending (its lease lapsed while
      // this call waited). Look the key up rather than repeat the holder's answer: it may show now.
      if (entry.state === 'ambiguous') {
        return this.#whileHeld(slot, entry);
      }
      // Another create with this key is running: wait for its outcome, within this call's signal and deadline.
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

  /**
   * The booking the ledger says the key made. A read that fails is no reason to book again, nor a
   * refusal of the create: the booking exists, so the create ends ambiguous, nothing sent.
   */
  async #readBooking(reservationId: string): Promise<WithResponse<Reservation>> {
    this.outcome = 'replayed';
    try {
      return await this.#reads.retrieve(this.#rid, reservationId, this.#call).withResponse();
    } catch (error) {
      if (error instanceof AbortError) throw error;
      throw this.#ambiguous(
        `This idempotency key booked reservation ${reservationId}, which could not be read; nothing was sent`,
        error,
        0,
      );
    }
  }

  /**
   * Holds the claim (renewed) while `create` runs, then records its outcome for every other create
   * with the key. Before each POST, `fence` renews the claim with the hold a lapse would start
   * (write-ahead: the ledger says "maybe sent" before anything is), and refuses to send when the
   * claim is no longer this call's (the process was paused past its lease).
   */
  async #asHolder(
    slot: string,
    token: string,
    fingerprint: string,
    fresh: boolean,
    create: (fence: () => Promise<void>) => Promise<WithResponse<Reservation>>,
  ): Promise<WithResponse<Reservation>> {
    const ledger = this.#context.bookingLedger;
    const clock = this.#transport.clock;
    // Until when the key is held should this claim lapse now: nothing sent yet, no hold.
    const until = () => clock.now() + (this.#posted ? LEASE_MS + this.#holdMs() : 0);
    const renewal = setInterval(
      () => void ledger.renew(slot, token, LEASE_MS, until()).catch(() => undefined),
      LEASE_MS / 3,
    );
    (renewal as { unref?: () => void }).unref?.();
    const fence = async () => {
      this.#posted = true;
      const held = await this.#ledger(() => ledger.renew(slot, token, LEASE_MS, until()));
      if (!held) {
        throw new BookingLedgerUnavailableError(
          `The claim on this idempotency key lapsed before the create was sent (this process was paused or busy for longer than the ${LEASE_MS} ms lease), so nothing was sent`,
          { idempotencyKey: this.#key },
        );
      }
    };
    // An outcome that cannot be recorded leaves the claim to lapse: the key is then held, and the
    // next create with it looks it up.
    const record = (outcome: BookingLedgerEntry | undefined, keepMs: number) =>
      ledger.settle(slot, token, outcome, keepMs).catch(() => undefined);
    try {
      const result = await create(fence);
      // A random key is known to nobody but this call: nothing to remember once it booked.
      if (fresh) await record(undefined, 0);
      else
        await record(
          { state: 'booked', fingerprint, reservationId: String(result.data.id) },
          REMEMBER_BOOKING_MS,
        );
      return result;
    } catch (error) {
      if (error instanceof AmbiguousCreateError && this.#posted) {
        // The hold the error announced, so a repeat while held carries the same one.
        const heldUntil = error.holdUntil?.getTime() ?? clock.now() + this.#holdMs();
        await record(
          { state: 'ambiguous', fingerprint, until: heldUntil },
          Math.max(1, heldUntil - clock.now()),
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
   * A key whose create ended ambiguous (or whose holder stopped renewing after it may have sent),
   * still held: nothing is sent. A look-up that finds the booking answers with it (and the ledger
   * remembers it); otherwise the create is ambiguous again.
   */
  async #whileHeld(
    slot: string,
    entry: Extract<BookingLedgerEntry, { state: 'ambiguous' }>,
  ): Promise<WithResponse<Reservation>> {
    const until = new Date(entry.until).toISOString();
    this.held = true;
    if (!this.#context.idempotencyMetadata) {
      throw this.#ambiguous(
        `A create with this idempotency key ended with its outcome unknown; until ${until} nothing is sent with this key (with idempotencyMetadata off it cannot be looked up)`,
        undefined,
        0,
        entry.until,
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
      this.outcome = 'recovered_by_lookup';
      return { data: found.reservation, response: null };
    }
    if (found.state === 'unknown' && found.cause instanceof AbortError) throw found.cause;
    const why =
      found.state === 'absent' ? 'no reservation carries the key yet' : 'the look-up by key could not tell';
    throw this.#ambiguous(
      `A create with this idempotency key ended with its outcome unknown and ${why}; the service may still commit it, so until ${until} nothing is sent with this key`,
      found.state === 'unknown' ? found.cause : undefined,
      0,
      entry.until,
    );
  }

  /**
   * Sends the create. A second POST goes out only when the first provably did not take effect: it
   * was never sent, it was answered 429 and reads of the list over the settle window agreed that
   * the key is absent, or the service is declared to honour `Idempotency-Key`. After any other
   * failure that may follow a commit (a 4xx included), the key is looked up over the settle window:
   * found, it is the answer; else AmbiguousCreateError (or, for a 4xx, the 4xx itself when the
   * reads agree that nothing was booked).
   */
  async #send(body: Record<string, unknown>, fence: () => Promise<void>): Promise<WithResponse<Reservation>> {
    const context = this.#context;
    const key = this.#key;
    const call = this.#call;
    const honoured = context.idempotencyKeyHonoured;
    // Set once any attempt failed in a way that may have booked all the same.
    let mayHaveBooked = false;
    let attempts = 0;
    // Whether the last 429's look-ups agreed that the key is absent: only then is a resend safe.
    let provedAbsent = false;
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
          // A service that honours the key answers a repeat with the key's first booking: it is
          // this create's only when it booked this input.
          const digest = created.metadata?.[FINGERPRINT_METADATA_KEY];
          if (context.idempotencyMetadata && typeof digest === 'string' && digest !== this.#digest)
            throw new IdempotencyKeyReuseError({
              idempotencyKey: key,
              restaurantId: this.#rid,
              fields: ['(input)'],
            });
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
          // A 429 may come from a gateway that forwarded the create: look over the settle window
          // (a replica may show the booking late) before any resend, and fence the resend.
          if (error instanceof RateLimitError && !honoured && context.idempotencyMetadata) {
            const look = await this.#lookOverWindow(error, attempt);
            if (look.state === 'found') {
              this.outcome = 'recovered_by_lookup';
              return { body: look.reservation };
            }
            provedAbsent = look.state === 'absent';
            if (provedAbsent) {
              await fence();
              return undefined;
            }
          }
          if (mayHaveTakenEffect(error)) mayHaveBooked = true;
          return undefined;
        },
      });
    } catch (error) {
      const tried = Math.max(attempts, (error as { attempts?: number }).attempts ?? 1);
      // A refusal (400, 401, 404, 409...) may answer a create a gateway already forwarded once
      // (a gateway retrying after a timeout upstream): look before reporting it.
      if (isDefinitiveRefusal(error) && context.idempotencyMetadata && !mayHaveBooked) {
        const look = await this.#lookOverWindow(error, tried);
        if (look.state === 'found') return this.#recovered(look.reservation);
        // Reads refused the same way as the create (bad credentials, no such restaurant) tell
        // nothing was booked either; any other doubt is ambiguous.
        if (look.state === 'absent' || sameRefusal(look.cause, error)) throw error;
        throw this.#ambiguous(
          `The create was refused (${(error as PartnerApiError).status}) and the look-up by its idempotency key could not tell whether an earlier attempt booked it`,
          look.cause,
          tried,
        );
      }
      // A 2xx outside the contract, too large to read, or not this create's, may have booked; so
      // may a last 429 that no agreeing reads of the list have cleared.
      const lastMayHaveBooked =
        error instanceof RateLimitError
          ? !provedAbsent
          : error instanceof ResponseValidationError || mayHaveTakenEffect(error);
      if (!mayHaveBooked && !lastMayHaveBooked) throw error;
      // The caller stopped waiting, or no time is left: say so at once, with the key.
      if (error instanceof AbortError || call.signal?.aborted) {
        throw this.#ambiguous(
          'The create was aborted after it was sent; the reservation may exist',
          error,
          tried,
        );
      }
      const look = await this.#lookOverWindow(error, tried);
      if (look.state === 'found') return this.#recovered(look.reservation);
      const why =
        look.state === 'absent'
          ? 'no reservation carries its idempotency key yet'
          : 'the look-up by idempotency key could not tell';
      throw this.#ambiguous(
        `The create failed after it was sent and ${why}; the service may still book it`,
        look.state === 'unknown' ? look.cause : error,
        tried,
      );
    }
  }

  #recovered(reservation: Reservation): WithResponse<Reservation> {
    this.outcome = 'recovered_by_lookup';
    return { data: reservation, response: null };
  }

  /**
   * Looks the key up a few times over the settle window (on the client's clock, within the call's
   * deadline), so a booking the service commits, or a replica shows, a few seconds late is found.
   * "Absent" only when the last two reads, spread over the window, agree.
   */
  async #lookOverWindow(cause: unknown, attempts: number): Promise<LookUp> {
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
    const search = new KeySearch(this.#reads, this.#rid, this.#key, this.#call, true);
    let last: LookUp & { final: boolean } = { state: 'unknown', cause, final: false };
    // "Absent" counts only from reads spread over the whole window: a deadline that cuts it short
    // leaves the reads so far too close together to say the booking will not show.
    let wholeWindow = windowMs === 0;
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
      last = await search.look();
      if (share === 1) wholeWindow = true;
      if (last.state === 'found') return last;
      if (last.state === 'unknown' && last.final) break;
    }
    // With no window (or no time for it), one read is not enough: read once more at once.
    if (last.state === 'unknown' && !last.final && this.#call.remainingMs() !== 0) last = await search.look();
    const { final: _final, ...answer } = last;
    if (answer.state === 'unknown' && answer.cause instanceof AbortError) {
      throw this.#ambiguous(
        'The create was aborted while its outcome was being checked; the reservation may exist',
        answer.cause,
        attempts,
      );
    }
    if (answer.state === 'absent' && !wholeWindow) return { state: 'unknown', cause };
    return answer;
  }

  /**
   * How long a key that ended ambiguous is held. With `idempotencyMetadata` off no look-up can
   * ever tell, so the hold cannot end in a look-up: the key stays held as long as the ledger
   * remembers bookings, and a repeat never sends it again.
   */
  #holdMs(): number {
    return this.#context.idempotencyMetadata ? this.#context.ambiguousHoldMs : REMEMBER_BOOKING_MS;
  }

  /**
   * `holdUntil`: the hold of the ledger entry that stopped this call, or, for a create that may
   * have sent, the hold its end starts now (its holder records the same). A call that sent nothing
   * and found no hold (a look-up that could not tell before the first send) leaves none.
   */
  #ambiguous(message: string, cause: unknown, attempts: number, holdUntil?: number): AmbiguousCreateError {
    const until = holdUntil ?? (this.#posted ? this.#transport.clock.now() + this.#holdMs() : undefined);
    // No attempt of this call: it sent nothing (an earlier create, a hold, or a look-up left it in doubt).
    return new AmbiguousCreateError(message, {
      idempotencyKey: this.#key,
      restaurantId: this.#rid,
      attempts,
      cause,
      sent: attempts === 0 ? 'no' : 'maybe',
      holdUntil: until === undefined ? undefined : new Date(until),
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
