/**
 * The knobs partners expect from stripe-node and openai-node: a log level (option or environment
 * variable) with redacted lines, default and per-call headers, `withOptions`, response validation
 * that can warn, known restaurant timezones, `getNextPage()` past the end, and a `baseUrl` given
 * with the API prefix.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  createRateLimiter,
  InputValidationError,
  PartnerClient,
  PartnerSdkError,
  ResponseValidationError,
  type Logger,
} from 'restaurant-partner-sdk';
import { HttpResponse } from 'msw';
import { readEnvironment } from '../../src/transport/environment.js';
import {
  API_TOKEN,
  BASE_URL,
  BASIC_HEADER,
  json,
  mockApi,
  PARTNER_ID,
  restaurantBody,
  webhookBody,
  createdAnswer,
} from '../support/hostile-server.js';
import { reservationBody } from '../support/reservation.js';

const api = mockApi();
const CREDENTIAL = BASIC_HEADER.slice('Basic '.length);

interface Line {
  level: string;
  message: string;
  context: Record<string, unknown> | undefined;
}

/** A logger with all four levels that keeps every line it is given. */
function recordingLogger(): Logger & { lines: Line[]; text(): string } {
  const lines: Line[] = [];
  const write = (level: string) => (message: string, context?: Record<string, unknown>) =>
    lines.push({ level, message, context });
  return {
    lines,
    text: () =>
      lines.map((line) => `${line.level} ${line.message} ${JSON.stringify(line.context)}`).join('\n'),
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
  };
}

const ENVIRONMENT_VARIABLES = ['RESTAURANT_PARTNER_LOG', 'RESTAURANT_PARTNER_RESPONSE_VALIDATION'];
afterEach(() => {
  for (const name of ENVIRONMENT_VARIABLES) delete process.env[name];
});

function expectNoSecret(text: string): void {
  expect(text).not.toContain(API_TOKEN);
  expect(text).not.toContain(CREDENTIAL);
}

describe('log level', () => {
  it('at debug, each attempt and answer is a line naming method, redacted URL, status, attempt and duration; retries at info', async () => {
    const logger = recordingLogger();
    api.reply(
      () => json({ detail: 'busy' }, 503),
      // The next link carries the token in a parameter no name-based redaction would recognise.
      () =>
        json({
          count: 2,
          next: `${BASE_URL}/api/v1/partnership/restaurants/?page=2&cursor=${API_TOKEN}`,
          results: [restaurantBody()],
        }),
      () => json({ count: 2, next: null, results: [restaurantBody({ id: 8 })] }),
    );
    await api.client({ logger, logLevel: 'debug' }).restaurants.list().toArray();

    const answers = logger.lines.filter((line) => line.message.startsWith('response '));
    expect(answers.map((line) => line.context?.status)).toEqual([503, 200, 200]);
    expect(answers[0]!.context).toMatchObject({
      method: 'GET',
      url: `${BASE_URL}/api/v1/partnership/restaurants/`,
      attempt: 1,
    });
    expect(answers[1]!.context).toMatchObject({ attempt: 2 });
    for (const line of answers) expect(typeof line.context?.durationMs).toBe('number');
    expect(logger.lines.filter((line) => line.message.startsWith('request '))).toHaveLength(3);
    const retry = logger.lines.find((line) => line.message.startsWith('retrying'));
    expect(retry).toMatchObject({
      level: 'info',
      context: { method: 'GET', status: 503, error: 'ServerError', attempt: 1 },
    });
    expect(logger.text()).toContain('[REDACTED]');
    expectNoSecret(logger.text());
  });

  it('an attempt without an answer (a dropped connection) is a debug line too, naming the error', async () => {
    const logger = recordingLogger();
    api.reply(() => HttpResponse.error());
    const error = await api
      .client({ logger, logLevel: 'debug', maxRetries: 0 })
      .restaurants.list()
      .catch((caught) => caught);
    expect(error).toMatchObject({ name: 'ConnectionError' });
    expect(logger.lines.map((line) => line.message)).toEqual([
      `request GET ${BASE_URL}/api/v1/partnership/restaurants/ (attempt 1)`,
      `no answer to GET ${BASE_URL}/api/v1/partnership/restaurants/: ConnectionError (attempt 1)`,
    ]);
  });

  it('defaults to warn: no debug or info line reaches a logger that has those methods', async () => {
    const logger = recordingLogger();
    api.reply(
      () => json({}, 503),
      () => json([]),
    );
    await api.client({ logger }).restaurants.list().toArray();
    expect(logger.lines).toEqual([]);
  });

  it('RESTAURANT_PARTNER_LOG turns debug on without a code change; the option wins over it', async () => {
    process.env.RESTAURANT_PARTNER_LOG = ' DEBUG ';
    api.always(() => json([]));
    const fromEnvironment = recordingLogger();
    await api.client({ logger: fromEnvironment }).restaurants.list();
    expect(fromEnvironment.lines.map((line) => line.level)).toEqual(['debug', 'debug']);
    expect(api.client({ logger: fromEnvironment }).toJSON()).toMatchObject({ logLevel: 'debug' });

    const optionOff = recordingLogger();
    await api.client({ logger: optionOff, logLevel: 'off' }).restaurants.list();
    expect(optionOff.lines).toEqual([]);
  });

  it('an unknown RESTAURANT_PARTNER_LOG value is warned about once and ignored; an unknown logLevel option is refused', () => {
    process.env.RESTAURANT_PARTNER_LOG = 'verbose';
    const logger = recordingLogger();
    expect(api.client({ logger }).toJSON()).toMatchObject({ logLevel: 'warn' });
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatchObject({ level: 'warn' });
    expect(logger.lines[0]!.message).toContain('RESTAURANT_PARTNER_LOG');

    const refused = (() => {
      try {
        api.client({ logLevel: 'verbose' as never });
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(InputValidationError);
    expect((refused as InputValidationError).field).toBe('logLevel');
  });

  it('a logger that throws does not fail the call', async () => {
    api.reply(() => json([restaurantBody()]));
    const throwing: Logger = {
      debug: () => {
        throw new Error('log sink down');
      },
      warn: () => undefined,
      error: () => undefined,
    };
    expect(
      await api.client({ logger: throwing, logLevel: 'debug' }).restaurants.list().toArray(),
    ).toHaveLength(1);
  });

  it('off silences warnings too', () => {
    const logger = recordingLogger();
    api.client({ logger, logLevel: 'off', baseUrl: 'http://api.partner.test' });
    expect(logger.lines).toEqual([]);
    api.client({ logger, baseUrl: 'http://api.partner.test' });
    expect(logger.lines.map((line) => line.level)).toEqual(['warn']);
  });

  it('the default console logger writes debug lines to console.debug when the level asks for them', async () => {
    const written: unknown[][] = [];
    const original = console.debug;
    console.debug = (...args: unknown[]) => void written.push(args);
    try {
      api.always(() => json([]));
      await new PartnerClient({
        baseUrl: BASE_URL,
        partnerId: PARTNER_ID,
        apiToken: API_TOKEN,
        rateLimit: false,
        logLevel: 'debug',
      }).restaurants.list();
    } finally {
      console.debug = original;
    }
    expect(written.map((args) => args[0])).toEqual([
      `[restaurant-partner-sdk] request GET ${BASE_URL}/api/v1/partnership/restaurants/ (attempt 1)`,
      expect.stringMatching(/^\[restaurant-partner-sdk\] response GET \S+ 200 in \d+ ms \(attempt 1\)$/),
    ]);
    // One self-contained console line per event.
    expect(written.map((args) => args.length)).toEqual([1, 1]);
    expectNoSecret(JSON.stringify(written));
  });
});

describe('default and per-call headers', () => {
  it('defaultHeaders go with every request, pages included; per-call headers add, override, or remove one (null)', async () => {
    api.reply(
      () => json({ next: `${BASE_URL}/api/v1/partnership/restaurants/?page=2`, results: [restaurantBody()] }),
      () => json({ next: null, results: [] }),
      () => json(webhookBody()),
    );
    const client = api.client({ defaultHeaders: { traceparent: '00-abc-def-01', 'X-Team': 'bookings' } });
    await client.restaurants.list({ headers: { 'x-request-id': 'r1', 'x-team': 'search' } }).toArray();
    await client.webhooks.retrieve(3, { headers: { traceparent: null } });

    const [first, second, third] = api.calls;
    for (const call of [first!, second!]) {
      expect(call.headers.get('traceparent')).toBe('00-abc-def-01');
      expect(call.headers.get('x-team')).toBe('search');
      expect(call.headers.get('x-request-id')).toBe('r1');
      expect(call.headers.get('authorization')).toBe(BASIC_HEADER);
    }
    expect(third!.headers.get('traceparent')).toBeNull();
    expect(third!.headers.get('x-team')).toBe('bookings');
  });

  it("a create keeps its own Idempotency-Key and content type next to the default headers; its look-ups carry the call's headers", async () => {
    // A caller's own key is looked up before the first send.
    // One read of a list answered in one page, then the POST.
    api.reply(() => json([]), createdAnswer());
    const client = api.client({
      defaultHeaders: { 'x-trace': 't1' },
      restaurantTimezones: { 7: 'Europe/Brussels' },
    });
    await client.reservations.create(
      7,
      { start_time: '2026-12-05T19:30', adults: 2 },
      { idempotencyKey: 'order-1', headers: { 'x-call': 'c1' } },
    );
    const [lookUp, call] = api.calls;
    expect(lookUp!.method).toBe('GET');
    expect(lookUp!.headers.get('x-call')).toBe('c1');
    expect(lookUp!.headers.get('x-trace')).toBe('t1');
    expect(call!.method).toBe('POST');
    expect(call!.headers.get('idempotency-key')).toBe('order-1');
    expect(call!.headers.get('content-type')).toBe('application/json');
    expect(call!.headers.get('x-trace')).toBe('t1');
    expect(call!.headers.get('x-call')).toBe('c1');
  });

  it('waitForConfirmation sends its headers with every read', async () => {
    api.reply(() => json(reservationBody({ confirmed: true })));
    await api.client().reservations.waitForConfirmation(7, 41, {
      deadlineMs: 10_000,
      headers: { traceparent: '00-wait-01' },
    });
    expect(api.calls.map((call) => call.headers.get('traceparent'))).toEqual(['00-wait-01']);
  });

  it.each([
    ['defaultHeaders.Authorization', { Authorization: 'Bearer other' }],
    ['defaultHeaders.idempotency-key', { 'idempotency-key': 'k' }],
    ['defaultHeaders.Content-Type', { 'Content-Type': 'text/plain' }],
    ['defaultHeaders.bad name', { 'bad name': 'x' }],
    ['defaultHeaders.x-injected', { 'x-injected': 'a\r\nAuthorization: Basic x' }],
    ['defaultHeaders.x-number', { 'x-number': 5 }],
    ['defaultHeaders.x-removed', { 'x-removed': null }],
    ['defaultHeaders.x-emoji', { 'x-emoji': 'tracé 🍷' }],
    ['defaultHeaders', 'traceparent: 00'],
  ] as [string, unknown][])('refuses defaultHeaders at construction, naming %s', (field, defaultHeaders) => {
    let caught: unknown;
    try {
      api.client({ defaultHeaders: defaultHeaders as never });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InputValidationError);
    expect((caught as InputValidationError).field).toBe(field);
  });

  it('refuses per-call headers the SDK owns before any request, even a create whose timezone is unknown', async () => {
    const client = api.client();
    const create = client.reservations.create(
      7,
      { start_time: '2026-12-05T19:30', adults: 2 },
      { headers: { 'Idempotency-Key': 'mine' } },
    );
    await expect(create).rejects.toBeInstanceOf(InputValidationError);
    await expect(create).rejects.toMatchObject({ field: 'headers.Idempotency-Key' });
    await expect(client.restaurants.list({ headers: { accept: 'text/html' } })).rejects.toMatchObject({
      field: 'headers.accept',
    });
    await expect(client.profile.retrieve({ headers: { 'x-bad': 'a\nb' } })).rejects.toMatchObject({
      field: 'headers.x-bad',
    });
    expect(api.calls).toHaveLength(0);
  });
});

describe('withOptions', () => {
  it('returns a copy with the overrides, the same credentials, and this client unchanged', async () => {
    api.always(() => json([]));
    const client = api.client({ timeoutMs: 5_000 });
    const copy = client.withOptions({ timeoutMs: 60_000, defaultHeaders: { 'x-job': 'nightly' } });
    expect(copy).toBeInstanceOf(PartnerClient);
    expect(copy.toJSON()).toMatchObject({ timeoutMs: 60_000, partnerId: PARTNER_ID, baseUrl: BASE_URL });
    expect(client.toJSON()).toMatchObject({ timeoutMs: 5_000 });
    await copy.restaurants.list();
    await client.restaurants.list();
    expect(api.calls[0]!.headers.get('authorization')).toBe(BASIC_HEADER);
    expect(api.calls[0]!.headers.get('x-job')).toBe('nightly');
    expect(api.calls[1]!.headers.get('x-job')).toBeNull();
    expectNoSecret(JSON.stringify(copy) + String(Object.keys(copy)));
  });

  it("merges defaultHeaders over the client's, null removing one", async () => {
    api.always(() => json([]));
    const client = api.client({ defaultHeaders: { traceparent: '00-abc-def-01', 'x-team': 'bookings' } });
    await client.withOptions({ defaultHeaders: { 'X-Tenant': 't1', 'x-team': null } }).restaurants.list();
    expect(api.calls[0]!.headers.get('traceparent')).toBe('00-abc-def-01');
    expect(api.calls[0]!.headers.get('x-tenant')).toBe('t1');
    expect(api.calls[0]!.headers.get('x-team')).toBeNull();
  });

  it("keeps this client's hooks and fetch unless overridden", async () => {
    const seen: string[] = [];
    const client = api.client({
      hooks: { onRequest: (event) => void seen.push(`hook ${event.method}`) },
      fetch: (input, init) => {
        seen.push('fetch');
        return fetch(input, init);
      },
    });
    api.always(() => json([]));
    await client.withOptions({ maxRetries: 0 }).restaurants.list();
    expect(seen).toEqual(['hook GET', 'fetch']);
  });

  it('shares the rate limiter unless rateLimit is overridden', () => {
    const client = api.client({ rateLimit: { requestsPerSecond: 1 } });
    expect(client.withOptions({ maxRetries: 0 }).rateLimiter).toBe(client.rateLimiter);
    expect(client.withOptions({}).withOptions({ timeoutMs: 1_000 }).rateLimiter).toBe(client.rateLimiter);
    const own = createRateLimiter({ requestsPerSecond: 2 });
    expect(client.withOptions({ rateLimit: own }).rateLimiter).toBe(own);
    expect(client.withOptions({ rateLimit: false }).rateLimiter).toBeUndefined();
  });

  it('shares the timezone cache both ways for the same partner and service, not for another', async () => {
    api.reply(() => json([restaurantBody({ id: 7, timezone: 'Europe/Brussels' })]));
    const client = api.client();
    const copy = client.withOptions({ maxRetries: 1 });
    await client.restaurants.list().toArray();
    api.reply(createdAnswer());
    await copy.reservations.create(7, { start_time: '2026-12-05T19:30', adults: 2 });
    // The copy spent no request on the timezone: the parent's list read filled the shared cache.
    expect(api.calls.map((call) => call.method)).toEqual(['GET', 'POST']);
    expect((api.calls[1]!.body as { start_time: string }).start_time).toBe('2026-12-05T19:30:00+01:00');

    const otherPartner = client.withOptions({ partnerId: '0b7c4f0e-1111-4c55-8f0e-2b7f3c0d4e11' });
    api.reply(() => json([restaurantBody({ id: 7, timezone: 'America/New_York' })]), createdAnswer());
    await otherPartner.reservations.create(7, { start_time: '2026-12-05T19:30', adults: 2 });
    expect(api.calls.slice(2).map((call) => call.method)).toEqual(['GET', 'POST']);
    expect((api.calls[3]!.body as { start_time: string }).start_time).toBe('2026-12-05T19:30:00-05:00');
  });

  it('a copy does not put back a known zone the service has corrected since', async () => {
    api.reply(() => json([restaurantBody({ id: 7, timezone: 'Europe/Lisbon' })]), createdAnswer());
    const client = api.client({ restaurantTimezones: { 7: 'Europe/Brussels' } });
    await client.restaurants.list().toArray();
    await client
      .withOptions({ maxRetries: 0 })
      .reservations.create(7, { start_time: '2026-12-05T19:30', adults: 2 });
    expect((api.calls[1]!.body as { start_time: string }).start_time).toBe('2026-12-05T19:30:00+00:00');
  });

  it('checks the overrides like a new client, naming the field', () => {
    const client = api.client();
    expect(() => client.withOptions({ timeoutMs: -1 })).toThrow(InputValidationError);
    expect(() => client.withOptions({ defaultHeaders: { authorization: 'x' } })).toThrow(
      /defaultHeaders\.authorization/,
    );
    expect(() => client.withOptions(null as never)).toThrow(InputValidationError);
  });
});

describe('response validation', () => {
  const offContract = createdAnswer({ adults: 'two', guest_note: 'kept' });

  it('is strict by default: an off-contract answer throws ResponseValidationError naming the field', async () => {
    api.reply(() => json(reservationBody({ adults: 'two' })));
    const error = await api
      .client()
      .reservations.retrieve(7, 41)
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.field).toBe('adults');
    // The way out is in the message an operator reads.
    expect(error.message).toContain('RESTAURANT_PARTNER_RESPONSE_VALIDATION=warn');
  });

  it("'warn' returns the data as received and logs one redacted warning naming the field; a create is not sent twice", async () => {
    api.reply(offContract);
    const logger = recordingLogger();
    const client = api.client({
      logger,
      responseValidation: 'warn',
      restaurantTimezones: { 7: 'Europe/Brussels' },
    });
    const reservation = await client.reservations.create(7, {
      start_time: '2026-12-05T19:30',
      adults: 2,
      first_name: 'Ada',
    });
    expect(reservation).toMatchObject({ id: 41, adults: 'two', guest_note: 'kept' });
    expect(api.calls).toHaveLength(1);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatchObject({ level: 'warn', context: { fields: ['adults'], method: 'POST' } });
    expect(logger.lines[0]!.message).toContain('adults');
    // The answer's own values (guests' names) stay out of the log.
    expect(logger.text()).not.toContain('Lovelace');
    expectNoSecret(logger.text());
  });

  it("'warn' logs one warning per answer, however many items of a page are off contract, and never a webhook token", async () => {
    api.reply(() =>
      json([
        webhookBody({ id: 1, is_enabled: 'yes', auth_token: 'whk_secret_123456' }),
        webhookBody({ id: 2, is_enabled: 'no' }),
      ]),
    );
    const logger = recordingLogger();
    const webhooks = await api.client({ logger, responseValidation: 'warn' }).webhooks.list().toArray();
    expect(webhooks.map((webhook) => webhook.id)).toEqual([1, 2]);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]!.context).toMatchObject({ fields: ['0.is_enabled', '1.is_enabled'] });
    expect(logger.text()).not.toContain('whk_secret_123456');
  });

  it('RESTAURANT_PARTNER_RESPONSE_VALIDATION=warn switches it without a code change; the option wins; a bad option is refused', async () => {
    process.env.RESTAURANT_PARTNER_RESPONSE_VALIDATION = 'warn';
    api.reply(
      () => json(reservationBody({ adults: 'two' })),
      () => json(reservationBody({ adults: 'two' })),
    );
    expect((await api.client().reservations.retrieve(7, 41)).adults).toBe('two');
    await expect(
      api.client({ responseValidation: 'strict' }).reservations.retrieve(7, 41),
    ).rejects.toBeInstanceOf(ResponseValidationError);
    expect(() => api.client({ responseValidation: 'lenient' as never })).toThrow(/responseValidation/);
  });
});

describe('known restaurant timezones', () => {
  it('restaurantTimezones seeds the cache: the first create spends no request on the restaurants list', async () => {
    api.reply(createdAnswer());
    const client = api.client({ restaurantTimezones: { 7: 'Europe/Brussels' } });
    await client.reservations.create(7, { start_time: { date: '2026-07-05', time: '19:30' }, adults: 2 });
    expect(api.calls.map((call) => call.method)).toEqual(['POST']);
    expect((api.calls[0]!.body as { start_time: string }).start_time).toBe('2026-07-05T19:30:00+02:00');
  });

  it("a restaurants list replaces a known zone with the service's, but a list without one keeps it", async () => {
    api.reply(
      () =>
        json([
          restaurantBody({ id: 7, timezone: 'Europe/Lisbon' }),
          restaurantBody({ id: 8, timezone: null }),
        ]),
      createdAnswer(),
      createdAnswer(),
    );
    const client = api.client({ restaurantTimezones: { 7: 'Europe/Brussels', 8: 'Asia/Tokyo' } });
    await client.restaurants.list().toArray();
    await client.reservations.create(7, { start_time: '2026-12-05T19:30', adults: 2 });
    await client.reservations.create(8, { start_time: '2026-12-05T19:30', adults: 2 });
    expect(api.calls.slice(1).map((call) => (call.body as { start_time: string }).start_time)).toEqual([
      '2026-12-05T19:30:00+00:00',
      '2026-12-05T19:30:00+09:00',
    ]);
  });

  it('a per-call timezone is used without any look-up', async () => {
    api.reply(createdAnswer());
    await api
      .client()
      .reservations.create(9, { start_time: '2026-12-05T19:30', adults: 2 }, { timezone: 'Asia/Tokyo' });
    expect(api.calls.map((call) => call.method)).toEqual(['POST']);
    expect((api.calls[0]!.body as { start_time: string }).start_time).toBe('2026-12-05T19:30:00+09:00');
  });

  it('refuses a zone that is not IANA, naming the field, before any request', async () => {
    expect(() => api.client({ restaurantTimezones: { 12: 'Europe/Bruxelles' } })).toThrow(
      /restaurantTimezones\.12/,
    );
    expect(() => api.client({ restaurantTimezones: { 12: 'UTC+1' } })).toThrow(InputValidationError);
    expect(() => api.client({ restaurantTimezones: 'Europe/Brussels' as never })).toThrow(
      /restaurantTimezones/,
    );
    const create = api
      .client()
      .reservations.create(9, { start_time: '2026-12-05T19:30', adults: 2 }, { timezone: 'CET+1' });
    await expect(create).rejects.toMatchObject({ name: 'InputValidationError', field: 'timezone' });
    expect(api.calls).toHaveLength(0);
  });
});

describe('pages', () => {
  it('getNextPage() past the end rejects with a PartnerSdkError, and hasNextPage() says so beforehand', async () => {
    api.reply(() => json({ count: 1, next: null, results: [restaurantBody()] }));
    const page = await api.client().restaurants.list();
    expect(page.hasNextPage()).toBe(false);
    const error = await page.getNextPage().catch((caught) => caught);
    expect(error).toBeInstanceOf(PartnerSdkError);
    expect(error.message).toContain('hasNextPage()');
    expect(api.calls).toHaveLength(1);
  });
});

describe('baseUrl given with the API prefix', () => {
  it.each([
    [`${BASE_URL}/api/v1/partnership/`, `${BASE_URL}/api/v1/partnership/restaurants/`],
    [`${BASE_URL}/api/v1/partnership`, `${BASE_URL}/api/v1/partnership/restaurants/`],
    [`${BASE_URL}/gateway/api/v1/partnership/`, `${BASE_URL}/gateway/api/v1/partnership/restaurants/`],
  ])('%s is used without doubling the prefix', async (baseUrl, expected) => {
    const logger = recordingLogger();
    api.reply(() => json([]));
    const client = api.client({ baseUrl, logger, logLevel: 'debug' });
    await client.restaurants.list();
    expect(api.calls[0]!.url.href).toBe(expected);
    expect(client.baseUrl).toBe(baseUrl.slice(0, baseUrl.indexOf('/api/v1/partnership')));
    expect(logger.lines[0]!.message).toContain('appends itself');
  });

  it("refuses an operation's URL, naming baseUrl", () => {
    expect(() => api.client({ baseUrl: `${BASE_URL}/api/v1/partnership/restaurants/` })).toThrow(/baseUrl/);
  });
});

describe('reading the environment on Deno', () => {
  const host = globalThis as { Deno?: unknown };
  afterEach(() => {
    delete host.Deno;
  });

  function fakeDeno(state: 'granted' | 'prompt' | 'denied') {
    const asked: string[] = [];
    host.Deno = {
      permissions: { querySync: () => ({ state }) },
      env: {
        get: (name: string) => {
          asked.push(name);
          return name === 'RESTAURANT_PARTNER_LOG' ? 'debug' : undefined;
        },
      },
    };
    return asked;
  }

  it('reads Deno.env when env access is granted', () => {
    fakeDeno('granted');
    expect(readEnvironment('RESTAURANT_PARTNER_LOG')).toBe('debug');
    expect(api.client({ logger: recordingLogger() }).toJSON()).toMatchObject({ logLevel: 'debug' });
  });

  it('never asks Deno.env (which would prompt the user) when access is not granted, nor falls back to process.env', () => {
    process.env.RESTAURANT_PARTNER_LOG = 'debug';
    for (const state of ['prompt', 'denied'] as const) {
      const asked = fakeDeno(state);
      expect(readEnvironment('RESTAURANT_PARTNER_LOG')).toBeUndefined();
      expect(asked).toEqual([]);
    }
  });
});
