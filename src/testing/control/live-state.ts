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
  /** How many delivery attempts the log holds; `deliveries` are the latest `?deliveries=N` of them. */
  deliveriesTotal: number;
};

const MAX_DELIVERIES = 1000;

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
function tagOf(view: LiveState): string {
  const { clock, ...rest } = view;
  const clockPart = clock.frozen ? clock.now : String(Math.round((Date.parse(clock.now) - Date.now()) / 1000));
  const text = JSON.stringify(rest);
  return `"${hashText(text)}${text.length.toString(36)}-${hashText(clockPart)}"`;
}

/**
 * `GET /_fake/state[?deliveries=N]`: with `If-None-Match` naming the current `ETag`, a 304 and no
 * body, so polling once a second costs next to nothing while nothing changes.
 */
export function liveState(call: ControlCall): Response {
  const given = call.url.searchParams.get('deliveries');
  if (given !== null && (!/^\d{1,7}$/.test(given) || Number(given) > MAX_DELIVERIES)) {
    return json(400, { detail: 'Invalid input.', deliveries: [`Expected an integer from 0 to ${MAX_DELIVERIES}.`] });
  }
  const full = stateView(call.backend);
  const view: LiveState = {
    ...full,
    partners: full.partners.map((partner) => ({ ...partner, apiToken: call.remoteViewer ? null : partner.apiToken })),
    deliveries: given === null ? full.deliveries : full.deliveries.slice(full.deliveries.length - Number(given)),
    deliveriesTotal: full.deliveries.length,
    remoteViewer: call.remoteViewer,
  };
  const tag = tagOf(view);
  const headers = { etag: tag, 'cache-control': 'no-cache' };
  if (call.request.headers.get('if-none-match') === tag) return empty(304, headers);
  return json(200, view, headers);
}

/** `DELETE /_fake/faults/:faultId`: one pending fault, by the `id` `GET /_fake/faults` shows. */
export function removeFault(call: ControlCall): Response {
  const id = /^\d{1,15}$/.test(call.params.faultId ?? '') ? Number(call.params.faultId) : 0;
  if (!call.backend.faults.remove(id)) throw notFound(`No pending fault ${call.params.faultId} (it may have hit already).`);
  return empty(204);
}
