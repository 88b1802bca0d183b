/**
 * Read routes of the control API that show the whole fake at once (partners, every channel's
 * reservations, faults by id) and the removal of one fault. The simulator page (`GET /_fake/ui`)
 * uses nothing else, so everything it shows or does is scriptable with curl too.
 * @module
 */
import type { ActiveFault } from './faults.js';
import type { FakeService, HandleContext } from './service.js';
import type { DeliveryLogEntry } from './state.js';
import { empty, errorResponse, json, notFound } from './wire.js';

/** A reservation's state, named as the spec's state table names it. */
export type ReservationStateName = 'created' | 'confirmed' | 'cancelled' | 'arrived' | 'no-show';

/** A partner as the control views show it: the token is null for a caller that is not on loopback. */
export interface PartnerView {
  partnerId: string;
  name: string;
  apiToken: string | null;
}

/** Everything the simulator page shows, in one answer (`GET /_fake/overview`). */
export interface FakeOverview {
  clock: { now: string; frozen: boolean };
  rateLimit: { requestsPerSecond: number | false };
  /** true when the caller is not on loopback: partner tokens are then withheld. */
  remoteViewer: boolean;
  partners: PartnerView[];
  restaurants: Record<string, unknown>[];
  faults: readonly ActiveFault[];
  /** The newest delivery attempts first, at most `?deliveries=N` (default 100). */
  deliveries: { total: number; latest: DeliveryLogEntry[] };
}

const DEFAULT_DELIVERIES = 100;
const MAX_DELIVERIES = 1000;

/** The routes this module serves, for the `GET /_fake/` listing. */
export const CONTROL_VIEW_ROUTES = [
  'GET /_fake/overview?deliveries=100 (clock, rate limit, partners, restaurants with every channel\'s reservations, faults, latest deliveries; ETag / If-None-Match)',
  'GET /_fake/partners (tokens withheld from callers not on loopback)',
  'GET /_fake/reservations (every restaurant, every channel, with state)',
  'DELETE /_fake/faults/:id',
  'GET /_fake/ui (the simulator page)',
] as const;

function stateOf(reservation: Record<string, unknown>): ReservationStateName {
  if (reservation.arrived === true) return 'arrived';
  if (reservation.no_show === true) return 'no-show';
  if (reservation.cancelled === true) return 'cancelled';
  return reservation.confirmed === true ? 'confirmed' : 'created';
}

function partners(fake: FakeService, remoteViewer: boolean): PartnerView[] {
  return fake.describeSeed().partners.map(({ partnerId, name, apiToken }) => ({ partnerId, name, apiToken: remoteViewer ? null : apiToken }));
}

function reservationsOf(fake: FakeService, restaurantId: number): Record<string, unknown>[] {
  return fake.allReservations(restaurantId).map((reservation) => ({ ...reservation, restaurantId, state: stateOf(reservation) }));
}

function overview(fake: FakeService, remoteViewer: boolean, deliveryLimit: number): FakeOverview {
  const log = fake.deliveries;
  return {
    clock: { now: new Date(fake.clock.now()).toISOString(), frozen: fake.clock.frozen },
    rateLimit: { requestsPerSecond: fake.rateLimit },
    remoteViewer,
    partners: partners(fake, remoteViewer),
    restaurants: fake.describeSeed().restaurants.map((restaurant) => ({ ...restaurant, reservations: reservationsOf(fake, restaurant.id) })),
    faults: fake.faults,
    deliveries: { total: log.length, latest: log.slice(-deliveryLimit).reverse() },
  };
}

/** FNV-1a over the UTF-16 units: a cheap, stable tag for an answer, not a security measure. */
function hashText(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

/**
 * The tag ignores the ticking of a running clock (only its offset from real time counts, in whole
 * seconds), so a page polling every second gets 304 until something really changed.
 */
function tagOf(view: FakeOverview, now: number): string {
  const { clock, ...rest } = view;
  const clockPart = clock.frozen ? clock.now : String(Math.round((now - Date.now()) / 1000));
  const text = JSON.stringify(rest);
  return `"${hashText(text)}${text.length.toString(36)}-${hashText(clockPart)}"`;
}

/**
 * Serves the routes above; undefined for any other control route (the main control router
 * answers those). `route` is the path after `/_fake/`.
 */
export function handleControlView(fake: FakeService, request: Request, route: string, context: HandleContext): Response | undefined {
  const method = request.method.toUpperCase();
  const segments = route.split('/').filter((segment) => segment !== '');
  const remoteViewer = context.remoteViewer === true;
  const onlyGet = () => (method === 'GET' || method === 'HEAD' ? undefined : errorResponse(405, `Method "${method}" not allowed.`, {}, { allow: 'GET' }));
  if (segments.length === 1 && segments[0] === 'overview') {
    const refused = onlyGet();
    if (refused) return refused;
    const given = new URL(request.url).searchParams.get('deliveries');
    let limit = DEFAULT_DELIVERIES;
    if (given !== null) {
      if (!/^\d{1,7}$/.test(given) || Number(given) > MAX_DELIVERIES) return errorResponse(400, 'Invalid input.', { deliveries: [`Expected an integer from 0 to ${MAX_DELIVERIES}.`] });
      limit = Number(given);
    }
    const view = overview(fake, remoteViewer, limit);
    const tag = tagOf(view, fake.clock.now());
    const headers = { etag: tag, 'cache-control': 'no-cache' };
    if (request.headers.get('if-none-match') === tag) return empty(304, headers);
    return json(200, view, headers);
  }
  if (segments.length === 1 && segments[0] === 'partners' && (method === 'GET' || method === 'HEAD')) {
    return json(200, partners(fake, remoteViewer));
  }
  if (segments.length === 1 && segments[0] === 'reservations') {
    return onlyGet() ?? json(200, fake.describeSeed().restaurants.flatMap((restaurant) => reservationsOf(fake, restaurant.id)));
  }
  if (segments.length === 2 && segments[0] === 'faults') {
    if (method !== 'DELETE') return errorResponse(405, `Method "${method}" not allowed.`, {}, { allow: 'DELETE' });
    const id = /^\d{1,15}$/.test(segments[1]!) ? Number(segments[1]) : 0;
    return fake.removeFault(id) ? empty(204) : notFound(`No pending fault ${segments[1]} (it may have hit already).`);
  }
  return undefined;
}
