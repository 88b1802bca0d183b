/**
 * The control face: every `/_fake/` route in one table (method, path, body, what it does, and the
 * backend call), from which `GET /_fake/` and the README's table are generated, and one matcher.
 * Like moto's own `moto_api`, it is a service over the same backend as the partner API.
 * @module
 */
import { createBodyFields } from '../../resources/reservation-fields.js';
import { MAX_NAMED_SNAPSHOTS } from '../backend/backend.js';
import { DIALECT_VALUES } from '../backend/dialects.js';
import { FakeError, invalid, notFound } from '../backend/fake-error.js';
import { parseFault } from '../backend/faults.js';
import { addPartner, link } from '../backend/partners.js';
import { bookFromOtherChannel } from '../backend/reservations.js';
import { addRestaurant } from '../backend/restaurants.js';
import { isPlainObject, requireObject } from '../backend/validation.js';
import { empty, json, JsonResponse, nearestRoute, readJsonBody, refusal } from '../http.js';
import type { ControlCall } from './call.js';
import type { ControlRoute, ControlRouteHandler } from './route.js';
import { deliveryChanges, MAX_DELIVERY_WAIT_MS } from './delivery-changes.js';
import { RESERVATION_PAGE, reservationPage } from './reservation-pages.js';
import { liveState, removeFault } from './live-state.js';
import { id, RESTAURANT_ACTION_ROUTES } from './restaurant-actions.js';

export type { ControlRoute, ControlRouteHandler } from './route.js';

const ok = (body: unknown) => json(200, body);
const created = (body: unknown) => json(201, body);

function clockView(call: ControlCall) {
  return { now: new Date(call.backend.clock.now()).toISOString(), frozen: call.backend.clock.frozen };
}

function needsSandboxHost(call: ControlCall) {
  if (!call.sandboxes)
    throw notFound("Sandboxes are created on the standalone server's own control API, not inside a sandbox.");
  return call.sandboxes;
}

/** Every control route with its handler. `GET /_fake/` lists them; the README's table is checked against them. */
const ROUTE_HANDLERS: readonly ControlRouteHandler[] = [
  {
    method: 'GET',
    path: '/_fake/',
    does: 'lists these routes',
    run: () =>
      ok({
        routes: ROUTE_HANDLERS.map(describeRoute),
        table: ROUTE_HANDLERS.map(({ method, path, body, does }) => ({
          method,
          path,
          body: body ?? null,
          does,
        })),
      }),
  },
  {
    method: 'GET',
    path: '/_fake/state',
    body: '?reservations=N&deliveries=N&bytes=N',
    does: 'everything at once: clock, rate limit, dialect, partners, restaurants, the latest reservations of every channel (500 unless `?reservations=N`, at most 5000; `reservationsTotal` counts them all), webhooks, faults, the latest deliveries (1000 unless `?deliveries=N`), the two lists within 1 MiB of JSON together unless `?bytes=N` (at most 16 MiB; `leftOutForSize` counts what the size left out); `ETag`, and 304 to `If-None-Match` while nothing changed (a version counter, so a 304 costs nothing however large the world); API tokens withheld from callers not on loopback',
    run: liveState,
  },
  {
    method: 'POST',
    path: '/_fake/partners',
    body: '{name?, partnerId?, apiToken?, description?, website_url?}',
    does: 'adds a partner, answers its credentials',
    run: (call) => created(addPartner(call.backend, call.body ?? {})),
  },
  {
    method: 'GET',
    path: '/_fake/restaurants',
    does: 'every restaurant with its configuration and linked partners',
    run: (call) => ok(call.backend.restaurants()),
  },
  {
    method: 'POST',
    path: '/_fake/restaurants',
    body: '{display_name?, schema_name?, timezone?, confirmation_mode?, availability?, partnerIds?, address?, website?, latitude?, longitude?}',
    does: 'adds a restaurant (`availability`: `{openingPeriods: [{days, start, end}], slotIntervalMinutes, durations: [{maxPartySize, duration}], capacityCovers, horizonDays, minimumLeadTimeMinutes}`)',
    run: (call) => created(addRestaurant(call.backend, call.body ?? {})),
  },
  {
    method: 'POST',
    path: '/_fake/links',
    body: '{partnerId, restaurantId}',
    does: 'makes a restaurant accessible to a partner',
    run: (call) => created(link(call.backend, call.body)),
  },
  {
    method: 'GET',
    path: '/_fake/restaurants/:restaurantId/reservations',
    body: '?offset=N&limit=N',
    does: `every reservation of the restaurant, every channel, with \`channel\` and \`partnerId\`, by start time, in pages: a JSON array of at most \`limit\` (${RESERVATION_PAGE.defaultLimit} unless given, at most ${RESERVATION_PAGE.maxLimit}) and ${RESERVATION_PAGE.maxBytes / (1024 * 1024)} MiB, \`Link: <...>; rel="next"\` while more follow, \`X-Total-Count\``,
    run: (call) => {
      const restaurantId = id(call.params.restaurantId);
      if (!call.backend.state.restaurants.has(restaurantId)) throw notFound(`No restaurant ${restaurantId}.`);
      return reservationPage(call, call.backend, restaurantId);
    },
  },
  {
    method: 'POST',
    path: '/_fake/restaurants/:restaurantId/reservations',
    body: `{${[...createBodyFields(), 'channel?'].join(', ')}}`,
    does: 'a booking from another channel (takes capacity, invisible to partners, no event)',
    run: (call) =>
      created(call.backend.view(bookFromOtherChannel(call.backend, id(call.params.restaurantId), call.body))),
  },
  ...RESTAURANT_ACTION_ROUTES,
  { method: 'GET', path: '/_fake/clock', does: "the fake's time", run: (call) => ok(clockView(call)) },
  {
    method: 'POST',
    path: '/_fake/clock/advance',
    body: '{duration: "PT1H"} or {milliseconds}',
    does: 'moves the clock forward, running delivery retries and delayed commits that fall due',
    run: (call) =>
      clockMove(call, 'duration', (input) => {
        if (typeof input.duration !== 'string' && typeof input.milliseconds !== 'number')
          throw invalid({ duration: ['Expected an ISO 8601 duration such as PT1H (or milliseconds).'] });
        return call.backend.clock.advance(
          (input.duration as string | undefined) ?? (input.milliseconds as number),
        );
      }),
  },
  {
    method: 'POST',
    path: '/_fake/clock/set',
    body: '{now}',
    does: 'sets the clock (never backwards)',
    run: (call) =>
      clockMove(call, 'now', (input) => {
        if (typeof input.now !== 'string') throw invalid({ now: ['Expected an ISO 8601 date-time.'] });
        return call.backend.clock.set(input.now);
      }),
  },
  {
    method: 'POST',
    path: '/_fake/clock/freeze',
    body: '{frozen?: boolean}',
    does: 'stops the clock where it is (`frozen`, default true: time then moves only by `advance` and `set`, so a seeded run replays the same), or lets it follow real time again (`false`)',
    run: (call) => {
      const frozen = requireObject(call.body, true).frozen ?? true;
      if (typeof frozen !== 'boolean') throw invalid({ frozen: ['Expected true or false.'] });
      call.backend.clock.setFrozen(frozen);
      call.backend.touch();
      return ok(clockView(call));
    },
  },
  {
    method: 'GET',
    path: '/_fake/deliveries',
    does: 'the delivery log, oldest first',
    run: (call) => ok(structuredClone(call.backend.state.deliveries)),
  },
  {
    method: 'POST',
    path: '/_fake/deliveries/flush',
    does: 'attempts every delivery that is due, then answers the log',
    run: async (call) => {
      await call.backend.clock.runDue();
      return ok(structuredClone(call.backend.state.deliveries));
    },
  },
  {
    method: 'POST',
    path: '/_fake/deliveries/:eventId/resend',
    does: "sends a logged delivery again now (same event id, the webhook's current token), outside chaos, once; answers the attempt",
    run: async (call) => {
      const entry = await call.backend.deliveries.resend(call.params.eventId!);
      if (!entry)
        throw notFound(
          `No delivery ${JSON.stringify(call.params.eventId)} to resend: not in the delivery log (the latest 1000 attempts), or its webhook was deleted or paused.`,
        );
      return created(entry);
    },
  },
  {
    method: 'GET',
    path: '/_fake/deliveries/changes',
    body: '?after=MARK&event=E&waitMs=MS',
    does: `the attempts logged after \`after\` (the \`mark\` of an earlier answer; every attempt kept without it), of \`event\` when given, as \`{mark, deliveries}\`; with \`waitMs\` (at most ${MAX_DELIVERY_WAIT_MS}) and nothing new yet, it answers as soon as one is logged`,
    run: deliveryChanges,
  },
  {
    method: 'GET',
    path: '/_fake/delivery-chaos',
    does: 'the delivery chaos in force (its seed included), or null',
    run: (call) => ok(call.backend.deliveries.chaos),
  },
  {
    method: 'PUT',
    path: '/_fake/delivery-chaos',
    body: '{dropRate?, duplicateRate?, reorder?, maxDelayMs?, seed?}',
    does: "makes every delivery unreliable, seeded: dropped for good (`dropRate`, 0 to 1), sent twice with the same id (`duplicateRate`), delayed up to `maxDelayMs` on the fake's clock, overtaking each other with `reorder`; answers the settings",
    run: (call) => ok(call.backend.deliveries.setChaos(call.body ?? {})),
  },
  {
    method: 'DELETE',
    path: '/_fake/delivery-chaos',
    does: 'turns delivery chaos off',
    run: (call) => (call.backend.deliveries.setChaos(null), empty(204)),
  },
  {
    method: 'GET',
    path: '/_fake/faults',
    does: 'faults still waiting to hit',
    run: (call) => ok(call.backend.faults.pending),
  },
  {
    method: 'POST',
    path: '/_fake/faults',
    body: '{operation?, status?, latencyMs?, networkError?, times?, phase?, commitDelayMs?, bodyStallMs?, headers?, body?}',
    does: 'injects a fault; answers it with its `id`',
    run: (call) => {
      return created(call.backend.injectFault(parseFault(call.body)));
    },
  },
  {
    method: 'DELETE',
    path: '/_fake/faults',
    does: 'removes every pending fault',
    run: (call) => (call.backend.faults.clear(), empty(204)),
  },
  {
    method: 'DELETE',
    path: '/_fake/faults/:faultId',
    does: 'removes one pending fault (by the `id` `GET /_fake/faults` shows)',
    run: removeFault,
  },
  {
    method: 'GET',
    path: '/_fake/rate-limit',
    does: 'the rate limit in force',
    run: (call) => ok({ requestsPerSecond: call.backend.rateLimit }),
  },
  {
    method: 'POST',
    path: '/_fake/rate-limit',
    body: '{requestsPerSecond: number | false}',
    does: 'changes the rate limit until the next reset (`false` for none)',
    run: (call) => {
      const value = requireObject(call.body).requestsPerSecond;
      if (value !== false && (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)))
        throw invalid({ requestsPerSecond: ['Expected a positive number, or false for no limit.'] });
      call.backend.setRateLimit(value);
      return ok({ requestsPerSecond: call.backend.rateLimit });
    },
  },
  {
    method: 'GET',
    path: '/_fake/dialect',
    does: 'the dialect in force (answers where the spec is silent)',
    run: (call) => ok(call.backend.dialect),
  },
  {
    method: 'POST',
    path: '/_fake/dialect',
    body: `{${Object.keys(DIALECT_VALUES)
      .map((key) => `${key}?`)
      .join(', ')}}`,
    does: 'changes dialect keys until the next reset; answers the dialect in force',
    run: (call) => {
      try {
        call.backend.setDialect(requireObject(call.body));
      } catch (error) {
        if (error instanceof RangeError) throw invalid({ dialect: [error.message] });
        throw error;
      }
      return ok(call.backend.dialect);
    },
  },
  {
    method: 'POST',
    path: '/_fake/snapshots',
    body: '{name}',
    does: `keeps a named copy of the state (at most ${MAX_NAMED_SNAPSHOTS}; reset drops them)`,
    run: (call) => {
      const input = requireObject(call.body);
      if (typeof input.name !== 'string' || input.name === '' || input.name.length > 100)
        throw invalid({ name: ['Expected a name of 1 to 100 characters.'] });
      call.backend.saveNamedSnapshot(input.name);
      return created({ name: input.name });
    },
  },
  {
    method: 'POST',
    path: '/_fake/snapshots/:name/restore',
    does: 'puts a named snapshot back',
    run: (call) => {
      const name = call.params.name!;
      const snapshot = call.backend.namedSnapshots.get(name);
      if (!snapshot) throw notFound(`No snapshot named ${JSON.stringify(name)}.`);
      call.backend.restore(snapshot);
      return ok({ name });
    },
  },
  {
    method: 'POST',
    path: '/_fake/reset',
    does: 'back to the seeded state: data, deliveries, faults, named snapshots, journal, the starting rate limit and dialect (the clock stays)',
    run: (call) => {
      call.backend.reset();
      return ok({ partners: call.backend.partners(), restaurants: call.backend.restaurants() });
    },
  },
  {
    method: 'GET',
    path: '/_fake/requests',
    does: 'the request journal, oldest first: method, path, status, operation, partner id; no credentials; GETs of the control API itself left out',
    run: (call) => ok(call.backend.journal.entries),
  },
  {
    method: 'POST',
    path: '/_fake/sandboxes',
    body: '{seed?, rateLimit?, dialect?}',
    does: 'creates an isolated world (seeded like the server unless `seed` says otherwise); answers `{id, url, controlUrl, partners, restaurants}`',
    run: (call) => created(needsSandboxHost(call).create(call.body ?? {}, call.url.origin)),
  },
  {
    method: 'GET',
    path: '/_fake/sandboxes',
    does: 'the sandboxes alive',
    run: (call) => ok(needsSandboxHost(call).list(call.url.origin)),
  },
  {
    method: 'DELETE',
    path: '/_fake/sandboxes/:sandboxId',
    does: 'ends a sandbox',
    run: (call) => {
      if (!needsSandboxHost(call).remove(call.params.sandboxId!))
        throw notFound(`No sandbox ${JSON.stringify(call.params.sandboxId)}.`);
      return empty(204);
    },
  },
];

/** Every control route as partners may read it (the same rows, without the calls behind them). */
export const CONTROL_ROUTES: readonly ControlRoute[] = ROUTE_HANDLERS;

/** Moves the clock as the body asks; a move the clock refuses is a 400 on `field`. Answers the new time. */
async function clockMove(
  call: ControlCall,
  field: string,
  move: (input: Record<string, unknown>) => Promise<void>,
): Promise<Response> {
  try {
    await move(requireObject(call.body));
  } catch (error) {
    if (error instanceof RangeError) throw invalid({ [field]: [error.message] });
    throw error;
  }
  return ok(clockView(call));
}

/** `POST /_fake/faults {operation?, ...}`: a route as one line. */
export function describeRoute(route: ControlRoute): string {
  return `${route.method} ${route.path}${route.body ? ` ${route.body}` : ''}`;
}

/**
 * Control input keys are camelCase; the snake_case spelling a suite in Python or Ruby reaches for
 * first is accepted too.
 */
const KEY_ALIASES: Record<string, string> = {
  partner_id: 'partnerId',
  restaurant_id: 'restaurantId',
  api_token: 'apiToken',
  partner_ids: 'partnerIds',
  latency_ms: 'latencyMs',
  body_stall_ms: 'bodyStallMs',
  network_error: 'networkError',
  commit_delay_ms: 'commitDelayMs',
  opening_periods: 'openingPeriods',
  slot_interval_minutes: 'slotIntervalMinutes',
  capacity_covers: 'capacityCovers',
  horizon_days: 'horizonDays',
  minimum_lead_time_minutes: 'minimumLeadTimeMinutes',
  max_party_size: 'maxPartySize',
  rate_limit: 'rateLimit',
  requests_per_second: 'requestsPerSecond',
  drop_rate: 'dropRate',
  duplicate_rate: 'duplicateRate',
  max_delay_ms: 'maxDelayMs',
};

function normaliseControlKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normaliseControlKeys);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [KEY_ALIASES[key] ?? key, normaliseControlKeys(inner)]),
  );
}

/** A template as a pattern with named groups (a trailing slash optional). */
function pattern(path: string): RegExp {
  const body = path
    .replace(/\/$/, '')
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/:([A-Za-z]+)/g, '(?<$1>[^/]+)');
  return new RegExp(`^${body}/?$`);
}

/**
 * The top-level keys a route's body takes, read from its documented shape (`{a?, b: ...} or {c}`),
 * so the table partners read and the keys the fake accepts cannot drift apart.
 */
function bodyKeys(body: string | undefined): ReadonlySet<string> {
  if (!body?.startsWith('{')) return new Set();
  return new Set([...body.matchAll(/[{,]\s*([A-Za-z_]+)\??(?=[,:}])/g)].map((match) => match[1]!));
}

/**
 * A misspelt key (`{"operaton": ...}`) would otherwise be ignored and the call would do something
 * else than meant (a fault on every operation, an empty sandbox): a 400 naming it instead.
 */
function refuseUnknownKeys(body: unknown, keys: ReadonlySet<string>): void {
  if (!isPlainObject(body)) return;
  const unknown = Object.keys(body).filter((key) => !keys.has(key));
  if (unknown.length === 0) return;
  const accepted =
    keys.size === 0 ? 'This route takes no body keys.' : `This route takes ${[...keys].join(', ')}.`;
  const fields = Object.fromEntries(unknown.map((key) => [key, [`Unknown key. ${accepted}`]]));
  throw invalid(
    fields,
    `Unknown key${unknown.length > 1 ? 's' : ''} ${unknown.map((key) => JSON.stringify(key)).join(', ')}. ${accepted}`,
  );
}

/**
 * An answer for a caller not on loopback (the server runs with remote control allowed): every
 * partner's `apiToken` is null, whichever route answers (state, reset, sandboxes, partners), so a
 * viewer on another machine never learns a credential it did not itself choose. A token the
 * caller sent in this very body (`POST /_fake/partners {apiToken}`) is shown back.
 */
function withoutTokens(response: Response, body: unknown): Response {
  if (!(response instanceof JsonResponse) || !response.serialized.includes('"apiToken"')) return response;
  const own = isPlainObject(body) && typeof body.apiToken === 'string' ? body.apiToken : undefined;
  const redacted: unknown = JSON.parse(response.serialized, (key, value: unknown) =>
    key === 'apiToken' && typeof value === 'string' && value !== own ? null : value,
  );
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  return new JsonResponse(response.status, JSON.stringify(redacted), headers);
}

const COMPILED = ROUTE_HANDLERS.map((route) => ({
  route,
  pattern: pattern(route.path),
  keys: bodyKeys(route.body),
}));

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Serves `/_fake/...`; `path` starts with `/_fake`. JSON in, JSON out, no credentials. */
export async function handleControl(
  call: Omit<ControlCall, 'params' | 'body' | 'request'>,
  request: Request,
  path: string,
): Promise<Response> {
  const method = request.method.toUpperCase() === 'HEAD' ? 'GET' : request.method.toUpperCase();
  const matching = COMPILED.filter((candidate) => candidate.pattern.test(path));
  if (matching.length === 0) {
    const nearest = nearestRoute(
      path,
      ROUTE_HANDLERS.map((route) => route.path),
    );
    return json(404, {
      detail: `No control route ${method} ${path}. Nearest: ${nearest}. GET /_fake/ lists them.`,
    });
  }
  const found = matching.find((candidate) => candidate.route.method === method);
  if (!found)
    return json(
      405,
      { detail: `Method "${method}" not allowed.` },
      { allow: [...new Set(matching.map((candidate) => candidate.route.method))].join(', ') },
    );
  try {
    const params: Record<string, string> = {};
    for (const [name, raw] of Object.entries(found.pattern.exec(path)!.groups ?? {})) {
      const value = decode(raw);
      // A broken percent-escape names nothing that exists.
      if (value === undefined)
        throw notFound(
          `No such ${name}: the path segment ${JSON.stringify(raw)} has a broken percent-escape.`,
        );
      params[name] = value;
    }
    const body =
      method === 'GET' || method === 'DELETE' ? undefined : normaliseControlKeys(await readJsonBody(request));
    refuseUnknownKeys(body, found.keys);
    const response = await found.route.run({ ...call, params, body, request });
    return call.remoteViewer ? withoutTokens(response, body) : response;
  } catch (error) {
    if (error instanceof FakeError) return refusal(error);
    throw error;
  }
}
