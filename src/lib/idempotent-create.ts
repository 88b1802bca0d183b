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
import { AbortError, IdempotencyKeyReuseError, InputValidationError } from '../errors.js';
import type { ApiPromise, WithResponse } from '../transport/api-promise.js';
import type { Call, RequestOptions } from '../transport/transport.js';
import { checkRequestOptions, parseInput } from '../transport/validate.js';
import { startInstant, toServiceStartTime } from '../start-time.js';
import { checkTimezone } from '../restaurant-timezones.js';
import {
  Reservation,
  ReservationCreateInput,
  type ReservationCreateBody,
} from '../resources/reservations.schemas.js';
import { apiPromise, checkId, type ResourceContext } from '../resources/resource.js';
import { observedCreate } from './create-outcome.js';
import { CreateCall, FINGERPRINT_METADATA_KEY, isDefinitiveRefusal } from './create-call.js';
import { throughLedger } from './create-ledger.js';
import { send } from './create-send.js';
import { digestOf, fieldsDifferingFrom, fingerprintOf } from './fingerprint.js';
import { IDEMPOTENCY_METADATA_KEY, lookUpByKey, type ReservationReads } from './look-up-by-key.js';

// The create's steps live beside this module, one purpose each: the state every step shares and
// the rules that classify a failure (create-call.ts), the ledger's side (create-ledger.ts), the
// send and the settle window (create-send.ts). This module starts the call and checks its input.
export {
  IDEMPOTENCY_METADATA_KEY,
  lookUpByKey,
  type LookUp,
  type ReservationReads,
} from './look-up-by-key.js';
export { FINGERPRINT_METADATA_KEY } from './create-call.js';

/** Default `ambiguousHoldMs`: 15 minutes (docs/exactly-once.md says why). */
export const DEFAULT_AMBIGUOUS_HOLD_MS = 15 * 60_000;

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
    let callId: string | undefined;
    const result = await context.transport.run(
      options,
      'reservations.findByIdempotencyKey',
      (call) => {
        callId = call.id;
        return lookUpByKey(reads, rid, checkedKey, call);
      },
      { restaurantId: rid },
    );
    if (result.state === 'unknown') throw result.cause;
    return { data: result.state === 'found' ? result.reservation : null, response: null, callId };
  })
    .then((value) => value)
    .catch((error: unknown) => Promise.reject(secrets.scrubError(error)));
}

/** One `reservations.create` call: its start (input, timezone, fingerprint, the look-up before the first send). */
class IdempotentCreate extends CreateCall {
  async run(
    restaurantId: number | string,
    input: ReservationCreateInput,
    options: CreateReservationOptions | undefined,
    call: Call,
  ): Promise<WithResponse<Reservation>> {
    const context = this.context;
    const rid = (this.rid = checkId(restaurantId, 'restaurant_id'));
    const parsed = parseInput(ReservationCreateInput, input);
    // Checked here too, as the timezone look-up below may spend a request first.
    checkRequestOptions(options ?? {});
    const tx = options?.tx;
    if (tx !== undefined) this.checkTransaction(tx);
    const ownKey = options?.idempotencyKey !== undefined;
    const key = (this.key = checkIdempotencyKey(
      options?.idempotencyKey ?? crypto.randomUUID(),
      'idempotencyKey',
    ));
    // From here on, every request of this create (timezone, look-ups, the POST) shares one deadline.
    this.call = call;
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
    this.digest = await digestOf(fingerprint);
    const body: Record<string, unknown> = { ...parsed, start_time: startTime };
    if (context.idempotencyMetadata) {
      body.metadata = {
        ...(parsed.metadata ?? {}),
        [IDEMPOTENCY_METADATA_KEY]: key,
        [FINGERPRINT_METADATA_KEY]: this.digest,
      };
    }
    return throughLedger(this, fingerprint, !ownKey, tx, async (fence, neverUsed) => {
      // A caller's own key may have booked already with no ledger to tell (another process, a
      // restart): look first. A random key is this call's alone: nothing to look up before sending.
      // A service declared to honour the header answers a repeat itself; a durable ledger that
      // never saw the key tells it was never sent.
      if (ownKey && context.idempotencyMetadata && !context.idempotencyKeyHonoured && !neverUsed) {
        const earlier = await lookUpByKey(this.reads, rid, key, call);
        if (earlier.state === 'found') {
          this.checkSameBooking(earlier.reservation, parsed, start, zone);
          this.outcome = 'replayed';
          return { data: earlier.reservation, response: null, callId: call.id };
        }
        if (earlier.state === 'unknown') {
          // The caller's abort, or an answer that refuses the call itself, is reported as it is.
          if (earlier.cause instanceof AbortError || isDefinitiveRefusal(earlier.cause)) throw earlier.cause;
          throw this.ambiguous(
            'Could not tell whether a reservation with this idempotency key exists, so nothing was sent',
            earlier.cause,
            0,
          );
        }
      }
      await fence();
      return send(this, body, fence);
    });
  }

  /**
   * A booking found under the key answers a repeat only when the key first booked this input: the
   * digest in its metadata says what that was, whatever the restaurant changed since. A booking
   * without one (made by an older client) is taken as the key's.
   */
  checkSameBooking(
    found: Reservation,
    parsed: ReservationCreateBody,
    startMillis: number,
    timezone: string | null,
  ): void {
    const stored = found.metadata?.[FINGERPRINT_METADATA_KEY];
    if (typeof stored !== 'string' || stored === this.digest) return;
    const differing = fieldsDifferingFrom(found, parsed, startMillis, timezone);
    throw new IdempotencyKeyReuseError({
      idempotencyKey: this.key,
      restaurantId: this.rid,
      fields: differing.length > 0 ? differing : ['(input)'],
    });
  }

  /** `tx` only with a ledger that claims inside the caller's transaction, refused before any request. */
  checkTransaction(tx: unknown): void {
    const ledger = this.context.bookingLedger;
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
}
