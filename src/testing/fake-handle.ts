/**
 * How the fake serves one request (`FakeService.handle`): which face a path reaches (partner API,
 * control API, or neither), which world answers it (the fake's own or a sandbox's), and the
 * journal line and log line every request leaves. Apart from the class, whose other methods are
 * the JavaScript control calls, because this is the one path every adapter's request takes.
 * @module
 */
import { API_ROOT, handleApi } from './api/router.js';
import type { FakeBackend } from './backend/backend.js';
import { FakeError } from './backend/fake-error.js';
import { redactedPath, type JournalEntry } from './backend/journal.js';
import { CONTROL_ROUTES } from './control/routes.js';
import { handleControl } from './control/serve.js';
import { errorResponse, nearestRoute } from './http.js';
import { SANDBOX_PREFIX, type Sandboxes } from './sandboxes.js';

/** Per-request facts an adapter knows and the fake cannot (the caller's address, its headers' origin, its clock). */
export interface HandleContext {
  /** false refuses the `/_fake/` control routes (the standalone server sets it for callers it must not obey). */
  controlAllowed?: boolean;
  /** Why control is refused, said in the 403 answer. */
  controlRefusal?: string;
  /** true when the caller is not on loopback: control views then withhold partners' API tokens. */
  remoteViewer?: boolean;
  /**
   * true when the caller's client sleeps on the fake's clock (what `fake.clientOptions()` sets):
   * its requests are counted against the rate limit on the fake's clock alone, even when it is frozen.
   */
  onFakeClock?: boolean;
}

/**
 * Which face of the fake a path reaches, after any `/sandboxes/<id>` prefix: `partner` wherever
 * `/api/v1/partnership/` appears in it (any path prefix, `/_fake/...` included), `control` for
 * `/_fake` and below, `other` for the rest. `handle` routes by it, and the `node:http` adapter
 * chooses its guard by it, so no path reaches the partner API under the control API's guard.
 */
export function faceOfPath(pathname: string): 'partner' | 'control' | 'other' {
  let path = pathname;
  if (path.startsWith(SANDBOX_PREFIX)) {
    const end = path.indexOf('/', SANDBOX_PREFIX.length);
    path = end < 0 ? '/' : path.slice(end);
  }
  if (path.includes(`${API_ROOT}/`) || path.endsWith(`${API_ROOT}/profile`)) return 'partner';
  if (path === '/_fake' || path.startsWith('/_fake/')) return 'control';
  return 'other';
}

/** The fake's own world and its sandboxes, which `serveRequest` chooses between by path. */
export interface Worlds {
  backend: FakeBackend;
  sandboxes: Sandboxes;
}

/**
 * Serves one request: the partner API under `/api/v1/partnership/` (any host, any path prefix),
 * the control API under `/_fake/`, and both again under `/sandboxes/<id>` for each sandbox.
 * Never throws: unexpected errors answer 500 JSON.
 */
export async function serveRequest(
  worlds: Worlds,
  request: Request,
  context: HandleContext,
): Promise<Response> {
  let backend = worlds.backend;
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return errorResponse(400, 'The request URL is not valid.');
  }
  let path = url.pathname;
  let prefix = '';
  const inSandbox = path.startsWith(SANDBOX_PREFIX);
  if (inSandbox) {
    const end = path.indexOf('/', SANDBOX_PREFIX.length);
    const id = path.slice(SANDBOX_PREFIX.length, end < 0 ? undefined : end);
    const sandbox = worlds.sandboxes.use(id);
    if (!sandbox)
      return errorResponse(
        404,
        `No sandbox ${JSON.stringify(id)}: it was deleted, expired after being idle, or never existed. POST /_fake/sandboxes creates one.`,
      );
    backend = sandbox;
    prefix = path.slice(0, end < 0 ? undefined : end);
    path = end < 0 ? '/' : path.slice(end);
  }
  const started = backend.clock.now();
  let face: JournalEntry['face'] = 'other';
  let operation: string | null = null;
  let partnerId: string | null = null;
  let response: Response;
  try {
    const reached = faceOfPath(path);
    if (reached === 'partner') {
      face = 'partner';
      const apiIndex = path.indexOf(`${API_ROOT}/`);
      const rest = apiIndex >= 0 ? path.slice(apiIndex + API_ROOT.length) : '/profile';
      const outcome = await handleApi(backend, request, url, rest, context.onFakeClock === true);
      ({ response, operation, partnerId } = outcome);
    } else if (reached === 'control') {
      face = 'control';
      if (context.controlAllowed === false)
        response = errorResponse(
          403,
          context.controlRefusal ?? 'The control API answers loopback callers only.',
        );
      else
        response = await handleControl(
          {
            backend,
            url,
            controlRoot: `${url.origin}${prefix}/_fake`,
            sandboxes: inSandbox ? undefined : worlds.sandboxes,
            remoteViewer: context.remoteViewer === true,
          },
          request,
          path,
        );
    } else {
      const nearest = nearestRoute(path, [
        `${API_ROOT}/restaurants/`,
        ...CONTROL_ROUTES.map((route) => route.path),
      ]);
      response = errorResponse(
        404,
        `Not found: no route ${request.method} ${path}. The partner API is under ${API_ROOT}/ and the control API under /_fake/ (nearest: ${nearest}).`,
      );
    }
  } catch (error) {
    if (error instanceof FakeError) response = errorResponse(error.status, error.detail, error.body);
    else if (request.signal.aborted) {
      // The caller left (a dropped connection mid-request): nothing went wrong in the fake.
      response = errorResponse(400, 'The client went away before the request was read.');
    } else {
      const message = error instanceof Error ? error.message : String(error);
      backend.errorLog(
        `fake: internal error on ${request.method} ${path}: ${error instanceof Error ? error.stack : message}`,
      );
      response = errorResponse(500, `Internal error in the fake: ${message}`);
    }
  }
  // Whatever a request that may change state did, the version says so (after the change).
  if (request.method !== 'GET' && request.method !== 'HEAD') backend.touch();
  if (inSandbox && backend.sealed) {
    // Deleted while this request ran: whatever it did went with the sandbox, and it says so.
    response = errorResponse(
      404,
      'The sandbox was deleted while this request ran; nothing it did remains and no delivery follows.',
    );
  }
  const status = response.type === 'error' ? null : response.status;
  const shownPath = redactedPath(path === url.pathname ? url : new URL(`${path}${url.search}`, url.origin));
  // The journal lists what the fake received, not the fake being read: its own reads stay out.
  if (!(face === 'control' && request.method === 'GET')) {
    backend.journal.record({
      at: started,
      method: request.method,
      path: `${prefix}${shownPath}`,
      status,
      face,
      operation,
      partnerId,
    });
  }
  backend.log(`${request.method} ${prefix}${shownPath} -> ${status ?? 'connection dropped'}`);
  return response;
}

/**
 * The `fetch` of `fake.clientOptions()`: each request goes straight into `handle`, marked as from a
 * client that sleeps on the fake's clock; a connection the fake drops rejects with a TypeError, as
 * fetch does.
 */
export function inProcessFetch(
  handle: (request: Request, context: HandleContext) => Promise<Response>,
): (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const response = await handle(new Request(input, init), { onFakeClock: true });
    if (response.type === 'error')
      throw new TypeError('fetch failed', {
        cause: new Error('connection dropped by the fake (injected networkError)'),
      });
    return response;
  };
}
