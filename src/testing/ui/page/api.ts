/**
 * The page's only way to the fake: the control API under `/_fake/`, same origin. Every action
 * here is a documented control route, so a script can do the same with curl.
 * @module
 */
import type { LiveState } from '../../control/live-state.js';

/** The control API's root, wherever the server mounted the page (`.../_fake/ui` -> `.../_fake/`). */
export const controlRoot = new URL(location.pathname.replace(/\/_fake\/ui\/?$/, '/_fake/'), location.href);

/** A refusal of the control API, with the fake's own words (detail and field messages). */
export class ControlError extends Error {
  override name = 'ControlError';
}

function describe(status: number, body: unknown): string {
  if (typeof body !== 'object' || body === null) return `The fake answered ${status}.`;
  const { detail, code: _code, ...fields } = body as Record<string, unknown>;
  const parts = Object.entries(fields).map(
    ([name, messages]) => `${name}: ${Array.isArray(messages) ? messages.join(' ') : String(messages)}`,
  );
  return [typeof detail === 'string' ? detail : `The fake answered ${status}.`, ...parts].join(' ');
}

/** Calls a control route; resolves with the parsed answer, or rejects with a {@link ControlError}. */
export async function control(
  method: 'GET' | 'POST' | 'DELETE',
  route: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(new URL(route, controlRoot), {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
    cache: 'no-store',
  });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (!response.ok) throw new ControlError(describe(response.status, parsed));
  return parsed;
}

let tag: string | null = null;

/** The latest deliveries the page shows. */
const DELIVERIES_SHOWN = 100;

/** The whole picture (`GET /_fake/state`), or `undefined` when nothing changed since the last call (304). */
export async function fetchState(): Promise<LiveState | undefined> {
  const response = await fetch(new URL(`state?deliveries=${DELIVERIES_SHOWN}`, controlRoot), {
    cache: 'no-store',
    headers: tag ? { 'if-none-match': tag } : {},
  });
  if (response.status === 304) return undefined;
  if (!response.ok)
    throw new ControlError(describe(response.status, await response.json().catch(() => null)));
  tag = response.headers.get('etag');
  return (await response.json()) as LiveState;
}

const reservationRoute = (restaurantId: number, reservationId: number, action: string) =>
  `restaurants/${restaurantId}/reservations/${reservationId}/${action}`;

export const actions = {
  advanceClock: (duration: string) => control('POST', 'clock/advance', { duration }),
  confirm: (restaurantId: number, reservationId: number) =>
    control('POST', reservationRoute(restaurantId, reservationId, 'confirm')),
  cancel: (restaurantId: number, reservationId: number, by: 'restaurant' | 'customer') =>
    control('POST', reservationRoute(restaurantId, reservationId, 'cancel'), { by }),
  modify: (
    restaurantId: number,
    reservationId: number,
    by: 'restaurant' | 'customer',
    changes: Record<string, unknown>,
  ) => control('POST', reservationRoute(restaurantId, reservationId, 'modify'), { by, ...changes }),
  bookFromOtherChannel: (restaurantId: number, booking: Record<string, unknown>) =>
    control('POST', `restaurants/${restaurantId}/reservations`, booking),
  addFault: (fault: Record<string, unknown>) => control('POST', 'faults', fault),
  removeFault: (id: number) => control('DELETE', `faults/${id}`),
  setRateLimit: (requestsPerSecond: number | false) => control('POST', 'rate-limit', { requestsPerSecond }),
};
