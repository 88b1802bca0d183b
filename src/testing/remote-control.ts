/**
 * The remote fake's wire: one call to a fake's control API (a refusal becomes the same `FakeError`
 * the in-process fake throws), and the check at connect that a URL is a fake at all. Apart from
 * `remote-fake.ts`, which binds these calls to the in-process fake's methods.
 * @module
 */
import { FakeError, type FieldErrors } from './backend/fake-error.js';
import type { FakePartner } from './backend/partners.js';
import type { FakeRestaurant } from './backend/restaurants.js';
import type { SeedDescription } from './fake-options.js';

/** One control call: JSON in, JSON out; a refusal is the same `FakeError` the in-process fake throws. */
export async function control<Answer>(
  controlUrl: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  route: string,
  body?: unknown,
): Promise<Answer> {
  const response = await fetch(`${controlUrl}/${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (!response.ok) {
    const { detail, code, ...fields } = (
      typeof parsed === 'object' && parsed !== null ? parsed : {}
    ) as Record<string, unknown>;
    throw new FakeError(
      response.status,
      typeof detail === 'string' ? detail : `${method} ${controlUrl}/${route} answered ${response.status}`,
      {
        code: typeof code === 'string' ? code : undefined,
        fields: fields as FieldErrors,
      },
    );
  }
  return parsed as Answer;
}

export type ControlCaller = <Answer>(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  route: string,
  body?: unknown,
) => Promise<Answer>;

/** The seeded partners and restaurants of the world at `url`, read from its state (no reservations or deliveries). */
export async function describeWorld(url: string): Promise<SeedDescription> {
  const root = url.replace(/\/+$/, '');
  const route = 'state?reservations=0&deliveries=0';
  // Credentials in the URL (user:password@) never reach the message.
  const shown = root.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
  const notAFake = (what: string) =>
    new FakeError(
      502,
      `${shown} is not a restaurant-partner fake: GET ${shown}/_fake/state ${what}. Give the URL the fake printed when it started (or a sandbox's url).`,
      { code: 'not_a_fake' },
    );
  let state: unknown;
  try {
    state = await control<unknown>(`${root}/_fake`, 'GET', route);
  } catch (error) {
    // Named by its kind and code only (ECONNREFUSED): a fetch message may repeat the URL, credentials included.
    if (!(error instanceof FakeError)) {
      const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
      const code = typeof cause?.code === 'string' ? ` ${cause.code}` : '';
      throw notAFake(`failed (${error instanceof Error ? error.name : 'error'}${code})`);
    }
    // A fake's refusal (its guard's 403, a deleted sandbox's 404) says why in its own words; any
    // other server's error answer carries none, and the generic detail is left.
    if (error.detail !== `GET ${root}/_fake/${route} answered ${error.status}`) throw error;
    throw notAFake(`answered ${error.status}`);
  }
  // Checked at connect, so a server that is something else fails here, not at a later call.
  const world = state as { partners?: unknown; restaurants?: unknown; clock?: unknown } | null;
  if (
    typeof world !== 'object' ||
    world === null ||
    !Array.isArray(world.partners) ||
    !Array.isArray(world.restaurants) ||
    typeof world.clock !== 'object'
  )
    throw notAFake("answered something other than the fake's state");
  return { partners: world.partners as FakePartner[], restaurants: world.restaurants as FakeRestaurant[] };
}
