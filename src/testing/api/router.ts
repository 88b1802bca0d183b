/**
 * The partner API face: a route table (like moto's `urls.py`), then for each request
 * authentication, the rate limit, injected faults, and the operation (parse -> backend ->
 * serialise, in the file of its resource).
 * @module
 */
import type { FakeBackend } from '../backend/backend.js';
import { FakeError } from '../backend/fake-error.js';
import { realDelay, type ActiveFault, type OperationName } from '../backend/faults.js';
import type { PartnerRecord } from '../backend/state.js';
import type { BasicCredentials } from '../backend/answer-memos.js';
import { empty, errorResponse, json, nearestRoute, readJsonBody, refusal } from '../http.js';
import type { ApiCall, ApiOperation } from './call.js';
import { inDialect } from './dialect-answers.js';
import { retrieveProfile, updateProfile } from './profile.js';
import {
  createReservation,
  listReservations,
  patchOperation,
  patchReservation,
  retrieveReservation,
} from './reservations.js';
import { listRestaurants } from './restaurants.js';
import {
  createWebhook,
  deleteWebhook,
  listWebhooks,
  regenerateWebhookToken,
  retrieveWebhook,
  testWebhook,
  updateWebhook,
} from './webhooks.js';

export const API_ROOT = '/api/v1/partnership';

/** The longest `Retry-After` the fake sends (a day), whatever the rate limit. */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

/** One row of the table: a method on a path template under `/api/v1/partnership`. */
interface ApiRoute {
  method: string;
  path: string;
  /** The operation name faults match (a PATCH on a reservation is named by what it does). */
  operation: OperationName | 'reservations.patch';
  run: ApiOperation;
}

export const API_ROUTES: readonly ApiRoute[] = [
  { method: 'GET', path: '/profile/', operation: 'profile.retrieve', run: retrieveProfile },
  { method: 'PATCH', path: '/profile/', operation: 'profile.update', run: updateProfile },
  // Spec: GET /profile/ "(also reached without the trailing slash)".
  { method: 'GET', path: '/profile', operation: 'profile.retrieve', run: retrieveProfile },
  { method: 'PATCH', path: '/profile', operation: 'profile.update', run: updateProfile },
  { method: 'GET', path: '/restaurants/', operation: 'restaurants.list', run: listRestaurants },
  {
    method: 'GET',
    path: '/restaurants/:restaurantId/reservations/',
    operation: 'reservations.list',
    run: listReservations,
  },
  {
    method: 'POST',
    path: '/restaurants/:restaurantId/reservations/',
    operation: 'reservations.create',
    run: createReservation,
  },
  {
    method: 'GET',
    path: '/restaurants/:restaurantId/reservations/:reservationId/',
    operation: 'reservations.retrieve',
    run: retrieveReservation,
  },
  {
    method: 'PATCH',
    path: '/restaurants/:restaurantId/reservations/:reservationId/',
    operation: 'reservations.patch',
    run: patchReservation,
  },
  { method: 'GET', path: '/webhooks/', operation: 'webhooks.list', run: listWebhooks },
  { method: 'POST', path: '/webhooks/', operation: 'webhooks.create', run: createWebhook },
  { method: 'GET', path: '/webhooks/:webhookId/', operation: 'webhooks.retrieve', run: retrieveWebhook },
  { method: 'PATCH', path: '/webhooks/:webhookId/', operation: 'webhooks.update', run: updateWebhook },
  { method: 'DELETE', path: '/webhooks/:webhookId/', operation: 'webhooks.delete', run: deleteWebhook },
  {
    method: 'POST',
    path: '/webhooks/:webhookId/auth-token/',
    operation: 'webhooks.regenerateToken',
    run: regenerateWebhookToken,
  },
  { method: 'POST', path: '/webhooks/:webhookId/test/', operation: 'webhooks.test', run: testWebhook },
];

/** A path template as a pattern with named groups. */
export function templatePattern(path: string): RegExp {
  return new RegExp(
    `^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:([A-Za-z]+)/g, '(?<$1>[^/]+)')}$`,
  );
}

const COMPILED = API_ROUTES.map((route) => ({ ...route, pattern: templatePattern(route.path) }));

function decodeBasic(header: string): BasicCredentials | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match) return undefined;
  let decoded: string;
  try {
    decoded = new TextDecoder().decode(
      Uint8Array.from(atob(match[1]!), (character) => character.charCodeAt(0)),
    );
  } catch {
    return undefined;
  }
  const separator = decoded.indexOf(':');
  if (separator < 0) return undefined;
  return { username: decoded.slice(0, separator), password: decoded.slice(separator + 1) };
}

function sameSecret(given: string, expected: string): boolean {
  // Length-independent comparison, so the fake never teaches a timing side channel by example.
  let difference = given.length ^ expected.length;
  for (let index = 0; index < expected.length; index += 1)
    difference |= expected.charCodeAt(index) ^ given.charCodeAt(index % Math.max(1, given.length));
  return difference === 0;
}

/** What the journal records of a partner API request besides its status. */
export interface ApiOutcome {
  response: Response;
  operation: string | null;
  partnerId: string | null;
}

/** Applies a fault: waits, then answers its status or drops the connection; undefined lets the request through. */
async function applyFault(
  fault: ActiveFault,
  request: Request,
  backend: FakeBackend,
): Promise<Response | undefined> {
  await realDelay(fault.latencyMs, request.signal, backend.signal);
  if (fault.networkError) return Response.error();
  if (fault.status === undefined) return undefined;
  // Statuses whose answers carry no body (fetch refuses one).
  if (fault.status === 204 || fault.status === 205 || fault.status === 304)
    return empty(fault.status, fault.headers);
  const answer = json(
    fault.status,
    fault.body === undefined ? { detail: 'Injected fault.' } : fault.body,
    fault.headers,
  );
  return fault.bodyStallMs === undefined
    ? answer
    : stalledBody(answer, fault.bodyStallMs, request.signal, backend.signal);
}

/** The answer with its headers now and its body only after `ms` of real time (or never, once the caller or the world is gone). */
function stalledBody(answer: Response, ms: number, ...signals: AbortSignal[]): Response {
  const text = (answer as { serialized?: string }).serialized ?? '';
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await realDelay(ms, ...signals);
      if (signals.some((signal) => signal.aborted))
        return controller.error(new Error('the caller left while the body stalled'));
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });
  return new Response(body, { status: answer.status, headers: answer.headers });
}

/** Runs an operation; a refusal thrown inside it becomes its answer. */
async function runOperation(backend: FakeBackend, run: ApiOperation, call: ApiCall): Promise<Response> {
  try {
    // A read causes no event: nothing to deliver before it answers.
    if (call.request.method === 'GET') return await run(call);
    return await backend.withDeliveries(() => run(call));
  } catch (error) {
    if (error instanceof FakeError) return refusal(error);
    throw error;
  }
}

/**
 * Serves one partner API request; `rest` is the path after `/api/v1/partnership`. `onFakeClock`
 * says the caller sleeps on the fake's clock (`clientOptions`), for the rate limit.
 */
export async function handleApi(
  backend: FakeBackend,
  request: Request,
  url: URL,
  rest: string,
  onFakeClock: boolean,
): Promise<ApiOutcome> {
  const method = request.method.toUpperCase();
  // A path no route serves is a 404 before authentication, as a Django service resolves URLs first.
  const matching = COMPILED.filter((route) => route.pattern.test(rest));
  if (matching.length === 0) {
    const nearest = nearestRoute(
      rest,
      API_ROUTES.map((route) => route.path),
    );
    const hint = rest.endsWith('/') ? '' : ' Paths end with a slash, as in the spec.';
    return {
      response: inDialect(
        backend.dialect,
        errorResponse(
          404,
          `Not found: no partner API route ${method} ${API_ROOT}${rest}.${hint} Nearest: ${API_ROOT}${nearest}.`,
        ),
        backend.clock.now(),
      ),
      operation: null,
      partnerId: null,
    };
  }
  // Spec, Authentication 3: "When a request has no valid credentials, then the response is
  // 401 Unauthorized." Authentication comes before rate limiting.
  const credentials = backend.answers.authorization(request.headers.get('authorization'), decodeBasic);
  const partner: PartnerRecord | undefined =
    credentials && backend.state.partners.get(credentials.username.toLowerCase());
  if (!credentials || !partner || !sameSecret(credentials.password, partner.apiToken)) {
    const detail = credentials
      ? 'Invalid username/password.'
      : 'Authentication credentials were not provided.';
    return {
      response: inDialect(
        backend.dialect,
        errorResponse(401, detail, {}, { 'www-authenticate': 'Basic realm="api"' }),
        backend.clock.now(),
      ),
      operation: null,
      partnerId: null,
    };
  }
  // The service's own answers speak the dialect; an injected fault's answer stays as given.
  const faulted = (response: Response, operation: string | null): ApiOutcome => ({
    response,
    operation,
    partnerId: partner.partnerId,
  });
  const outcome = (response: Response, operation: string | null = null): ApiOutcome =>
    faulted(inDialect(backend.dialect, response, backend.clock.now()), operation);
  // Spec, Limits: "1 request per second per partner ... beyond it the response is 429."
  const admission = backend.admit(partner.partnerId, onFakeClock);
  if (!admission.allowed) {
    // A tiny rate limit (1e-300 per second) must not make `Retry-After: 1e+300`: a whole number,
    // capped at a day, after which the client asks again.
    const seconds = Math.min(admission.retryAfterSeconds, MAX_RETRY_AFTER_SECONDS);
    return outcome(
      errorResponse(
        429,
        `Request was throttled. Expected available in ${seconds} second${seconds === 1 ? '' : 's'}.`,
        {},
        { 'retry-after': String(seconds) },
      ),
    );
  }
  const route = matching.find((candidate) => candidate.method === method);
  if (!route)
    return outcome(
      errorResponse(
        405,
        `Method "${method}" not allowed.`,
        {},
        { allow: matching.map((candidate) => candidate.method).join(', ') },
      ),
    );
  const params: ApiCall['params'] = {};
  for (const [name, raw] of Object.entries(route.pattern.exec(rest)!.groups ?? {})) {
    if (!/^\d{1,15}$/.test(raw) || Number(raw) === 0)
      return outcome(errorResponse(404, 'Not found.'), route.operation);
    params[name as keyof ApiCall['params']] = Number(raw);
  }
  let body: unknown;
  try {
    body = method === 'GET' || method === 'DELETE' ? undefined : await readJsonBody(request);
  } catch (error) {
    if (error instanceof FakeError) return outcome(refusal(error), route.operation);
    throw error;
  }
  const operation = route.operation === 'reservations.patch' ? patchOperation(url, body) : route.operation;
  const before = backend.faults.take(operation, 'before');
  // A fault that hits counts down (or leaves) the pending list a viewer sees.
  if (before) backend.touch();
  if (before) {
    const answer = await applyFault(before, request, backend);
    if (answer) return faulted(answer, operation);
  }
  const call: ApiCall = { backend, partner, params, url, request, body };
  const after = backend.faults.take(operation, 'after');
  if (after) backend.touch();
  if (after?.commitDelayMs !== undefined) {
    // The gateway answers now; the origin commits later, on the fake's clock.
    backend.delayedCommits.schedule(backend.clock.now() + after.commitDelayMs, async () => {
      const late = await runOperation(backend, route.run, call).catch((error: unknown) => {
        backend.errorLog(
          `fake: internal error in the delayed commit of ${operation}: ${error instanceof Error ? error.stack : String(error)}`,
        );
        return undefined;
      });
      if (late)
        backend.log(
          `${operation} committed ${after.commitDelayMs} ms after its injected fault -> ${late.status}`,
        );
    });
    backend.clock.rearm();
    return faulted((await applyFault(after, request, backend))!, operation);
  }
  const response = await runOperation(backend, route.run, call);
  if (after) {
    const answer = await applyFault(after, request, backend);
    if (answer) return faulted(answer, operation);
  }
  return outcome(response, operation);
}
