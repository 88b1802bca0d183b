/**
 * `client.request(...)`: an operation the SDK does not wrap (such as a restaurant's availability,
 * which the spec names but does not show), sent through the same pipeline as every other call:
 * throttle, retries, deadline, redaction and, given a zod schema, output validation.
 * @module
 */
import * as z from 'zod/mini';
import { InputValidationError, type FieldIssue } from '../errors.js';
import type { ApiPromise } from '../transport/api-promise.js';
import { API_PREFIX, type RequestOptions, type RequestSpec, type Transport } from '../transport/transport.js';
import { parseInput, parseOutput } from '../transport/validate.js';
import { apiPromise } from './resource.js';

/** The methods `client.request` sends. */
export type RawRequestMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What `client.request` takes. */
export interface RawRequest<Schema extends z.core.$ZodType | undefined = z.core.$ZodType | undefined> {
  method: RawRequestMethod;
  /**
   * The path under `/api/v1/partnership/`, such as `restaurants/12/availability/`; the full path
   * (`/api/v1/partnership/restaurants/12/availability/`) is accepted too. Anything that would leave
   * the API (`..` segments, another origin, an absolute URL) is refused before any request.
   */
  path: string;
  /** Query parameters (undefined values are left out). */
  query?: Record<string, string | number | boolean | undefined> | undefined;
  /** The JSON body. */
  body?: unknown;
  /** Checks and shapes the answer; without it the parsed JSON (null for an empty body) is returned as `unknown`. */
  schema?: Schema;
}

// Methods whose repeat cannot do harm: retried on a network error, 408 or 5xx, like other reads.
const SAFE_TO_REPEAT = new Set<string>(['GET', 'PUT', 'DELETE']);
const METHODS = new Set<string>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const FULL_PREFIX = `${API_PREFIX}/`;

function refuse(field: string, message: string): never {
  throw new InputValidationError([
    { field, path: [field], code: 'invalid_request', message },
  ] satisfies FieldIssue[]);
}

/** The checked path, relative to the API prefix and starting with `/`, or an {@link InputValidationError} naming `path`. */
export function checkRelativePath(value: unknown): string {
  if (typeof value !== 'string' || value === '')
    refuse('path', 'expected a path under /api/v1/partnership/, such as "restaurants/12/availability/"');
  let path = value;
  if (path.startsWith(FULL_PREFIX)) path = path.slice(FULL_PREFIX.length);
  else if (path.startsWith('/'))
    refuse(
      'path',
      `expected a path relative to ${FULL_PREFIX} ("restaurants/12/availability/") or starting with ${FULL_PREFIX}`,
    );
  if (/^[a-z][a-z0-9+.-]*:/i.test(path))
    refuse('path', "expected a path, not a URL: requests go only to the client's baseUrl");
  if (/[\\?#\s\u0000-\u001f\u007f]/.test(path))
    refuse(
      'path',
      'expected no backslash, "?", "#", whitespace or control character (give query parameters in `query`)',
    );
  for (const segment of path.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      refuse('path', `"${segment}" is not a valid percent-encoded segment`);
    }
    if (decoded === '.' || decoded === '..' || decoded.includes('/') || decoded.includes('\\'))
      refuse('path', `the segment "${segment}" would leave /api/v1/partnership/`);
  }
  if (path.startsWith('/')) refuse('path', 'expected no empty first segment');
  return `/${path}`;
}

function checkQuery(query: unknown): RawRequest['query'] {
  if (query === undefined) return undefined;
  if (typeof query !== 'object' || query === null || Array.isArray(query))
    refuse('query', 'expected an object of string, number or boolean values');
  for (const [key, value] of Object.entries(query)) {
    if (
      value !== undefined &&
      typeof value !== 'string' &&
      typeof value !== 'boolean' &&
      !(typeof value === 'number' && Number.isFinite(value))
    ) {
      throw new InputValidationError([
        {
          field: `query.${key}`,
          path: ['query', key],
          code: 'invalid_request',
          message: 'expected a string, a finite number or a boolean',
        },
      ]);
    }
  }
  return query as RawRequest['query'];
}

/**
 * Whether a checked path names the reservations of a restaurant (`restaurants/{id}/reservations/`),
 * however spelt: letter case, percent-encoding and empty segments a server may fold away.
 */
function isReservationCreate(path: string): boolean {
  const segments = path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => decodeURIComponent(segment).toLowerCase());
  return segments.length === 3 && segments[0] === 'restaurants' && segments[2] === 'reservations';
}

/** Sends one operation the SDK does not wrap through the transport's pipeline. */
export function rawRequest(
  transport: Transport,
  request: RawRequest,
  options: RequestOptions | undefined,
): ApiPromise<unknown> {
  return apiPromise(async () => {
    if (!request || typeof request !== 'object')
      refuse('request', 'expected { method, path, query?, body?, schema? }');
    const method = request.method;
    if (typeof method !== 'string' || !METHODS.has(method))
      refuse('method', "expected 'GET', 'POST', 'PUT', 'PATCH' or 'DELETE'");
    const path = checkRelativePath(request.path);
    if (method === 'POST' && isReservationCreate(path))
      refuse(
        'path',
        "a POST to a restaurant's reservations creates a booking: use client.reservations.create(restaurantId, input, { idempotencyKey }), which claims the key, looks it up after any doubtful answer and never books twice",
      );
    const query = checkQuery(request.query);
    const body = request.body === undefined ? undefined : parseInput(z.unknown(), request.body, ['body']);
    const schema = request.schema;
    if (
      schema !== undefined &&
      (typeof schema !== 'object' ||
        schema === null ||
        typeof (schema as { safeParse?: unknown }).safeParse !== 'function')
    ) {
      refuse('schema', 'expected a zod schema');
    }
    const url = transport.urlFor(path, query);
    // The URL parser resolves what the checks above let through; the result must still be under the prefix.
    const root = new URL(`${transport.baseUrl}${FULL_PREFIX}`);
    if (url.origin !== root.origin || !url.pathname.startsWith(root.pathname))
      refuse('path', 'the path would leave /api/v1/partnership/');
    const spec: RequestSpec<unknown> = {
      method,
      url: url.toString(),
      body,
      // GET, PUT and DELETE are resent after a network error, 408 or 5xx; POST and PATCH only
      // when the request certainly never took effect (429, a connection never opened).
      safeToRepeat: SAFE_TO_REPEAT.has(method),
      options,
      operation: 'request',
      parse: (answer, _response, where) => {
        const value = answer === undefined ? null : answer;
        return schema ? parseOutput(schema, value, where) : value;
      },
    };
    return transport.request(spec);
  });
}
