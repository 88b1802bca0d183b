import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  AbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  isPartnerSdkError,
  NotFoundError,
  PartnerApiError,
  PartnerClient,
  PartnerSdkError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
  type Logger,
  type RequestEvent,
} from 'restaurant-partner-sdk';
import { HttpResponse } from 'msw';
import { createClockRateLimiter } from 'restaurant-partner-sdk/testing';
import { createManualClock } from '../support/manual-clock.js';
import {
  API_TOKEN,
  BASIC_HEADER,
  json,
  mockApi,
  PARTNER_ID,
  restaurantBody,
} from '../support/hostile-server.js';
import { reservationBody } from '../support/reservation.js';

const api = mockApi();

describe('status -> error class', () => {
  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [418, PartnerApiError],
    [422, BadRequestError],
    [500, ServerError],
    [503, ServerError],
  ])('%i -> %o with status, method, redacted url, headers, body, attempts', async (status, errorClass) => {
    api.always(() => json({ detail: 'nope' }, status, { 'x-trace': 't1' }));
    const error = await api
      .client({ maxRetries: 0 })
      .restaurants.list()
      .toArray()
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(errorClass);
    expect(error).toBeInstanceOf(PartnerSdkError);
    expect(isPartnerSdkError(error, PartnerApiError)).toBe(true);
    expect(error.status).toBe(status);
    expect(error.method).toBe('GET');
    expect(error.url).toBe('https://api.partner.test/api/v1/partnership/restaurants/');
    expect(error.headers['x-trace']).toBe('t1');
    expect(error.body).toEqual({ detail: 'nope' });
    expect(error.detail).toBe('nope');
    expect(error.attempts).toBe(1);
    expect(error.message).toContain(String(status));
  });

  it('429 -> RateLimitError with retryAfterMs after the retries run out', async () => {
    api.always(() => json({ detail: 'slow' }, 429, { 'retry-after': '2' }));
    const error = await api
      .client({ maxRetries: 2 })
      .restaurants.list()
      .toArray()
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(isPartnerSdkError(error, RateLimitError)).toBe(true);
    expect(error.retryAfterMs).toBe(2000);
    expect(error.attempts).toBe(3);
  });

  it('a non-JSON error body is kept as text', async () => {
    api.always(() => new HttpResponse('upstream exploded', { status: 502 }));
    const error = await api
      .client({ maxRetries: 0 })
      .restaurants.list()
      .toArray()
      .catch((caught) => caught);
    expect(error.body).toBe('upstream exploded');
  });

  it('a network failure -> ConnectionError', async () => {
    api.always(() => HttpResponse.error());
    const error = await api
      .client({ maxRetries: 0 })
      .restaurants.list()
      .toArray()
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.method).toBe('GET');
  });

  it('a slow answer -> TimeoutError after timeoutMs (per call override)', async () => {
    api.always(async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return json([]);
    });
    const error = await api
      .client({ maxRetries: 0 })
      .restaurants.list({ timeoutMs: 20 })
      .toArray()
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
  });
});

describe('retries', () => {
  it('retries GET after 500 / 408 / network error with jittered backoff through the clock', async () => {
    const clock = createManualClock({ autoAdvance: true });
    api.reply(
      () => json({}, 500),
      () => json({}, 408),
      () => HttpResponse.error(),
      () => json([restaurantBody()]),
    );
    const list = await api.client({ clock }).restaurants.list().toArray();
    expect(list).toHaveLength(1);
    expect(api.calls).toHaveLength(4);
    expect(clock.sleeps).toHaveLength(3);
    clock.sleeps.forEach((ms, index) => {
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThan(500 * 2 ** index);
    });
  });

  it('never retries a 4xx other than 408/429', async () => {
    api.always(() => json({ detail: 'no' }, 404));
    await expect(api.client().restaurants.list().toArray()).rejects.toBeInstanceOf(NotFoundError);
    expect(api.calls).toHaveLength(1);
  });

  it('does not retry a webhook create after a 500 (a repeat could register it twice)', async () => {
    api.always(() => json({ detail: 'boom' }, 500));
    await expect(api.client().webhooks.create({ url: 'https://p.test/h' })).rejects.toBeInstanceOf(
      ServerError,
    );
    expect(api.calls).toHaveLength(1);
  });

  it('honours maxRetries per call and per client', async () => {
    api.always(() => json({}, 503));
    await api
      .client({ maxRetries: 5 })
      .profile.retrieve({ maxRetries: 1 })
      .catch(() => undefined);
    expect(api.calls).toHaveLength(2);
    api.calls.length = 0;
    await api
      .client({ maxRetries: 0 })
      .profile.retrieve()
      .catch(() => undefined);
    expect(api.calls).toHaveLength(1);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const clock = createManualClock({ autoAdvance: true });
    const inFive = new Date(clock.now() + 5000).toUTCString();
    api.reply(
      () => json({}, 429, { 'retry-after': inFive }),
      () => json([]),
    );
    await api.client({ clock }).restaurants.list().toArray();
    expect(clock.sleeps).toEqual([5000]);
  });

  it('caps a huge Retry-After at 60 s', async () => {
    const clock = createManualClock({ autoAdvance: true });
    api.reply(
      () => json({}, 429, { 'retry-after': '86400' }),
      () => json([]),
    );
    await api.client({ clock }).restaurants.list().toArray();
    expect(clock.sleeps).toEqual([60_000]);
  });

  it('a 429 pauses the whole bucket: another call on the same limiter waits too', async () => {
    const clock = createManualClock();
    const limiter = createClockRateLimiter({ requestsPerSecond: 10, clock });
    const sentAt: Record<string, number> = {};
    let first = true;
    api.always((call) => {
      if (call.route === '/profile/' && first) {
        first = false;
        return json({}, 429, { 'retry-after': '4' });
      }
      sentAt[call.route] ??= clock.now();
      return json(call.route === '/profile/' ? { uuid: PARTNER_ID } : []);
    });
    const client = api.client({ clock, rateLimit: limiter });
    const start = clock.now();
    const profile = client.profile.retrieve();
    await clock.advance(10);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const other = client.restaurants.list().toArray();
    await clock.advance(200);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(sentAt['/restaurants/']).toBeUndefined();
    await clock.advance(5000);
    for (let index = 0; index < 10 && Object.keys(sentAt).length < 2; index++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      await clock.advance(200);
    }
    await Promise.all([profile, other]);
    expect(sentAt['/restaurants/']! - start).toBeGreaterThanOrEqual(4000);
  });

  it('every attempt and page waits for the throttle (1 req/s)', async () => {
    const clock = createManualClock();
    const sentAt: number[] = [];
    api.always((call) => {
      sentAt.push(clock.now());
      return call.url.searchParams.get('page') === '3'
        ? json({ next: null, results: [] })
        : json({
            next: `?page=${Number(call.url.searchParams.get('page') ?? 1) + 1}`,
            results: [reservationBody()],
          });
    });
    const client = new PartnerClient({
      baseUrl: 'https://api.partner.test',
      partnerId: PARTNER_ID,
      apiToken: API_TOKEN,
      clock,
      rateLimit: createClockRateLimiter({ requestsPerSecond: 1, clock }),
    });
    const all = client.reservations.list(7).toArray();
    for (let index = 0; index < 30 && sentAt.length < 3; index++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      await clock.advance(250);
    }
    await all;
    expect(sentAt).toHaveLength(3);
    expect(sentAt[1]! - sentAt[0]!).toBeGreaterThanOrEqual(1000);
    expect(sentAt[2]! - sentAt[1]!).toBeGreaterThanOrEqual(1000);
  });
});

describe('abort', () => {
  it('during the throttle wait: AbortError, nothing sent, queue freed', async () => {
    const clock = createManualClock();
    const limiter = createClockRateLimiter({ requestsPerSecond: 1, clock });
    api.always(() => json([]));
    const client = api.client({ clock, rateLimit: limiter });
    await client.restaurants.list().toArray();
    const controller = new AbortController();
    const waiting = client.restaurants.list({ signal: controller.signal }).toArray();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(limiter.queueDepth).toBe(1);
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(AbortError);
    expect(limiter.queueDepth).toBe(0);
    expect(api.calls).toHaveLength(1);
  });

  it('during a retry sleep', async () => {
    const clock = createManualClock();
    api.always(() => json({}, 503));
    const controller = new AbortController();
    const call = api.client({ clock }).profile.retrieve({ signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(clock.pendingSleeps).toBe(1);
    controller.abort();
    await expect(call).rejects.toBeInstanceOf(AbortError);
    expect(api.calls).toHaveLength(1);
  });

  it('during the request', async () => {
    api.always(async () => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      return json([]);
    });
    const controller = new AbortController();
    const call = api.client().restaurants.list({ signal: controller.signal }).toArray();
    setTimeout(() => controller.abort(), 20);
    await expect(call).rejects.toBeInstanceOf(AbortError);
  });

  it('an already aborted signal sends nothing', async () => {
    await expect(api.client().profile.retrieve({ signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      AbortError,
    );
    expect(api.calls).toHaveLength(0);
  });
});

describe('hooks and logger', () => {
  it('onRequest, onResponse, onRetry and onRateLimited get method, redacted url, attempt, status, delay and never credentials', async () => {
    const events: [string, RequestEvent][] = [];
    const record = (name: string) => (event: RequestEvent) => events.push([name, event]);
    api.reply(
      () => json({}, 429, { 'retry-after': '1' }),
      () => json({}, 500),
      () => json([]),
    );
    await api
      .client({
        hooks: {
          onRequest: record('request'),
          onResponse: record('response'),
          onRetry: record('retry'),
          onRateLimited: record('rateLimited'),
        },
      })
      .restaurants.list()
      .toArray();
    expect(events.map(([name, event]) => [name, event.attempt, event.status ?? null])).toEqual([
      ['request', 1, null],
      ['response', 1, 429],
      ['rateLimited', 1, 429],
      ['retry', 1, 429],
      ['request', 2, null],
      ['response', 2, 500],
      ['retry', 2, 500],
      ['request', 3, null],
      ['response', 3, 200],
    ]);
    expect(events.find(([name]) => name === 'rateLimited')![1].delayMs).toBe(1000);
    const dump = JSON.stringify(events);
    expect(dump).not.toContain(API_TOKEN);
    expect(dump).not.toContain(BASIC_HEADER.slice(6));
    expect(events[0]![1]).toMatchObject({
      method: 'GET',
      url: 'https://api.partner.test/api/v1/partnership/restaurants/',
    });
  });

  it('a throwing hook is logged and ignored', async () => {
    const warnings: string[] = [];
    const logger: Logger = { warn: (message) => warnings.push(message), error: () => undefined };
    api.reply(() => json([]));
    await api
      .client({
        logger,
        hooks: {
          onRequest: () => {
            throw new Error('hook bug');
          },
        },
      })
      .restaurants.list()
      .toArray();
    expect(warnings.some((line) => line.includes('onRequest'))).toBe(true);
  });

  it('warns once about a non-loopback http baseUrl, not about https or localhost', () => {
    const warnings: string[] = [];
    const logger: Logger = { warn: (message) => warnings.push(message), error: () => undefined };
    const make = (baseUrl: string) =>
      new PartnerClient({ baseUrl, partnerId: PARTNER_ID, apiToken: API_TOKEN, logger });
    make('http://api.partner.test');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('http');
    make('https://api.partner.test');
    make('http://localhost:8080');
    make('http://127.0.0.1:8080');
    make('http://[::1]:8080');
    expect(warnings).toHaveLength(1);
  });

  it('debug lines go to a custom logger at logLevel debug and never carry the token', async () => {
    const lines: string[] = [];
    const logger: Logger = {
      debug: (message, context) => lines.push(message + JSON.stringify(context)),
      info: (message, context) => lines.push(message + JSON.stringify(context)),
      warn: (message) => lines.push(message),
      error: (message) => lines.push(message),
    };
    api.reply(
      () => json({}, 503),
      () => json([]),
    );
    await api.client({ logger, logLevel: 'debug' }).restaurants.list().toArray();
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines.join('\n')).not.toContain(API_TOKEN);
  });
});

describe('secrets', () => {
  it('the client never shows its token in JSON.stringify or util.inspect', () => {
    const client = api.client();
    expect(JSON.stringify(client)).not.toContain(API_TOKEN);
    expect(JSON.stringify(client)).toContain(PARTNER_ID);
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(API_TOKEN);
    expect(inspect(client, { depth: 10 })).not.toContain(BASIC_HEADER.slice(6));
  });

  it('errors hold no token or Authorization header, even when dumped whole', async () => {
    api.always(() => json({ detail: 'bad credentials' }, 401));
    const error = await api
      .client()
      .profile.retrieve()
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(AuthenticationError);
    for (const dump of [
      JSON.stringify(error),
      inspect(error, { depth: 10, showHidden: true }),
      String(error.stack),
      error.message,
    ]) {
      expect(dump).not.toContain(API_TOKEN);
      expect(dump).not.toContain(BASIC_HEADER.slice(6));
    }
  });

  it('timeout and connection errors hold no Authorization header, even deep in their cause', async () => {
    api.reply(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        return json([]);
      },
      () => HttpResponse.error(),
    );
    const client = api.client({ maxRetries: 0, timeoutMs: 20 });
    const timeout = await client.profile.retrieve().catch((caught) => caught);
    const dropped = await client.profile.retrieve().catch((caught) => caught);
    expect(timeout).toBeInstanceOf(TimeoutError);
    expect(dropped).toBeInstanceOf(ConnectionError);
    for (const error of [timeout, dropped]) {
      const dump = inspect(error, { depth: 20, showHidden: true });
      expect(dump).not.toContain(API_TOKEN);
      expect(dump).not.toContain(BASIC_HEADER.slice(6));
    }
  });

  it('refuses credentials inside baseUrl without echoing them', () => {
    let caught: unknown;
    try {
      new PartnerClient({
        baseUrl: 'https://user:pw-secret@api.partner.test',
        partnerId: PARTNER_ID,
        apiToken: API_TOKEN,
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ name: 'InputValidationError', field: 'baseUrl' });
    expect(String((caught as Error).message)).not.toContain('pw-secret');
  });
});

describe('a body kept on an error', () => {
  it('a ResponseValidationError is built from an answer nested far deeper than the stack allows', () => {
    const body = JSON.parse(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`);
    const error = new ResponseValidationError(
      [{ field: 'id', path: ['id'], code: 'invalid_type', message: 'expected number' }],
      { method: 'GET', url: 'https://x.test/', body },
    );
    expect(error.field).toBe('id');
    expect(JSON.stringify(error.body)).toContain('[Truncated]');
  });
});
