/**
 * The idempotent create's side of the booking ledger: claiming the key before anything is sent,
 * waiting for a create with the key running elsewhere, answering with what the ledger knows (a
 * booking, an ambiguous hold), holding the claim (renewed, fenced before each POST) while the
 * create runs, and recording its outcome for every other create with the key. Apart from the send
 * (create-send.ts) because the ledger's rules (leases, holds, fences) are read as one.
 * @module
 */
import {
  AbortError,
  AmbiguousCreateError,
  BookingLedgerUnavailableError,
  IdempotencyKeyReuseError,
  TimeoutError,
} from '../errors.js';
import type { WithResponse } from '../transport/api-promise.js';
import { neverReachedServer } from '../transport/transport.js';
import type { Reservation } from '../resources/reservations.schemas.js';
import { ledgerSlot, type BookingLedgerEntry } from './booking-ledger.js';
import { CreateCall, LEASE_MS, REMEMBER_BOOKING_MS } from './create-call.js';
import { differingFields } from './fingerprint.js';
import { lookUpByKey } from './look-up-by-key.js';

/**
 * Waits between two looks at a key another create holds: doubling from the first to the last. The
 * last is short beside the lease; a repeat after its holder died acts when the lease is over (below).
 */
const FIRST_WAIT_MS = 50;
const LONGEST_WAIT_MS = 500;
/**
 * A holder renews its claim at least every LEASE_MS, so a claim seen running at t has lapsed by
 * t + LEASE_MS if its holder died: one look is made then (and this much after, for the ledger's
 * round trip), so a job redelivered after a crash acts about 3 s after it first saw the claim,
 * not on the next step of the doubling waits.
 */
const LAPSE_SLACK_MS = 25;

/** A ledger operation within the call's signal and deadline; a ledger that fails refuses the create (nothing sent). */
export async function ledgerOp<T>(c: CreateCall, operation: () => Promise<T>): Promise<T> {
  try {
    return await c.call.within(Promise.resolve().then(operation), { method: 'POST' });
  } catch (error) {
    const callEnded =
      (error instanceof AbortError || error instanceof TimeoutError) && neverReachedServer(error);
    if (callEnded) throw error;
    throw new BookingLedgerUnavailableError(
      `The booking ledger could not be read (${error instanceof Error ? error.message : String(error)}), so the create was not sent: without it the client cannot tell whether this idempotency key is booking or booked elsewhere`,
      { idempotencyKey: c.key, cause: error },
    );
  }
}

/**
 * Runs `create` as the one holder of the key in the ledger, or answers with what the ledger
 * knows: the booking of an earlier create, the outcome of one running now, or an ambiguous hold.
 */
export async function throughLedger(
  c: CreateCall,
  fingerprint: string,
  fresh: boolean,
  tx: object | undefined,
  create: (fence: () => Promise<void>, neverUsed: boolean) => Promise<WithResponse<Reservation>>,
): Promise<WithResponse<Reservation>> {
  const context = c.context;
  const ledger = context.bookingLedger;
  // A UUID names one partner however it is spelt.
  const slot = ledgerSlot(context.service, context.partnerId.toLowerCase(), c.key);
  const token = crypto.randomUUID();
  let waitMs = FIRST_WAIT_MS;
  // When this call first saw the key running (performance.now()): its lease is over by LEASE_MS later.
  let runningSince: number | undefined;
  for (;;) {
    const entry = await ledgerOp(c, () =>
      ledger.claim(slot, {
        token,
        fingerprint,
        leaseMs: LEASE_MS,
        now: c.transport.clock.now(),
        holdMs: c.holdMs(),
        fresh,
        ...(tx === undefined ? {} : { tx }),
      }),
    );
    if (entry === undefined || entry.state === 'claimed') {
      const neverUsed = ledger.durable === true && entry?.state === 'claimed' && !entry.used;
      return asHolder(c, slot, token, fingerprint, fresh, (fence) => create(fence, neverUsed));
    }
    if (entry.fingerprint !== fingerprint) {
      throw new IdempotencyKeyReuseError({
        idempotencyKey: c.key,
        restaurantId: c.rid,
        fields: differingFields(entry.fingerprint, fingerprint),
      });
    }
    if (entry.state === 'booked') return readBooking(c, entry.reservationId);
    // Held: after an ambiguous end, or a holder that died after sending (its lease lapsed while
    // this call waited). Look the key up rather than repeat the holder's answer: it may show now.
    if (entry.state === 'ambiguous') {
      return whileHeld(c, slot, entry);
    }
    // Another create with this key is running: wait for its outcome, within this call's signal and deadline.
    runningSince ??= performance.now();
    const lapsedBy = runningSince + LEASE_MS + LAPSE_SLACK_MS - performance.now();
    const untilNextLook = lapsedBy > 0 ? Math.min(waitMs, lapsedBy) : waitMs;
    const stop = new AbortController();
    const signal = c.call.signal ? AbortSignal.any([c.call.signal, stop.signal]) : stop.signal;
    try {
      const change = ledger.changed
        ? ledger.changed(slot, { timeoutMs: untilNextLook, signal })
        : sleep(untilNextLook, signal);
      await c.call.within(change, { method: 'POST' });
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
export async function readBooking(c: CreateCall, reservationId: string): Promise<WithResponse<Reservation>> {
  c.outcome = 'replayed';
  try {
    return await c.reads.retrieve(c.rid, reservationId, c.call).withResponse();
  } catch (error) {
    if (error instanceof AbortError) throw error;
    throw c.ambiguous(
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
export async function asHolder(
  c: CreateCall,
  slot: string,
  token: string,
  fingerprint: string,
  fresh: boolean,
  create: (fence: () => Promise<void>) => Promise<WithResponse<Reservation>>,
): Promise<WithResponse<Reservation>> {
  const ledger = c.context.bookingLedger;
  const clock = c.transport.clock;
  // Until when the key is held should this claim lapse now: nothing sent yet, no hold.
  const until = () => clock.now() + (c.posted ? LEASE_MS + c.holdMs() : 0);
  const renewal = setInterval(
    () => void ledger.renew(slot, token, LEASE_MS, until()).catch(() => undefined),
    LEASE_MS / 3,
  );
  (renewal as { unref?: () => void }).unref?.();
  const fence = async () => {
    c.posted = true;
    const held = await ledgerOp(c, () => ledger.renew(slot, token, LEASE_MS, until()));
    if (!held) {
      throw new BookingLedgerUnavailableError(
        `The claim on this idempotency key lapsed before the create was sent (this process was paused or busy for longer than the ${LEASE_MS} ms lease), so nothing was sent`,
        { idempotencyKey: c.key },
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
    if (error instanceof AmbiguousCreateError && c.posted) {
      // The hold the error announced, so a repeat while held carries the same one.
      const heldUntil = error.holdUntil?.getTime() ?? clock.now() + c.holdMs();
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
export async function whileHeld(
  c: CreateCall,
  slot: string,
  entry: Extract<BookingLedgerEntry, { state: 'ambiguous' }>,
): Promise<WithResponse<Reservation>> {
  const until = new Date(entry.until).toISOString();
  c.held = true;
  if (!c.context.idempotencyMetadata) {
    throw c.ambiguous(
      `A create with this idempotency key ended with its outcome unknown; until ${until} nothing is sent with this key (with idempotencyMetadata off it cannot be looked up)`,
      undefined,
      0,
      entry.until,
    );
  }
  const found = await lookUpByKey(c.reads, c.rid, c.key, c.call);
  if (found.state === 'found') {
    await c.context.bookingLedger
      .settle(
        slot,
        undefined,
        { state: 'booked', fingerprint: entry.fingerprint, reservationId: String(found.reservation.id) },
        REMEMBER_BOOKING_MS,
      )
      .catch(() => undefined);
    c.outcome = 'recovered_by_lookup';
    return { data: found.reservation, response: null, callId: c.call.id };
  }
  if (found.state === 'unknown' && found.cause instanceof AbortError) throw found.cause;
  const why =
    found.state === 'absent' ? 'no reservation carries the key yet' : 'the look-up by key could not tell';
  throw c.ambiguous(
    `A create with this idempotency key ended with its outcome unknown and ${why}; the service may still commit it, so until ${until} nothing is sent with this key`,
    found.state === 'unknown' ? found.cause : undefined,
    0,
    entry.until,
  );
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
