/**
 * `GET /_fake/restaurants/:restaurantId/reservations`, paged: one restaurant of a full world held
 * 52 MB of bookings at the largest sizes, answered at once. A page is a JSON array (as before),
 * at most `limit` bookings (1000 by default) and 4 MiB of JSON; `Link: <...>; rel="next"` names
 * the next page and `X-Total-Count` counts them all.
 * @module
 */
import type { FakeBackend } from '../backend/backend.js';
import { fakeReservation, reservationRecords } from '../backend/fake-reservations.js';
import { json, utf8Bound } from '../http.js';
import type { ControlCall } from './call.js';

export const RESERVATION_PAGE = { defaultLimit: 1000, maxLimit: 5000, maxBytes: 4 * 1024 * 1024 } as const;

/** A whole number within [min, max] from the query, the fallback when absent, or undefined when invalid. */
function whole(query: URLSearchParams, name: string, fallback: number, max: number): number | undefined {
  const given = query.get(name);
  if (given === null) return fallback;
  return /^\d{1,9}$/.test(given) && Number(given) <= max ? Number(given) : undefined;
}

export function reservationPage(call: ControlCall, backend: FakeBackend, restaurantId: number): Response {
  const query = call.url.searchParams;
  const offset = whole(query, 'offset', 0, Number.MAX_SAFE_INTEGER);
  const limit = whole(query, 'limit', RESERVATION_PAGE.defaultLimit, RESERVATION_PAGE.maxLimit);
  if (offset === undefined || limit === undefined || limit === 0)
    return json(400, {
      detail: 'Invalid input.',
      ...(offset === undefined ? { offset: ['Expected a whole number.'] } : {}),
      ...(limit === undefined || limit === 0
        ? { limit: [`Expected an integer from 1 to ${RESERVATION_PAGE.maxLimit}.`] }
        : {}),
    });
  const all = reservationRecords(backend, restaurantId);
  const page: unknown[] = [];
  let bytes = 0;
  for (let index = offset; index < all.length && page.length < limit; index += 1) {
    const size = utf8Bound(backend.viewJson(all[index]!)) + 120;
    // At least one booking a page, however large, so a reader always moves on.
    if (page.length > 0 && bytes + size > RESERVATION_PAGE.maxBytes) break;
    bytes += size;
    page.push(fakeReservation(backend, all[index]!));
  }
  const headers: Record<string, string> = { 'x-total-count': String(all.length) };
  const next = offset + page.length;
  if (next < all.length) {
    const url = new URL(call.url);
    url.searchParams.set('offset', String(next));
    url.searchParams.set('limit', String(limit));
    headers.link = `<${url.href}>; rel="next"`;
  }
  return json(200, page, headers);
}
