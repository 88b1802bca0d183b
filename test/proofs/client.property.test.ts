/**
 * Property-based proofs through `PartnerClient`, with a counting stub `fetch`:
 * - arbitrary arguments to every method give a value or a typed SDK error, never anything else;
 * - input the spec forbids is refused with InputValidationError before ANY request is sent, and
 *   input it allows is sent (nothing stricter than the spec);
 * - any answer (arbitrary JSON, text, empty, any status) gives a value, a ResponseValidationError
 *   or the typed HTTP error, never an uncaught exception or a plain TypeError;
 * - ids never escape their path segment.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  IDEMPOTENCY_METADATA_KEY,
  InputValidationError,
  NotFoundError,
  PartnerApiError,
  PartnerClient,
  PartnerProfileUpdateInput,
  PartnerSdkError,
  PermissionDeniedError,
  RateLimitError,
  ReservationCreateInput,
  ReservationListFilters,
  ResponseValidationError,
  ServerError,
  silentLogger,
  WebhookCreateInput,
  WebhookUpdateInput,
} from 'restaurant-partner-sdk';
import { ResourceId } from '../../src/resources/shared.schemas.js';
import {
  hostileValue,
  jsonValue,
  objectNear,
  profileResponse,
  reservationResponse,
  restaurantResponse,
  validCreateInput,
  webhookResponse,
  webhookUrl,
} from './support/arbitraries.js';
import { propertyRuns } from '../support/property-runs.js';

const API = '/api/v1/partnership';
const BASE = 'https://partner-api.example.test/proxy';
const TIMEZONE = 'Europe/Brussels';

interface SentRequest {
  method: string;
  url: URL;
  body: string;
  headers: Headers;
}

const json = (body: unknown, status = 200) =>
  new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json' },
  });

/** Valid answers for every route, as the spec (and the fake's default dialect) would give them. */
async function validAnswer(request: SentRequest): Promise<Response> {
  const path = request.url.pathname.slice(new URL(BASE).pathname.length + API.length);
  const method = request.method;
  const reservation = (id: number, extra: Record<string, unknown> = {}) => ({
    id,
    start_time: '2026-06-01T19:00:00+02:00',
    adults: 2,
    duration: 'PT2H',
    ...extra,
  });
  const webhook = (id: number) => ({
    id,
    url: 'https://partner.example/hooks',
    auth_token: 'whk_answer_token',
    subscribed_events: {},
  });
  let match: RegExpExecArray | null;
  if (path === '/profile/')
    return json({
      uuid: '2b3c4d5e-1111-4222-8333-944455566677',
      name: 'Partner',
      description: null,
      website_url: null,
    });
  if (path === '/restaurants/')
    return json([...restaurantIds].map((id) => ({ id, schema_name: `r${id}`, timezone: TIMEZONE })));
  if ((match = /^\/restaurants\/(\d+)\/reservations\/$/.exec(path))) {
    if (method === 'POST') {
      const body = JSON.parse(request.body) as Record<string, unknown>;
      return json(reservation(7, { ...body, id: 7 }), 201);
    }
    return json({ count: 1, next: null, previous: null, results: [reservation(7)] });
  }
  if ((match = /^\/restaurants\/\d+\/reservations\/(\d+)\/$/.exec(path))) {
    const id = Number(match[1]);
    if (method === 'PATCH') return json(reservation(id, { cancelled: true, confirmed: true }));
    return json(reservation(id, { confirmed: true }));
  }
  if (path === '/webhooks/') return method === 'POST' ? json(webhook(3), 201) : json([webhook(3)]);
  if ((match = /^\/webhooks\/(\d+)\/(?:auth-token\/|test\/)?$/.exec(path))) {
    if (method === 'DELETE') return new Response(null, { status: 204 });
    return json(webhook(Number(match[1])));
  }
  return json({ detail: 'Not found.' }, 404);
}

// The restaurants the stub's restaurants list contains (so create can read the timezone).
let restaurantIds = new Set<number>();

function stubbedClient(answer: (request: SentRequest) => Response | Promise<Response> = validAnswer) {
  const sent: SentRequest[] = [];
  const fetchStub = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const record = {
      method: request.method,
      url: new URL(request.url),
      body: await request.clone().text(),
      headers: request.headers,
    };
    sent.push(record);
    return answer(record);
  };
  const client = new PartnerClient({
    baseUrl: BASE,
    partnerId: '2b3c4d5e-1111-4222-8333-944455566677',
    apiToken: 'property-token-0123456789',
    rateLimit: false,
    maxRetries: 0,
    timeoutMs: 5_000,
    // One look-up after an unknown create outcome, so no property run waits out a settle window.
    createLookupWindowMs: 0,
    logger: silentLogger,
    fetch: fetchStub,
  });
  return { client, sent };
}

/** Runs a call (which may throw synchronously or reject) and returns its outcome. */
async function outcome(
  call: () => unknown,
): Promise<{ ok: true; value: unknown } | { ok: false; error: unknown }> {
  try {
    const result = call();
    const value =
      result && typeof (result as { toArray?: unknown }).toArray === 'function'
        ? await (result as { toArray(): Promise<unknown> }).toArray()
        : await result;
    return { ok: true, value };
  } catch (error) {
    return { ok: false, error };
  }
}

const validId = fc.oneof(
  fc.integer({ min: 1, max: 2 ** 31 }),
  fc.integer({ min: 1, max: 2 ** 31 }).map(String),
);
const hostileId = fc.oneof(
  hostileValue(),
  fc.constantFrom(
    '',
    '.',
    '..',
    '../webhooks',
    '1/..',
    '1/../2',
    '%2e%2e',
    '1?x=1',
    '1#a',
    ' 1',
    '1 ',
    '0',
    '-1',
    '1.5',
    '1e3',
    '٣',
    '0x10',
    0,
    -1,
    1.5,
    Number.NaN,
    Infinity,
    2 ** 53 + 1,
  ),
  fc.string({ maxLength: 12 }),
);
const anyId = fc.oneof(validId, hostileId);
const isValidId = (id: unknown) => ResourceId.safeParse(id).success;

/** Asserts the outcome of one call against what the schemas say about its arguments. */
function expectDecided(
  result: Awaited<ReturnType<typeof outcome>>,
  sent: SentRequest[],
  inputAllowed: boolean,
): void {
  if (!inputAllowed) {
    expect(result.ok, 'forbidden input must be refused').toBe(false);
    if (!result.ok) expect(result.error, String(result.error)).toBeInstanceOf(InputValidationError);
    expect(sent, 'no request may be sent for forbidden input').toHaveLength(0);
    return;
  }
  if (!result.ok) throw result.error;
  expect(sent.length).toBeGreaterThan(0);
  for (const request of sent) {
    // Ids are percent-encoded into exactly one segment: nothing walks out of the API prefix.
    expect(
      request.url.origin + request.url.pathname.slice(0, new URL(BASE).pathname.length + API.length),
    ).toBe(`${BASE}${API}`);
    expect(request.url.pathname.split('/')).not.toContain('..');
  }
}

const runs = { numRuns: propertyRuns(150) };

/**
 * How a free-form part of an input (metadata, unknown fields) travels as JSON: `plain` JSON values
 * go as they are; `lossy` ones (Date, Map, undefined, a function...) are changed by JSON.stringify;
 * `unsendable` ones (BigInt, a cycle) make it throw, so the input cannot be sent at all.
 */
function jsonTravel(value: unknown): 'plain' | 'lossy' | 'unsendable' {
  try {
    JSON.stringify(value);
  } catch {
    return 'unsendable';
  }
  const isPlain = (item: unknown): boolean => {
    if (item === null || typeof item === 'string' || typeof item === 'boolean') return true;
    if (typeof item === 'number') return Number.isFinite(item);
    if (Array.isArray(item)) return Object.keys(item).length === item.length && item.every(isPlain);
    if (typeof item === 'object' && Object.getPrototypeOf(item) === Object.prototype)
      return Object.values(item).every(isPlain);
    return false;
  };
  return isPlain(value) ? 'plain' : 'lossy';
}
/** The parts of an input object the schemas pass through untouched: metadata and unknown fields. */
const freeForm = (input: unknown, knownKeys: readonly string[]) =>
  input && typeof input === 'object'
    ? Object.fromEntries(
        Object.entries(input).filter(([key]) => !knownKeys.includes(key) || key === 'metadata'),
      )
    : {};
const CREATE_KEYS = [
  'start_time',
  'adults',
  'children',
  'first_name',
  'last_name',
  'email',
  'phone',
  'comment',
  'language',
  'metadata',
];
const WEBHOOK_KEYS = ['url', 'name', 'is_enabled', 'subscribed_events'];
/** A header value fetch can send: printable ASCII. Others (NUL, CR/LF, beyond Latin-1) cannot be sent. */
const sendableHeader = (value: string) => /^[\x20-\x7e]*$/.test(value);

describe('arbitrary arguments: a value, or InputValidationError before any request', () => {
  it('reservations.create', async () => {
    const input = fc.oneof(
      validCreateInput(),
      objectNear(['start_time', 'adults', 'children', 'first_name', 'last_name', 'phone', 'metadata']),
      hostileValue(),
    );
    const key = fc.option(fc.oneof(fc.uuid(), fc.string({ maxLength: 300 }), hostileValue()), {
      nil: undefined,
    });
    await fc.assert(
      fc.asyncProperty(anyId, input, key, async (restaurantId, body, idempotencyKey) => {
        restaurantIds = new Set(isValidId(restaurantId) ? [Number(restaurantId)] : []);
        const { client, sent } = stubbedClient();
        const result = await outcome(() =>
          client.reservations.create(restaurantId as never, body as never, {
            idempotencyKey: idempotencyKey as never,
          }),
        );
        const keyAllowed =
          idempotencyKey == null ||
          (typeof idempotencyKey === 'string' &&
            idempotencyKey.trim() !== '' &&
            idempotencyKey.length <= 255 &&
            sendableHeader(idempotencyKey));
        // A key with surrounding spaces may be refused; if it is sent, header and metadata must agree (see below).
        const keyPadded = typeof idempotencyKey === 'string' && idempotencyKey !== idempotencyKey.trim();
        const travel = jsonTravel(freeForm(body, CREATE_KEYS));
        const allowed =
          isValidId(restaurantId) &&
          ReservationCreateInput.safeParse(body).success &&
          keyAllowed &&
          travel !== 'unsendable';
        const posts = sent.filter((request) => request.method === 'POST');
        // Free-form values JSON would change (a Date in metadata) may be refused too, but never sent half-way.
        if (allowed && travel === 'lossy' && !result.ok && result.error instanceof InputValidationError) {
          expect(sent).toHaveLength(0);
          return;
        }
        if (allowed && keyPadded && !result.ok && result.error instanceof InputValidationError) {
          expect(sent).toHaveLength(0);
          return;
        }
        if (allowed && !result.ok && result.error instanceof InputValidationError) {
          // A local time that does not exist in the restaurant's zone (DST gap) is refused after the timezone is read, never sent.
          expect(result.error.field).toBe('start_time');
          expect(posts).toHaveLength(0);
          return;
        }
        expectDecided(result, sent, allowed);
        if (allowed) {
          expect(posts).toHaveLength(1);
          const wire = JSON.parse(posts[0]!.body) as Record<string, unknown>;
          const parsed = ReservationCreateInput.parse(body);
          expect(wire.adults).toBe(parsed.adults);
          expect(wire.children).toBe(parsed.children);
          expect(typeof wire.start_time).toBe('string');
          const sentKey = posts[0]!.headers.get('idempotency-key');
          expect(sentKey).toBeTruthy();
          if (typeof idempotencyKey === 'string' && !keyPadded) expect(sentKey).toBe(idempotencyKey);
          expect((wire.metadata as Record<string, unknown>)[IDEMPOTENCY_METADATA_KEY]).toBe(sentKey);
        }
      }),
      {
        numRuns: propertyRuns(300),
        // Named cases, so these run on every seed: header-unsafe keys and values JSON cannot carry.
        examples: [
          [1, { start_time: '2026-06-01T19:00:00+02:00', adults: 2 }, 'order-42\u0000'],
          [1, { start_time: '2026-06-01T19:00:00+02:00', adults: 2 }, 'order-42\r\nx-injected: 1'],
          [1, { start_time: '2026-06-01T19:00:00+02:00', adults: 2 }, 'commande-№42'],
          [1, { start_time: '2026-06-01T19:00:00+02:00', adults: 2, metadata: { order: 42n } }, undefined],
          [1, { start_time: '2026-06-01T19:00:00+02:00', adults: 2, loyalty_points: 10n }, undefined],
        ],
      },
    );
  });

  it('reservations.list with filters', async () => {
    const filters = fc.option(
      fc.oneof(
        objectNear(['start_time_after', 'start_time_before', 'page_size']),
        fc.record({ page_size: fc.integer({ min: -5, max: 1200 }) }),
        hostileValue(),
      ),
      { nil: undefined },
    );
    await fc.assert(
      fc.asyncProperty(anyId, filters, async (restaurantId, filter) => {
        const { client, sent } = stubbedClient();
        const result = await outcome(() => client.reservations.list(restaurantId as never, filter as never));
        expectDecided(
          result,
          sent,
          isValidId(restaurantId) && ReservationListFilters.safeParse(filter ?? {}).success,
        );
      }),
      runs,
    );
  });

  for (const method of ['retrieve', 'cancel', 'markArrived', 'markNoShow'] as const) {
    it(`reservations.${method}`, async () => {
      await fc.assert(
        fc.asyncProperty(anyId, anyId, async (restaurantId, id) => {
          const { client, sent } = stubbedClient();
          const result = await outcome(() => client.reservations[method](restaurantId as never, id as never));
          expectDecided(result, sent, isValidId(restaurantId) && isValidId(id));
          if (result.ok && result.value) expect((result.value as { id: number }).id).toBe(Number(id));
        }),
        runs,
      );
    });
  }

  it('reservations.waitForConfirmation', async () => {
    await fc.assert(
      fc.asyncProperty(anyId, anyId, async (restaurantId, id) => {
        const { client, sent } = stubbedClient();
        const result = await outcome(() =>
          client.reservations.waitForConfirmation(restaurantId as never, id as never, { timeoutMs: 0 }),
        );
        expectDecided(result, sent, isValidId(restaurantId) && isValidId(id));
      }),
      { numRuns: propertyRuns(80) },
    );
  });

  it('profile.update', async () => {
    const patch = fc.oneof(
      objectNear(['name', 'description', 'website_url']),
      fc.record({ website_url: fc.option(fc.webUrl(), { nil: null }) }),
      hostileValue(),
    );
    await fc.assert(
      fc.asyncProperty(patch, async (body) => {
        const { client, sent } = stubbedClient();
        const result = await outcome(() => client.profile.update(body as never));
        expectDecided(result, sent, PartnerProfileUpdateInput.safeParse(body).success);
        if (result.ok) expect(JSON.parse(sent[0]!.body)).toEqual(PartnerProfileUpdateInput.parse(body));
      }),
      runs,
    );
  });

  it('webhooks.create and webhooks.update', async () => {
    const body = fc.oneof(
      fc.record(
        {
          url: fc.oneof(webhookUrl(), fc.string(), fc.constant(`https://example.com/${'a'.repeat(481)}`)),
          name: fc.option(fc.string({ maxLength: 130 }), { nil: null }),
        },
        { requiredKeys: [] },
      ),
      objectNear(['url', 'name', 'is_enabled', 'subscribed_events']),
      hostileValue(),
    );
    await fc.assert(
      fc.asyncProperty(body, anyId, async (input, id) => {
        const travel = jsonTravel(freeForm(input, WEBHOOK_KEYS));
        const decide = (
          result: Awaited<ReturnType<typeof outcome>>,
          sent: SentRequest[],
          allowed: boolean,
        ) => {
          if (allowed && travel === 'lossy' && !result.ok && result.error instanceof InputValidationError)
            return expect(sent).toHaveLength(0);
          expectDecided(result, sent, allowed);
        };
        const created = stubbedClient();
        decide(
          await outcome(() => created.client.webhooks.create(input as never)),
          created.sent,
          WebhookCreateInput.safeParse(input).success && travel !== 'unsendable',
        );
        const updated = stubbedClient();
        decide(
          await outcome(() => updated.client.webhooks.update(id as never, input as never)),
          updated.sent,
          isValidId(id) && WebhookUpdateInput.safeParse(input).success && travel !== 'unsendable',
        );
      }),
      { ...runs, examples: [[{ url: 'https://partner.example/hooks', retries: 3n }, 1]] },
    );
  });

  for (const method of ['retrieve', 'delete', 'regenerateToken', 'test'] as const) {
    it(`webhooks.${method}`, async () => {
      await fc.assert(
        fc.asyncProperty(anyId, async (id) => {
          const { client, sent } = stubbedClient();
          expectDecided(await outcome(() => client.webhooks[method](id as never)), sent, isValidId(id));
        }),
        runs,
      );
    });
  }
});

/** Per-call options that can only be a mistake: a non-positive or non-numeric timeout, a negative or fractional retry count, a signal that is no AbortSignal. */
function optionsAreWrong(options: unknown): boolean {
  if (!options || typeof options !== 'object') return false;
  const { timeoutMs, maxRetries, signal } = options as Record<string, unknown>;
  // Objects (a boxed Number) may be coerced or refused; primitives of the wrong kind or range are plainly wrong.
  const primitive = (value: unknown) =>
    value !== undefined && value !== null && typeof value !== 'object' && typeof value !== 'function';
  if (primitive(timeoutMs) && !(typeof timeoutMs === 'number' && timeoutMs > 0)) return true;
  if (
    primitive(maxRetries) &&
    !(typeof maxRetries === 'number' && Number.isInteger(maxRetries) && maxRetries >= 0)
  )
    return true;
  if (signal !== undefined && signal !== null && !(signal instanceof AbortSignal)) return true;
  return false;
}

describe('arbitrary per-call options: a value or a typed error, never a TypeError', () => {
  it('timeoutMs, maxRetries and signal of any kind', async () => {
    const options = fc.oneof(
      hostileValue(),
      fc.record(
        {
          timeoutMs: fc.oneof(
            fc.integer({ min: -10, max: 10_000 }),
            fc.double(),
            fc.constantFrom(Number.NaN, Infinity, '100', null),
          ),
          maxRetries: fc.oneof(
            fc.integer({ min: -3, max: 5 }),
            fc.double(),
            fc.constantFrom(Number.NaN, '2', null),
          ),
          signal: fc.oneof(
            hostileValue(),
            fc.constant(AbortSignal.abort()),
            fc.constant(new AbortController().signal),
          ),
          idempotencyKey: fc.option(fc.uuid(), { nil: undefined }),
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        options,
        fc.constantFrom('retrieve', 'cancel', 'list', 'create'),
        async (callOptions, method) => {
          restaurantIds = new Set([1]);
          const { client, sent } = stubbedClient();
          const call = {
            retrieve: () => client.reservations.retrieve(1, 7, callOptions as never),
            cancel: () => client.reservations.cancel(1, 7, callOptions as never),
            list: () => client.reservations.list(1, undefined, callOptions as never),
            create: () =>
              client.reservations.create(
                1,
                { start_time: '2026-06-01T19:00:00+02:00', adults: 2 },
                callOptions as never,
              ),
          }[method];
          const result = await outcome(call);
          if (!result.ok)
            expect(result.error, `${String(result.error)}\n${(result.error as Error).stack}`).toBeInstanceOf(
              PartnerSdkError,
            );
          // Options that are plainly wrong are refused like any other bad input: typed, and before any request.
          if (optionsAreWrong(callOptions)) {
            expect(result.ok, 'wrong options must be refused').toBe(false);
            if (!result.ok) expect(result.error).toBeInstanceOf(InputValidationError);
            expect(sent).toHaveLength(0);
          } else if (
            callOptions &&
            typeof callOptions === 'object' &&
            (callOptions as { signal?: AbortSignal }).signal?.aborted
          ) {
            expect(result.ok).toBe(false);
          }
        },
      ),
      {
        numRuns: propertyRuns(300),
        examples: [
          [{ maxRetries: Number.NaN }, 'retrieve'],
          [{ signal: 'stop' }, 'cancel'],
          [{ timeoutMs: -5 }, 'list'],
          [{ maxRetries: 1.5 }, 'create'],
        ],
      },
    );
  });
});

/** Every method, called with valid arguments, as a list of named calls. */
const calls: [string, (client: PartnerClient) => unknown][] = [
  ['profile.retrieve', (client) => client.profile.retrieve()],
  ['profile.update', (client) => client.profile.update({ name: 'New name' })],
  ['restaurants.list', (client) => client.restaurants.list()],
  ['reservations.list', (client) => client.reservations.list(1)],
  [
    'reservations.create',
    (client) => client.reservations.create(1, { start_time: '2026-06-01T19:00:00+02:00', adults: 2 }),
  ],
  ['reservations.retrieve', (client) => client.reservations.retrieve(1, 7)],
  ['reservations.cancel', (client) => client.reservations.cancel(1, 7)],
  ['reservations.markArrived', (client) => client.reservations.markArrived(1, 7)],
  ['reservations.markNoShow', (client) => client.reservations.markNoShow(1, 7)],
  ['webhooks.create', (client) => client.webhooks.create({ url: 'https://partner.example/hooks' })],
  ['webhooks.list', (client) => client.webhooks.list()],
  ['webhooks.retrieve', (client) => client.webhooks.retrieve(3)],
  ['webhooks.update', (client) => client.webhooks.update(3, { name: 'renamed' })],
  ['webhooks.delete', (client) => client.webhooks.delete(3)],
  ['webhooks.regenerateToken', (client) => client.webhooks.regenerateToken(3)],
  ['webhooks.test', (client) => client.webhooks.test(3)],
];

/** An answer body: arbitrary JSON, a valid object of some resource, a list of them, text, or nothing. */
const answerBody = fc.oneof(
  jsonValue().map((value) => JSON.stringify(value)),
  fc
    .oneof(reservationResponse(), restaurantResponse(), profileResponse(), webhookResponse())
    .map((value) => JSON.stringify(value)),
  fc
    .array(fc.oneof(reservationResponse(), restaurantResponse(), webhookResponse()), { maxLength: 3 })
    .map((items) => JSON.stringify(items)),
  fc
    .record({
      count: fc.nat(),
      next: fc.option(fc.oneof(fc.webUrl(), fc.nat().map(String), fc.string()), { nil: null }),
      results: fc.array(jsonValue(), { maxLength: 3 }),
    })
    .map((value) => JSON.stringify(value)),
  fc.string({ maxLength: 100 }),
  fc.constant(''),
);

describe('arbitrary answers: a value, a ResponseValidationError or the typed HTTP error', () => {
  for (const [name, call] of calls) {
    it(`${name}: any 2xx body`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(200, 201, 202, 203), answerBody, async (status, body) => {
          restaurantIds = new Set([1]);
          let answered = 0;
          const { client } = stubbedClient(async (request) => {
            // The timezone lookup of create is answered properly; the call under test gets the arbitrary body.
            if (request.url.pathname.endsWith('/restaurants/') && name !== 'restaurants.list')
              return validAnswer(request);
            answered += 1;
            // A next link may be followed: bound the pages a hostile server can make us read.
            if (answered > 20) return json([]);
            return new Response(body, { status, headers: { 'content-type': 'application/json' } });
          });
          const result = await outcome(() => call(client));
          if (!result.ok) {
            expect(result.error, `${String(result.error)}\n${(result.error as Error).stack}`).toBeInstanceOf(
              PartnerSdkError,
            );
            if (name !== 'reservations.create') expect(result.error).toBeInstanceOf(ResponseValidationError);
          }
          expect(answered).toBeLessThanOrEqual(21);
        }),
        runs,
      );
    });

    it(`${name}: any status and body`, async () => {
      const status = fc.oneof(
        fc.integer({ min: 200, max: 599 }),
        fc.constantFrom(204, 400, 401, 403, 404, 405, 408, 409, 422, 429, 500, 502, 503),
      );
      await fc.assert(
        fc.asyncProperty(
          status,
          answerBody,
          fc.option(fc.oneof(fc.nat({ max: 100 }).map(String), fc.string({ maxLength: 30 })), {
            nil: undefined,
          }),
          async (code, body, retryAfter) => {
            restaurantIds = new Set([1]);
            const { client } = stubbedClient(async () => {
              const headers: Record<string, string> = { 'content-type': 'application/json' };
              if (retryAfter !== undefined && /^[\x20-\x7e]*$/.test(retryAfter))
                headers['retry-after'] = retryAfter;
              return new Response([204, 205, 304].includes(code) ? null : body, { status: code, headers });
            });
            const result = await outcome(() => call(client));
            if (result.ok) return;
            const error = result.error;
            expect(error, `${String(error)}\n${(error as Error).stack}`).toBeInstanceOf(PartnerSdkError);
            // Plain reads map each status to its class (writes may turn into a lookup or an ambiguous create first).
            if (code >= 300 && (name === 'profile.retrieve' || name === 'webhooks.retrieve')) {
              expect(error).toBeInstanceOf(PartnerApiError);
              expect((error as PartnerApiError).status).toBe(code);
              const expected =
                code === 400 || code === 422
                  ? BadRequestError
                  : code === 401
                    ? AuthenticationError
                    : code === 403
                      ? PermissionDeniedError
                      : code === 404
                        ? NotFoundError
                        : code === 409
                          ? ConflictError
                          : code === 429
                            ? RateLimitError
                            : code >= 500
                              ? ServerError
                              : PartnerApiError;
              expect(error).toBeInstanceOf(expected);
            }
          },
        ),
        { numRuns: propertyRuns(100) },
      );
    });
  }
});
