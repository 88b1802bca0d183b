/**
 * One `reservations.create` call's state, shared by the steps of the idempotent create: the key and
 * restaurant it books, its deadline, whether a POST may have left, how it got its booking. The
 * steps live in their own modules (the ledger's side in create-ledger.ts, the send and the settle
 * window in create-send.ts, the call's start in idempotent-create.ts); this module holds what
 * every step reads, and the rules that classify a failure, written once.
 * @module
 */
import { AbortError, AmbiguousCreateError, PartnerApiError, RateLimitError } from '../errors.js';
import type { WithResponse } from '../transport/api-promise.js';
import { neverReachedServer, outcomeUnknown, type Call } from '../transport/transport.js';
import type { Reservation } from '../resources/reservations.schemas.js';
import type { ResourceContext } from '../resources/resource.js';
import type { ReservationReads } from './look-up-by-key.js';

/**
 * The `metadata` key under which every create stores a digest of its input, so a repeat with the
 * key is compared with what the key first booked, not with what the restaurant changed since.
 */
export const FINGERPRINT_METADATA_KEY = 'restaurant_partner_sdk.fingerprint';

/**
 * How long a claim lasts unless renewed; renewed every third of it while its create runs. Short,
 * so a create repeated after its worker died learns within seconds that the key is held: a lapsed
 * claim whose create may have been sent is an ambiguous hold, never "never sent".
 */
export const LEASE_MS = 3_000;
/** How long the ledger remembers key -> reservation id: a week of queue redeliveries. */
export const REMEMBER_BOOKING_MS = 7 * 24 * 60 * 60_000;

/** True when a failed create may have booked all the same: a 429, an unknown outcome, or the caller's abort after it was sent. */
export function mayHaveTakenEffect(error: unknown): boolean {
  return (
    error instanceof RateLimitError ||
    outcomeUnknown(error) ||
    (error instanceof AbortError && !neverReachedServer(error))
  );
}

/** An answer that refuses the call itself (credentials, permission, no such restaurant), as opposed to one that cannot tell. */
export function isDefinitiveRefusal(error: unknown): boolean {
  return (
    error instanceof PartnerApiError &&
    error.status >= 400 &&
    error.status < 500 &&
    error.status !== 408 &&
    error.status !== 429
  );
}

/** Two refusals with one status: the call itself is refused, whatever it asks. */
export function sameRefusal(first: unknown, second: unknown): boolean {
  return (
    isDefinitiveRefusal(first) &&
    isDefinitiveRefusal(second) &&
    (first as PartnerApiError).status === (second as PartnerApiError).status
  );
}

/**
 * One `reservations.create` call: what its steps share. Fields are plain (not private) because
 * the steps are functions in other modules; nothing outside src/lib/ sees this class.
 */
export class CreateCall {
  readonly context: ResourceContext;
  readonly reads: ReservationReads;
  // Set by run() before anything else reads them.
  rid: number | string = '';
  key = '';
  call!: Call;
  /** The digest of this create's input, as stored in the booking's metadata. */
  digest = '';
  /** Set once a POST of this create may have left: from the fence on, a lapsed claim is a hold. */
  posted = false;
  /** How the create got its booking, once it has one (observers and logs read it). */
  outcome: 'created' | 'replayed' | 'recovered_by_lookup' = 'created';
  /** Set when an earlier create's ambiguous end holds the key: nothing of this one is sent. */
  held = false;

  constructor(context: ResourceContext, reads: ReservationReads) {
    this.context = context;
    this.reads = reads;
  }

  get transport() {
    return this.context.transport;
  }

  recovered(reservation: Reservation): WithResponse<Reservation> {
    this.outcome = 'recovered_by_lookup';
    return { data: reservation, response: null, callId: this.call.id };
  }

  /**
   * How long a key that ended ambiguous is held. With `idempotencyMetadata` off no look-up can
   * ever tell, so the hold cannot end in a look-up: the key stays held as long as the ledger
   * remembers bookings, and a repeat never sends it again.
   */
  holdMs(): number {
    return this.context.idempotencyMetadata ? this.context.ambiguousHoldMs : REMEMBER_BOOKING_MS;
  }

  /**
   * `holdUntil`: the hold of the ledger entry that stopped this call, or, for a create that may
   * have sent, the hold its end starts now (its holder records the same). A call that sent nothing
   * and found no hold (a look-up that could not tell before the first send) leaves none.
   */
  ambiguous(message: string, cause: unknown, attempts: number, holdUntil?: number): AmbiguousCreateError {
    const until = holdUntil ?? (this.posted ? this.transport.clock.now() + this.holdMs() : undefined);
    // No attempt of this call: it sent nothing (an earlier create, a hold, or a look-up left it in doubt).
    return new AmbiguousCreateError(message, {
      idempotencyKey: this.key,
      restaurantId: this.rid,
      attempts,
      cause,
      sent: attempts === 0 ? 'no' : 'maybe',
      holdUntil: until === undefined ? undefined : new Date(until),
    });
  }
}
