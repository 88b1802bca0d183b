/**
 * `GET /_fake/state` as a dashboard polls it, and the removal of one fault. The simulator page
 * (`GET /_fake/ui`) is built on these and the other control routes only, so everything it shows or
 * does is scriptable too.
 * @module
 */
import { notFound } from '../backend/fake-error.js';
import { empty, json } from '../http.js';
import type { ControlCall } from './call.js';
import { stateView } from './views.js';

/** `GET /_fake/state` as answered: the state view, bounded, with tokens withheld from remote viewers. */
export type LiveState = Omit<ReturnType<typeof stateView>, 'partners'> & {
  /** Partners with their credentials; `apiToken` is null for a caller not on loopback. */
  partners: { partnerId: string; name: string; apiToken: string | null }[];
  /** true when the caller is not on loopback: partners' API tokens are then null. */
  remoteViewer: boolean;
};

/** Most reservations and delivery attempts one answer holds, and how many it holds unless asked. */
export const STATE_LIMITS = {
  reservations: { default: 500, max: 5000 },
  deliveries: { default: 1000, max: 1000 },
  /** Bytes of JSON the reservations and deliveries of one answer take together (1 MiB; at most 16 MiB). */
  bytes: { default: 1024 * 1024, max: 16 * 1024 * 1024 },
} as const;

/** `?name=N` as a whole number within the limit, the default when absent, or a 400 naming it. */
function limitParameter(call: ControlCall, name: keyof typeof STATE_LIMITS): number | Response {
  const given = call.url.searchParams.get(name);
  const { default: fallback, max } = STATE_LIMITS[name];
  if (given === null) return fallback;
  if (!/^\d{1,8}$/.test(given) || Number(given) > max)
    return json(400, { detail: 'Invalid input.', [name]: [`Expected an integer from 0 to ${max}.`] });
  return Number(given);
}

/**
 * The tag is the world's version (bumped by every change) with what shapes this answer, and the
 * running clock's offset from real time in whole seconds (its ticking alone changes nothing), so
 * a 304 costs one comparison however large the world.
 */
function tagOf(call: ControlCall, reservations: number, deliveries: number, bytes: number): string {
  const clock = call.backend.clock;
  const clockPart = clock.frozen ? String(clock.now()) : `r${Math.round((clock.now() - Date.now()) / 1000)}`;
  return `"${call.backend.version}-${clockPart}-${reservations}-${deliveries}-${bytes}-${call.remoteViewer ? 'r' : 'l'}"`;
}

/**
 * `GET /_fake/state[?reservations=N&deliveries=N]`: with `If-None-Match` naming the current
 * `ETag`, a 304 and no body, so polling once a second costs next to nothing while nothing changes.
 */
export function liveState(call: ControlCall): Response {
  const reservations = limitParameter(call, 'reservations');
  if (reservations instanceof Response) return reservations;
  const deliveries = limitParameter(call, 'deliveries');
  if (deliveries instanceof Response) return deliveries;
  const bytes = limitParameter(call, 'bytes');
  if (bytes instanceof Response) return bytes;
  const tag = tagOf(call, reservations, deliveries, bytes);
  const headers = { etag: tag, 'cache-control': 'no-cache' };
  if (call.request.headers.get('if-none-match') === tag) return empty(304, headers);
  // Tokens are withheld from remote viewers by the control API as a whole (routes.ts).
  const view: LiveState = {
    ...stateView(call.backend, { reservations, deliveries, bytes }),
    remoteViewer: call.remoteViewer,
  };
  return json(200, view, headers);
}

/** `DELETE /_fake/faults/:faultId`: one pending fault, by the `id` `GET /_fake/faults` shows. */
export function removeFault(call: ControlCall): Response {
  const id = /^\d{1,15}$/.test(call.params.faultId ?? '') ? Number(call.params.faultId) : 0;
  if (!call.backend.faults.remove(id))
    throw notFound(`No pending fault ${call.params.faultId} (it may have hit already).`);
  return empty(204);
}
