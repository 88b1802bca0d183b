/**
 * `restaurant-partner listen --poll`: the reservation sync as a bridge from the live service to
 * the partner's receiver on this machine, with no public URL. Each change the sync sees becomes a
 * delivery shaped as the service's (its event, the reservation, the partner's token), sent within
 * the sync's interval and budget share; a receiver that refuses one gets it again (the sync
 * retries the change). It exits 1 when the service stops answering or refuses the credentials.
 * @module
 */
import { PartnerClient } from '../client.js';
import {
  RESERVATION_CANCELLED,
  RESERVATION_CONFIRMED,
  RESERVATION_MODIFIED,
} from '../resources/event-names.js';
import type { Reservation } from '../resources/reservations.schemas.js';
import type { ReservationChange } from '../sync/changes.js';
import { createReservationSync } from '../sync/reservation-sync.js';
import { connectFake } from '../testing/remote-fake.js';
import { buildDelivery } from '../webhooks/delivery.js';
import {
  CommandFailure,
  createOutput,
  createRedactor,
  fakeUrlOf,
  stopSignal,
  UsageError,
  type OptionValues,
} from './cli-kit.js';
import { forward, forwardedLine } from './forward.js';

/** Connection failures in a row after which the service counts as gone. */
const FAILURES_TO_GIVE_UP = 3;

/**
 * The event the service would have sent for a change, or undefined for none: a booking first seen
 * is the partner's own (no event) unless it is already confirmed or cancelled; arrival and
 * no-show have no event of their own in the spec and go as a modification.
 */
export function eventOf(change: Pick<ReservationChange, 'kind' | 'reservation'>): string | undefined {
  const reservation: Partial<Reservation> = change.reservation;
  switch (change.kind) {
    case 'created':
      return reservation.cancelled
        ? RESERVATION_CANCELLED
        : reservation.confirmed
          ? RESERVATION_CONFIRMED
          : undefined;
    case 'confirmed':
      return RESERVATION_CONFIRMED;
    case 'cancelled':
      return RESERVATION_CANCELLED;
    case 'modified':
    case 'arrived':
    case 'no_show':
      return RESERVATION_MODIFIED;
  }
}

/** Credentials: PARTNER_ID and PARTNER_TOKEN, or, against the fake, its first seeded partner. */
async function credentialsFor(
  url: string,
): Promise<{ baseUrl: string; partnerId: string; apiToken: string }> {
  const partnerId = process.env.PARTNER_ID;
  const apiToken = process.env.PARTNER_TOKEN;
  if (partnerId && apiToken) return { baseUrl: url, partnerId, apiToken };
  const fake = await connectFake(url).catch(() => undefined);
  if (fake?.seed.partners[0]?.apiToken) return fake.clientOptions();
  throw new UsageError(
    '--poll needs the partner credentials: set PARTNER_BASE_URL, PARTNER_ID and PARTNER_TOKEN',
  );
}

/** Runs the bridge until a signal (0) or until the service goes away (a CommandFailure, exit 1). */
export async function listenByPolling(
  values: OptionValues,
  forwardTo: string,
  token: string,
  intervalMs: number,
): Promise<number> {
  const url = fakeUrlOf(values);
  const credentials = await credentialsFor(url);
  const redactor = createRedactor([credentials.apiToken, token]);
  const print = createOutput(values.json === true, redactor.redact);
  const stop = stopSignal();
  let failures = 0;
  let gone: string | undefined;
  const giveUp = (why: string) => {
    gone ??= why;
    stop.abort();
  };
  const client = new PartnerClient({
    ...credentials,
    logLevel: 'off',
    // Watches every answer: the service refusing the credentials, or not answering, ends the bridge.
    fetch: async (input, init) => {
      try {
        const response = await fetch(input, init);
        failures = 0;
        if (response.status === 401 || response.status === 403)
          giveUp(`the service at ${url} refused the credentials (${response.status})`);
        if (
          response.status === 404 &&
          !new URL(response.url || (input instanceof Request ? input.url : input)).pathname.includes(
            '/reservations/',
          )
        )
          giveUp(`the service at ${url} answers 404 (a deleted sandbox?)`);
        return response;
      } catch (error) {
        failures += 1;
        if (failures >= FAILURES_TO_GIVE_UP)
          giveUp(`the service at ${url} stopped answering: ${(error as Error).message}`);
        throw error;
      }
    },
  });
  // Changes seen while the first full read runs are what the receiver already has.
  let primed = false;
  let skipped = 0;
  const sync = createReservationSync({
    client,
    trackClientCreates: false,
    reconcile: { intervalMs },
    logger: { warn: () => undefined, error: () => undefined },
    onChange: async (change) => {
      const event = eventOf(change);
      if (!primed || event === undefined) {
        skipped += 1;
        return;
      }
      const delivery = buildDelivery(
        {
          event,
          restaurantId: change.restaurantId,
          reservation: change.reservation,
          createdAt: change.detectedAt,
        },
        token,
      );
      const result = await forward(forwardTo, delivery.body, token);
      print({ ...result, kind: change.kind, source: change.source }, forwardedLine(result));
      // The sync hands the change over again later: the receiver gets it once it answers 2xx.
      if (result.status === null || result.status < 200 || result.status >= 300)
        throw new Error(`the receiver answered ${result.status ?? result.error}`);
    },
  });
  try {
    await sync.start();
    await Promise.race([
      sync.settled(),
      new Promise((resolve) => stop.signal.addEventListener('abort', resolve)),
    ]);
    primed = true;
    if (gone === undefined && !stop.signal.aborted)
      print(
        { ready: true, source: url, forwardTo, intervalMs, alreadyThere: skipped },
        `Ready: polling ${url} every ${intervalMs} ms, forwarding each change to ${forwardTo} (${skipped} reservations already there not sent; Ctrl-C to stop)`,
      );
    await new Promise((resolve) => {
      if (stop.signal.aborted) resolve(undefined);
      else stop.signal.addEventListener('abort', resolve, { once: true });
    });
  } finally {
    await sync.stop();
    stop.release();
  }
  if (gone !== undefined) throw new CommandFailure(`stopped: ${gone}`);
  return 0;
}
