/**
 * Doctor's read-only checks after the service was reached (doctor-reach.ts): the clock, the restaurants and their zones, the webhooks
 * and their last delivery, and the reads that show the dialect. Each sends at most a few GETs
 * through the client; together they spend at most 10 requests (retries of a 429 aside).
 * @module
 */
import { PartnerApiError } from '../errors.js';
import type { PartnerClient } from '../index.js';
import type { Probe } from './doctor-probe.js';
import type { Report } from './doctor-report.js';

/** Restaurants whose reservation list is read for the dialect. */
const MAX_LISTS = 3;
/** Clock skew beyond which the clock check warns (the service's `Date` counts whole seconds). */
const MAX_SKEW_MS = 5_000;
/** An id no webhook has: its 404 shows the error body's form. */
const ABSENT_ID = '2147483647';

export interface Restaurant {
  id: number | string;
  name: string;
  timezone: string | null;
}

/** What the checks share. */
export interface DoctorContext {
  client: PartnerClient;
  probe: Probe;
  report: Report;
  signal: AbortSignal;
  config: { baseUrl: string; partnerId: string; token: string };
  restaurants: Restaurant[];
}

/** The service's clock against ours, from the `Date` of its first answer. */
export function checkClock(context: DoctorContext): void {
  const seen = context.probe.serverDate;
  if (!seen) {
    context.report.add('clock', 'warn', 'the service sent no Date header: skew not measured');
    return;
  }
  const serverTime = Date.parse(seen.date);
  if (Number.isNaN(serverTime)) {
    context.report.add(
      'clock',
      'warn',
      `the service's Date header is unreadable ("${seen.date.slice(0, 40)}")`,
    );
    return;
  }
  // The header counts whole seconds: the service's time was somewhere in the second it names.
  const skew = serverTime + 500 - (seen.sentAt + seen.receivedAt) / 2;
  const seconds = (skew / 1000).toFixed(1);
  if (Math.abs(skew) > MAX_SKEW_MS)
    context.report.add(
      'clock',
      'warn',
      `this machine's clock is ${seconds} s off the service's`,
      'sync the clock (NTP): reservation times and timeouts rely on it',
    );
  else context.report.add('clock', 'pass', `within ${MAX_SKEW_MS / 1000} s of the service's (${seconds} s)`);
}

const isZone = (zone: unknown): zone is string => {
  if (typeof zone !== 'string' || zone === '') return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

const itemsOf = (body: unknown): unknown[] =>
  Array.isArray(body)
    ? body
    : Array.isArray((body as { results?: unknown } | null)?.results)
      ? (body as { results: unknown[] }).results
      : [];

/** The restaurants linked to the partner, each with a valid IANA zone. */
export async function checkRestaurants(context: DoctorContext): Promise<void> {
  const { client, report } = context;
  const body = await client.request({ method: 'GET', path: 'restaurants/' }, { signal: context.signal });
  for (const item of itemsOf(body)) {
    if (typeof item !== 'object' || item === null) continue;
    const { id, name, timezone } = item as { id?: unknown; name?: unknown; timezone?: unknown };
    if (typeof id !== 'number' && typeof id !== 'string') continue;
    context.restaurants.push({
      id,
      name: typeof name === 'string' ? name : String(id),
      timezone: isZone(timezone) ? timezone : null,
    });
    if (!isZone(timezone))
      report.add(
        'restaurants',
        'fail',
        `restaurant ${id} has ${timezone == null || timezone === '' ? 'no timezone' : `an unknown timezone "${(typeof timezone === 'string' ? timezone : JSON.stringify(timezone)).slice(0, 60)}"`}`,
        'bookings there cannot be given the right offset: tell the service',
      );
  }
  if (context.restaurants.length === 0)
    report.add(
      'restaurants',
      'warn',
      'no restaurant is linked to this partner',
      'ask the service to link the restaurants you book at',
    );
  else
    report.add(
      'restaurants',
      'pass',
      `${context.restaurants.length} linked: ${context.restaurants
        .slice(0, 5)
        .map((r) => `${r.id} (${r.timezone ?? 'no zone'})`)
        .join(', ')}${context.restaurants.length > 5 ? ', ...' : ''}`,
    );
}

/** Reads one page of a few restaurants' reservations: the list's shape, links, durations and date-times. */
export async function readReservationLists(context: DoctorContext): Promise<void> {
  for (const restaurant of context.restaurants.slice(0, MAX_LISTS)) {
    const body = await context.client.request(
      {
        method: 'GET',
        path: `restaurants/${encodeURIComponent(String(restaurant.id))}/reservations/`,
        query: { page_size: 1 },
      },
      { signal: context.signal },
    );
    // One reservation shows every point a list can show; a link needs a second page.
    if (itemsOf(body).length > 0 && (Array.isArray(body) || (body as { next?: unknown }).next)) break;
  }
}

/** The webhooks registered, each with its last delivery. */
export async function checkWebhooks(context: DoctorContext): Promise<void> {
  const { client, report } = context;
  const body = await client.request({ method: 'GET', path: 'webhooks/' }, { signal: context.signal });
  const webhooks = itemsOf(body).filter(
    (item): item is Record<string, unknown> => typeof item === 'object' && item !== null,
  );
  if (webhooks.length === 0) {
    report.add(
      'webhooks',
      'warn',
      'none registered: reservation changes will not reach you',
      'register one (client.webhooks.create) or poll with the sync',
    );
    return;
  }
  for (const webhook of webhooks) {
    const status = webhook.last_response_status_code;
    const where = `webhook ${String(webhook.id)} ${safeUrl(webhook.url)}${webhook.is_enabled === false ? ' (paused)' : ''}`;
    if (status == null) report.add('webhooks', 'pass', `${where}: no delivery yet`);
    else if (typeof status === 'number' && status >= 200 && status < 300)
      report.add('webhooks', 'pass', `${where}: last delivery answered ${status}`);
    else
      report.add(
        'webhooks',
        'warn',
        `${where}: last delivery answered ${JSON.stringify(status)}`,
        'check the receiver (restaurant-partner doctor --webhook-url URL sends a test delivery)',
      );
  }
}

/** One GET of a webhook nobody has: its 404 shows how the service writes errors. */
export async function readErrorBody(context: DoctorContext): Promise<void> {
  await context.client
    .request({ method: 'GET', path: `webhooks/${ABSENT_ID}/` }, { signal: context.signal })
    .catch((error: unknown) => {
      if (!(error instanceof PartnerApiError)) throw error;
    });
}

/** A URL without its query and credentials (a receiver's URL may carry a secret in either). */
export function safeUrl(value: unknown): string {
  if (typeof value !== 'string') return '(no url)';
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}${url.pathname}${url.search ? '?...' : ''}`;
  } catch {
    return '(unreadable url)';
  }
}
