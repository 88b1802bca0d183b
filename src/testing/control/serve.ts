/**
 * Serving the control face: matching a `/_fake/` path to its row of the route table (`routes.ts`),
 * reading its body (snake_case keys accepted, unknown keys refused) and withholding partners'
 * tokens from a viewer not on loopback. Apart from the table, so the table reads as one list.
 * @module
 */
import { FakeError, invalid, notFound } from '../backend/fake-error.js';
import { isPlainObject } from '../backend/validation.js';
import { json, JsonResponse, nearestRoute, readJsonBody, refusal } from '../http.js';
import type { ControlCall } from './call.js';
import { ROUTE_HANDLERS } from './routes.js';

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
