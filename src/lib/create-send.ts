/**
 * The idempotent create's send: the POST (with its key in a header and in the booking's metadata),
 * the rule for a second POST (only when the first provably did not take effect), and the look-ups
 * over the settle window after any answer that may follow a commit. Apart from the ledger's side
 * (create-ledger.ts): this is what happens between the fence and the outcome.
 * @module
 */
import {
  AbortError,
  ConnectionError,
  IdempotencyKeyReuseError,
  PartnerApiError,
  RateLimitError,
  ResponseValidationError,
} from '../errors.js';
import type { WithResponse } from '../transport/api-promise.js';
import { path } from '../transport/path.js';
import { neverReachedServer, outcomeUnknown } from '../transport/transport.js';
import { parseOutput } from '../transport/validate.js';
import { Reservation } from '../resources/reservations.schemas.js';
import { singleObject } from '../resources/resource.js';
import {
  CreateCall,
  FINGERPRINT_METADATA_KEY,
  isDefinitiveRefusal,
  mayHaveTakenEffect,
  sameRefusal,
} from './create-call.js';
import { IDEMPOTENCY_METADATA_KEY, KeySearch, type LookUp } from './look-up-by-key.js';

/** When the look-ups of the settle window run, as shares of the window: at once, then ever further apart. */
const SETTLE_SCHEDULE = [0, 0.1, 0.3, 0.6, 1];

const restaurantPath = (restaurantId: number | string) => path`/restaurants/${restaurantId}/reservations/`;

/**
 * Sends the create. A second POST goes out only when the first provably did not take effect: it
 * was never sent, it was answered 429 and reads of the list over the settle window agreed that
 * the key is absent, or the service is declared to honour `Idempotency-Key`. After any other
 * failure that may follow a commit (a 4xx included), the key is looked up over the settle window:
 * found, it is the answer; else AmbiguousCreateError (or, for a 4xx, the 4xx itself when the
 * reads agree that nothing was booked).
 */
export async function send(
  c: CreateCall,
  body: Record<string, unknown>,
  fence: () => Promise<void>,
): Promise<WithResponse<Reservation>> {
  const context = c.context;
  const key = c.key;
  const call = c.call;
  const honoured = context.idempotencyKeyHonoured;
  // Set once any attempt failed in a way that may have booked all the same.
  let mayHaveBooked = false;
  let attempts = 0;
  // Whether the last 429's look-ups agreed that the key is absent: only then is a resend safe.
  let provedAbsent = false;
  try {
    return await c.transport.request({
      method: 'POST',
      path: restaurantPath(c.rid),
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
        if (context.idempotencyMetadata && typeof digest === 'string' && digest !== c.digest)
          throw new IdempotencyKeyReuseError({
            idempotencyKey: key,
            restaurantId: c.rid,
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
          const look = await lookOverWindow(c, error, attempt);
          if (look.state === 'found') {
            c.outcome = 'recovered_by_lookup';
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
      const look = await lookOverWindow(c, error, tried);
      if (look.state === 'found') return c.recovered(look.reservation);
      // Reads refused the same way as the create (bad credentials, no such restaurant) tell
      // nothing was booked either; any other doubt is ambiguous.
      if (look.state === 'absent' || sameRefusal(look.cause, error)) throw error;
      throw c.ambiguous(
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
      throw c.ambiguous('The create was aborted after it was sent; the reservation may exist', error, tried);
    }
    const look = await lookOverWindow(c, error, tried);
    if (look.state === 'found') return c.recovered(look.reservation);
    const why =
      look.state === 'absent'
        ? 'no reservation carries its idempotency key yet'
        : 'the look-up by idempotency key could not tell';
    throw c.ambiguous(
      `The create failed after it was sent and ${why}; the service may still book it`,
      look.state === 'unknown' ? look.cause : error,
      tried,
    );
  }
}

/**
 * Looks the key up a few times over the settle window (on the client's clock, within the call's
 * deadline), so a booking the service commits, or a replica shows, a few seconds late is found.
 * "Absent" only when the last two reads, spread over the window, agree.
 */
export async function lookOverWindow(c: CreateCall, cause: unknown, attempts: number): Promise<LookUp> {
  const context = c.context;
  if (!context.idempotencyMetadata) {
    throw c.ambiguous(
      'The create failed after it was sent, and with idempotencyMetadata off the reservation cannot be looked up',
      cause,
      attempts,
    );
  }
  const clock = c.transport.clock;
  const windowMs = context.createLookupWindowMs;
  const startedAt = clock.now();
  const search = new KeySearch(c.reads, c.rid, c.key, c.call, true);
  let last: LookUp & { final: boolean } = { state: 'unknown', cause, final: false };
  // "Absent" counts only from reads spread over the whole window: a deadline that cuts it short
  // leaves the reads so far too close together to say the booking will not show.
  let wholeWindow = windowMs === 0;
  for (const share of SETTLE_SCHEDULE) {
    const waitMs = startedAt + share * windowMs - clock.now();
    const left = c.call.remainingMs();
    if (share > 0 && windowMs === 0) break;
    if (left !== undefined && left <= Math.max(0, waitMs)) break;
    if (waitMs > 0) {
      try {
        await clock.sleep(waitMs, c.call.signal);
      } catch (abort) {
        throw c.ambiguous(
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
  if (last.state === 'unknown' && !last.final && c.call.remainingMs() !== 0) last = await search.look();
  const { final: _final, ...answer } = last;
  if (answer.state === 'unknown' && answer.cause instanceof AbortError) {
    throw c.ambiguous(
      'The create was aborted while its outcome was being checked; the reservation may exist',
      answer.cause,
      attempts,
    );
  }
  if (answer.state === 'absent' && !wholeWindow) return { state: 'unknown', cause };
  return answer;
}
