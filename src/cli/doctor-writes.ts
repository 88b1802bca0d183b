/**
 * Doctor's writes (`--probe-writes`, `--webhook-url`): one booking at least 7 days ahead,
 * cancelled in the same run, the refusals that show two statuses, and one temporary webhook,
 * created, tested, read and deleted. Each thing created is registered for clean-up BEFORE its
 * request leaves (a booking by its idempotency key, a webhook by its unique name), so an
 * interruption mid-request still finds and removes it.
 * @module
 */
import { DateTime } from 'luxon';
import { ConflictError, PartnerApiError } from '../errors.js';
import { RESERVATION_EVENT_TYPES } from '../resources/event-names.js';
import type { PartnerClient } from '../client.js';
import type { DoctorContext, Restaurant } from './doctor-checks.js';
import { safeUrl } from './doctor-checks.js';

/** Days ahead of the probe booking: far from tonight's service. */
const DAYS_AHEAD = 8;
/** Times tried, in order, at each restaurant; then the next restaurant. */
const TIMES = ['19:00', '19:30', '12:30'];
const MAX_RESTAURANTS = 2;
/** How long the clean-up may take after an interruption, per item. */
const CLEANUP_TIMEOUT_MS = 30_000;

type Item =
  | { kind: 'reservation'; restaurantId: number | string; key: string; id?: number | string; done: boolean }
  | { kind: 'webhook'; name: string; id?: number | string; done: boolean };

/** What this run created and has not cleaned yet. */
export class Cleanup {
  readonly items: Item[] = [];
  constructor(private readonly context: DoctorContext) {}

  /** Cancels and deletes everything still pending; returns what could not be cleaned, by id. */
  async run(): Promise<string[]> {
    const left: string[] = [];
    for (const item of this.items) {
      if (item.done) continue;
      const signal = AbortSignal.timeout(CLEANUP_TIMEOUT_MS);
      try {
        if (item.kind === 'reservation') await this.#cancel(item, signal);
        else await this.#delete(item, signal);
      } catch (error) {
        const what =
          item.kind === 'reservation'
            ? `reservation ${item.id ?? `with key ${item.key}`} at restaurant ${item.restaurantId}`
            : `webhook ${item.id ?? `named "${item.name}"`}`;
        left.push(what);
        this.context.report.add(
          'cleanup',
          'fail',
          `could not remove ${what}: ${error instanceof Error ? error.message : String(error)}`,
          'remove it by hand',
        );
      }
    }
    return left;
  }

  async #cancel(item: Extract<Item, { kind: 'reservation' }>, signal: AbortSignal): Promise<void> {
    const { client, report } = this.context;
    if (item.id === undefined) {
      // Interrupted while its create was on the way: it may have been booked all the same.
      const found = await client.reservations.findByIdempotencyKey(item.restaurantId, item.key, { signal });
      if (!found) {
        item.done = true;
        return;
      }
      item.id = found.id;
      report.note(
        `created reservation ${found.id} at restaurant ${item.restaurantId} (found by its key after the interruption)`,
      );
    }
    const cancelled = await client.reservations.cancel(item.restaurantId, item.id, { signal });
    item.done = true;
    report.note(
      `cancelled reservation ${item.id}${cancelled && cancelled.cancelled !== true ? ' (the answer does not show it cancelled)' : ''}`,
    );
  }

  async #delete(item: Extract<Item, { kind: 'webhook' }>, signal: AbortSignal): Promise<void> {
    const { client, report } = this.context;
    if (item.id === undefined) {
      const mine = (await client.webhooks.list({ signal }).toArray()).find(
        (webhook) => webhook.name === item.name,
      );
      if (!mine) {
        item.done = true;
        return;
      }
      item.id = mine.id;
      report.note(`created webhook ${mine.id} (found by its name after the interruption)`);
    }
    await client.webhooks.delete(item.id, { signal });
    item.done = true;
    report.note(`deleted webhook ${item.id}`);
  }
}

const runId = () => `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
const guest = {
  first_name: 'Doctor',
  last_name: 'Probe',
  comment: 'restaurant-partner doctor: a probe, cancelled in the same run',
};

function dayAhead(restaurant: Restaurant): string {
  return DateTime.now()
    .setZone(restaurant.timezone ?? 'UTC')
    .plus({ days: DAYS_AHEAD })
    .toISODate()!;
}

/** The refusal statuses no booking shows: bad input, then no availability (a time no restaurant opens at). */
async function probeRefusals(
  context: DoctorContext,
  writer: PartnerClient,
  cleanup: Cleanup,
  restaurant: Restaurant,
): Promise<void> {
  const { probe, signal } = context;
  const path = `restaurants/${encodeURIComponent(String(restaurant.id))}/reservations/`;
  // A webhook without its url: every service refuses it for its input (registered for clean-up
  // all the same, by its name, should one accept it).
  const name = `restaurant-partner doctor ${runId()} (temporary)`;
  const refused = { kind: 'webhook' as const, name, done: false } as Item & { kind: 'webhook' };
  cleanup.items.push(refused);
  await writer.request({ method: 'POST', path: 'webhooks/', body: { name } }, { signal }).then(
    () => context.report.add('writes', 'warn', 'a webhook without a url was accepted (it is deleted)'),
    (error: unknown) => {
      if (!(error instanceof PartnerApiError)) throw error;
      refused.done = true;
      if (error.status === 400 || error.status === 422)
        probe.settle('badInputStatus', error.status, {
          request: 'POST /api/v1/partnership/webhooks/',
          status: error.status,
          excerpt: 'a webhook without its url',
        });
    },
  );
  const key = `doctor-${runId()}`;
  const item = { kind: 'reservation' as const, restaurantId: restaurant.id, key, done: false } as Item & {
    kind: 'reservation';
  };
  cleanup.items.push(item);
  try {
    const booked = await writer.reservations.create(
      restaurant.id,
      { start_time: { date: dayAhead(restaurant), time: '03:17' }, adults: 2, ...guest },
      { idempotencyKey: key, signal },
    );
    item.id = booked.id;
    context.report.note(
      `created reservation ${booked.id} at restaurant ${restaurant.id} (03:17 was open: no-availability status not learned)`,
    );
  } catch (error) {
    if (!(error instanceof PartnerApiError)) throw error;
    item.done = true;
    const badInput = probe.points.get('badInputStatus')?.value;
    if (
      error.status !== 404 &&
      error.status !== 401 &&
      error.status !== 429 &&
      error.status < 500 &&
      error.status !== badInput
    )
      probe.settle('noAvailabilityStatus', error.status, {
        request: `POST /api/v1/partnership/${path}`,
        status: error.status,
        excerpt: 'a create at 03:17, when restaurants are closed',
      });
  }
}

/** One booking at least 7 days ahead, its repeat with the same key, then both cancelled. */
export async function probeBooking(context: DoctorContext, cleanup: Cleanup): Promise<void> {
  const { report, probe, signal } = context;
  const zones = Object.fromEntries(
    context.restaurants.filter((r) => r.timezone).map((r) => [String(r.id), r.timezone!]),
  );
  // Honoured keys: no look-up of the key before each create (a live list can be long); the key is
  // still written in the booking's metadata, where the clean-up finds a booking whose answer was lost.
  const writer = context.client.withOptions({
    restaurantTimezones: zones,
    idempotencyKeyHonoured: true,
    createLookupWindowMs: 0,
  });
  const candidates = context.restaurants
    .filter((restaurant) => restaurant.timezone)
    .slice(0, MAX_RESTAURANTS);
  if (candidates.length === 0) {
    report.add('writes', 'warn', 'no restaurant with a timezone: no booking probed');
    return;
  }
  await probeRefusals(context, writer, cleanup, candidates[0]!);
  for (const restaurant of candidates) {
    for (const time of TIMES) {
      const key = `doctor-${runId()}`;
      const input = { start_time: { date: dayAhead(restaurant), time }, adults: 2, ...guest };
      const item = { kind: 'reservation' as const, restaurantId: restaurant.id, key, done: false } as Item & {
        kind: 'reservation';
      };
      cleanup.items.push(item);
      let booked;
      try {
        booked = await writer.reservations.create(restaurant.id, input, { idempotencyKey: key, signal });
      } catch (error) {
        item.done = true;
        if (
          error instanceof ConflictError ||
          (error instanceof PartnerApiError && (error.status === 422 || error.status === 400))
        )
          continue;
        throw error;
      }
      item.id = booked.id;
      report.note(
        `created reservation ${booked.id} at restaurant ${restaurant.id} (${input.start_time.date} ${time})`,
      );
      // The same request again, key and body byte for byte: replayed, or booked anew.
      const repeat = await probe.resendLastCreate(context.client.rateLimiter, signal);
      const repeatId = (repeat.body as { id?: unknown } | undefined)?.id;
      const evidence = {
        request: `POST /api/v1/partnership/restaurants/${restaurant.id}/reservations/`,
        status: repeat.status,
      };
      if (repeat.status >= 200 && repeat.status < 300 && String(repeatId) === String(booked.id)) {
        probe.settle('idempotencyKey', 'honoured', {
          ...evidence,
          excerpt: `the same Idempotency-Key and body answered reservation ${booked.id} again`,
        });
      } else if (
        repeat.status >= 200 &&
        repeat.status < 300 &&
        (typeof repeatId === 'number' || typeof repeatId === 'string')
      ) {
        cleanup.items.push({
          kind: 'reservation',
          restaurantId: restaurant.id,
          key,
          id: repeatId,
          done: false,
        });
        report.note(
          `created reservation ${repeatId} at restaurant ${restaurant.id} (the repeat with the same key booked anew)`,
        );
        probe.settle('idempotencyKey', 'ignored', {
          ...evidence,
          excerpt: `the same Idempotency-Key and body booked reservation ${repeatId} beside ${booked.id}`,
        });
      }
      await cleanup.run();
      report.add(
        'writes',
        'pass',
        `booked at restaurant ${restaurant.id} ${DAYS_AHEAD} days ahead and cancelled`,
      );
      return;
    }
  }
  report.add(
    'writes',
    'warn',
    `no table at ${candidates.map((r) => r.id).join(', ')} for 2 on ${TIMES.join(', ')} ${DAYS_AHEAD} days ahead: booking answers not learned`,
  );
}

/** A temporary webhook: created, sent a test delivery when `receiver` is given, read, deleted. */
export async function probeWebhook(
  context: DoctorContext,
  cleanup: Cleanup,
  receiver: string | undefined,
): Promise<void> {
  const { client, report, signal } = context;
  const name = `restaurant-partner doctor ${runId()} (temporary)`;
  const item = { kind: 'webhook' as const, name, done: false } as Item & { kind: 'webhook' };
  cleanup.items.push(item);
  const created = await client.webhooks.create(
    {
      url: receiver ?? 'https://example.com/restaurant-partner-doctor',
      name,
      // No event reaches it while it lives: only the test delivery asked for.
      subscribed_events: Object.fromEntries(RESERVATION_EVENT_TYPES.map((event) => [event, false])),
    },
    { signal },
  );
  item.id = created.id;
  report.note(`created webhook ${created.id} (temporary)`);
  if (receiver !== undefined) {
    let tested = await client.webhooks.test(created.id, { signal });
    if (tested.last_response_status_code == null)
      tested = await client.webhooks.retrieve(created.id, { signal });
    const status = tested.last_response_status_code;
    const where = safeUrl(receiver);
    if (typeof status === 'number' && status >= 200 && status < 300)
      report.add('receiver', 'pass', `${where} answered the test delivery ${status}`);
    else if (status === 401 || status === 403)
      report.add(
        'receiver',
        'pass',
        `${where} was reached and refused the temporary webhook's token (${status}), as a receiver checking tokens should`,
      );
    else if (typeof status === 'number' && status >= 300 && status < 500)
      report.add(
        'receiver',
        'warn',
        `${where} answered the test delivery ${status}`,
        'a receiver answers 2xx once it has handled a delivery',
      );
    else
      report.add(
        'receiver',
        'fail',
        `the service could not deliver to ${where}${status == null ? ' (no answer recorded)' : ` (${String(status)})`}`,
        'the receiver must be reachable from the internet over https, and answer within 10 s',
      );
  }
  await cleanup.run();
}
