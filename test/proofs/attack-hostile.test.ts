/**
 * An independent attack on the client's promises, beyond the cases of hostile.test.ts: hooks and
 * loggers that throw, compressed answers larger than they declare, concurrent creates sharing a
 * caller's key, a create answered with someone else's reservation, webhook tokens in answers
 * outside the contract, and a shared timezone look-up. Real node:http servers on loopback, the
 * package's public names, bookings on the server counted against what the client reported.
 */
import { deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  AmbiguousCreateError,
  PartnerClient,
  PartnerSdkError,
  ResponseTooLargeError,
} from 'restaurant-partner-sdk';
import {
  HOSTILE_API,
  KEY_FIELD,
  bookingWire,
  restaurantWire,
  startRawServer,
  wellBehaved,
  type HostileHandler,
} from '../support/hostile-server.js';
import { hostileProofs, settle } from './support/balance.js';
import { capturingLogger, findSecrets, renderError, secretForms } from './support/leaks.js';
import { basicCredentials } from '../support/basic-auth.js';

const PARTNER_ID = '5a1c9e2b-3d4f-4a6b-8c7d-9e0f1a2b3c4d';
const API_TOKEN = 'attack+token/Value=77-a1b2c3d4e5';
const SECRETS = secretForms(PARTNER_ID, API_TOKEN);
const input = { start_time: '2026-12-05T19:30:00', adults: 2 };

const { setUp, expectBalanced } = hostileProofs('attack', {
  partnerId: PARTNER_ID,
  apiToken: API_TOKEN,
});

const isList = (request: { method: string; path: string }) =>
  request.method === 'GET' && request.path.endsWith('/reservations/');

describe('creates: nothing duplicated, nothing told wrong', () => {
  it('two creates at once with the same caller key (a service that ignores the header): one booking, both told it', async () => {
    const { server, client } = await setUp(wellBehaved);
    const [a, b] = await Promise.all([
      settle(() => client.reservations.create(1, input, { idempotencyKey: 'order-42' })),
      settle(() => client.reservations.create(1, input, { idempotencyKey: 'order-42' })),
    ]);
    expectBalanced('two at once with one key, first', server, 'order-42', a);
    expectBalanced('two at once with one key, second', server, 'order-42', b);
    expect(server.posts()).toHaveLength(1);
    expect(b.value?.id).toBe(a.value?.id);
  });

  it('two creates at once with the same caller key, the first ambiguous (504, commit after the window): the second sends nothing', async () => {
    const { server, client, clock } = await setUp((request, tools) => {
      if (request.method === 'POST') {
        tools.commitLater(request, 30_000);
        return tools.json(504, {});
      }
      return wellBehaved(request, tools);
    });
    const [a, b] = await Promise.all([
      settle(() => client.reservations.create(1, input, { idempotencyKey: 'order-43' })),
      settle(() => client.reservations.create(1, input, { idempotencyKey: 'order-43' })),
    ]);
    await clock.advance(30_000);
    server.commitDue();
    expect(a.error).toBeInstanceOf(AmbiguousCreateError);
    expect(b.error).toBeInstanceOf(AmbiguousCreateError);
    expectBalanced('two at once with one key, 504, first', server, 'order-43', a);
    expectBalanced('two at once with one key, 504, second', server, 'order-43', b);
    expect(server.posts()).toHaveLength(1);
  });

  it("a 201 answering with another create's reservation is not taken for this one: looked up, then ambiguous", async () => {
    const { server, client } = await setUp(
      (request, tools) => {
        if (request.method === 'POST') {
          if (server.bookings.length === 0)
            tools.commit({
              ...request,
              body: { ...(request.body as object), metadata: { [KEY_FIELD]: 'someone-else' } },
            });
          return tools.json(201, tools.list()[0]);
        }
        return wellBehaved(request, tools);
      },
      { createLookupWindowMs: 0 },
    );
    const outcome = await settle(() => client.reservations.create(1, input, { idempotencyKey: 'mine' }));
    expectBalanced('201 with another reservation', server, 'mine', outcome);
    expect(outcome.error).toBeInstanceOf(AmbiguousCreateError);
    expect(server.posts()).toHaveLength(1);
  });

  it('a 429, then a 502 on the resend while the origin commits: one booking, found by its key', async () => {
    let posts = 0;
    const { server, client } = await setUp((request, tools) => {
      if (request.method === 'POST') {
        posts += 1;
        if (posts === 1) return tools.json(429, { detail: 'slow' }, { 'retry-after': '2' });
        tools.commitLater(request, 1500);
        return tools.json(502, { detail: 'bad gateway' });
      }
      return wellBehaved(request, tools);
    });
    const outcome = await settle(() => client.reservations.create(1, input, { idempotencyKey: 'k429-502' }));
    expectBalanced('429 then 502', server, 'k429-502', outcome);
    expect(outcome.value).toBeDefined();
  });

  it('a 504 whose look-ups answer 429 with a huge Retry-After: ambiguous by the deadline, never resent', async () => {
    const { server, client, clock } = await setUp(
      (request, tools) => {
        if (request.method === 'POST') {
          tools.commit(request);
          return tools.json(504, {});
        }
        if (isList(request)) return tools.json(429, { detail: 'slow' }, { 'retry-after': '100000' });
        return wellBehaved(request, tools);
      },
      { deadlineMs: 30_000 },
    );
    const startedAt = clock.now();
    const outcome = await settle(() => client.reservations.create(1, input));
    expect(outcome.error).toBeInstanceOf(AmbiguousCreateError);
    expectBalanced(
      '504, then look-ups answered 429 for ever',
      server,
      (outcome.error as AmbiguousCreateError).idempotencyKey,
      outcome,
    );
    expect(server.posts()).toHaveLength(1);
    expect(clock.now() - startedAt).toBeLessThanOrEqual(30_000);
  });

  for (const status of [201, 202]) {
    it(`a ${status} with only a Location and an empty body: the booking, found by its key`, async () => {
      const { server, client } = await setUp((request, tools) => {
        if (request.method === 'POST') {
          const booked = tools.commit(request);
          tools.response.writeHead(status, { location: `${request.path}${booked.id as number}/` });
          return tools.response.end();
        }
        return wellBehaved(request, tools);
      });
      const outcome = await settle(() =>
        client.reservations.create(1, input, { idempotencyKey: `loc-${status}` }),
      );
      expectBalanced(`${status} Location only`, server, `loc-${status}`, outcome);
      expect(outcome.value).toBeDefined();
    });
  }
});

describe('writes never follow redirects; secrets never leak; malformed HTTP', () => {
  it('a 307 answering a cancel (PATCH) or a delete is not followed: one request each, an error with the 3xx status', async () => {
    const { server, client } = await setUp((request, tools) => {
      tools.response.writeHead(307, { location: `${request.path}?again=1` });
      tools.response.end();
    });
    const cancel = await client.reservations.cancel(1, 5).catch((e: unknown) => e);
    const del = await client.webhooks.delete(5).catch((e: unknown) => e);
    expect((cancel as { status: number }).status).toBe(307);
    expect((del as { status: number }).status).toBe(307);
    expect(server.requests).toHaveLength(2);
  });

  it('the token echoed in WWW-Authenticate, Retry-After, JSON keys, an enum, after a long string, split across chunks: scrubbed', async () => {
    const basic = basicCredentials(PARTNER_ID, API_TOKEN);
    const { client, logger, hooks } = await setUp(
      (request, tools) => {
        const route = request.path.slice(HOSTILE_API.length);
        if (route === '/profile/')
          return tools.json(
            401,
            { detail: `bad ${API_TOKEN}` },
            { 'www-authenticate': `Basic realm="${request.headers.authorization}", error="${API_TOKEN}"` },
          );
        if (route === '/restaurants/')
          return tools.json(429, { [API_TOKEN]: 1 }, { 'retry-after': API_TOKEN });
        if (route === '/restaurants/1/reservations/' && request.method === 'GET') {
          return tools.json(200, [
            {
              ...bookingWire({ id: 1, key: 'a', body: input }),
              confirmation_mode: API_TOKEN,
              adults: basic,
              first_name: `${'x'.repeat(5000)}${API_TOKEN}`,
            },
          ]);
        }
        if (route === '/webhooks/') {
          tools.response.writeHead(503, { 'content-type': 'application/json' });
          const text = JSON.stringify({ detail: `${'y'.repeat(3000)}${API_TOKEN}${basic}` });
          const split = text.indexOf(API_TOKEN) + 5;
          tools.response.write(text.slice(0, split));
          setTimeout(() => tools.response.end(text.slice(split)), 20);
          return;
        }
        return tools.json(404, { detail: API_TOKEN });
      },
      { maxRetries: 0 },
    );
    const errors: unknown[] = [];
    const keep = (p: PromiseLike<unknown>) =>
      Promise.resolve(p).then(
        () => errors.push(new Error('resolved')),
        (e: unknown) => errors.push(e),
      );
    await keep(client.profile.retrieve());
    await keep(client.restaurants.list());
    await keep(client.reservations.list(1));
    await keep(client.webhooks.list());
    expect(errors.map((e) => (e as Error).name)).toEqual([
      'AuthenticationError',
      'RateLimitError',
      'ResponseValidationError',
      'ServerError',
    ]);
    const forms = [...SECRETS, basic.replace(/=+$/, ''), API_TOKEN.slice(0, 16), API_TOKEN.slice(-16)];
    expect(findSecrets([...errors.flatMap(renderError), ...logger.lines, ...hooks.payloads], forms)).toEqual(
      [],
    );
  });

  it('raw HTTP: an endless header block and 3000 Set-Cookie carrying the token fail cleanly; an HTTP/1.0 close-delimited body is read', async () => {
    const cookies = Array.from({ length: 3000 }, (_, i) => `Set-Cookie: c${i}=${API_TOKEN}\r\n`).join('');
    const answers = [
      `HTTP/1.1 200 OK\r\n${'X-Filler: ' + 'z'.repeat(100) + '\r\n'}`.repeat(2000),
      `HTTP/1.1 500 Oops\r\n${cookies}Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
      `HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n[${JSON.stringify(restaurantWire(1))}]`,
    ];
    for (const [index, answer] of answers.entries()) {
      const raw = await startRawServer(() => answer);
      try {
        const logger = capturingLogger();
        const client = new PartnerClient({
          baseUrl: raw.url,
          partnerId: PARTNER_ID,
          apiToken: API_TOKEN,
          rateLimit: false,
          maxRetries: 0,
          logger,
          timeoutMs: 2000,
        });
        const result = await client.restaurants.list().then(
          (page) => page.items,
          (e: unknown) => e,
        );
        if (index === 2) expect(result).toHaveLength(1);
        else {
          expect(result).toBeInstanceOf(PartnerSdkError);
          expect(findSecrets([...renderError(result), ...logger.lines], SECRETS)).toEqual([]);
        }
      } finally {
        await raw.close();
      }
    }
  });
});

describe('hooks and loggers that throw never break a call', () => {
  it.each([
    ['every hook and every logger method throw', true],
    // The first throw is then the report of onResponse's failure, once the POST has booked.
    ["onResponse throws on the create's answer, and so does logger.warn", false],
  ])('%s: the create that booked is reported as booked', async (name, withDebug) => {
    const fail = () => {
      throw new Error(`observer down ${API_TOKEN}`);
    };
    const { server, client } = await setUp(wellBehaved, {
      hooks: withDebug
        ? { onRequest: fail, onResponse: fail, onRetry: fail, onRateLimited: fail }
        : { onResponse: (event) => (event.method === 'POST' ? fail() : undefined) },
      logger: withDebug ? { debug: fail, info: fail, warn: fail, error: fail } : { warn: fail, error: fail },
    });
    const outcome = await settle(() =>
      client.reservations.create(1, input, { idempotencyKey: `observers-throw-${withDebug}` }),
    );
    expectBalanced(name, server, `observers-throw-${withDebug}`, outcome);
    expect(outcome.value).toBeDefined();
  });
});

describe('maxResponseBytes counts the decoded body', () => {
  it.each(['gzip', 'deflate'])(
    'a %s bomb with a small, honest Content-Length is refused while it is read',
    async (encoding) => {
      const decoded = Buffer.alloc(8 * 1024 * 1024, 0x20);
      const bomb = encoding === 'gzip' ? gzipSync(decoded) : deflateSync(decoded);
      const { client, server } = await setUp(
        (request, tools) => {
          tools.response.writeHead(200, {
            'content-type': 'application/json',
            'content-encoding': encoding,
            'content-length': bomb.length,
          });
          tools.response.end(bomb);
        },
        { maxResponseBytes: 64 * 1024, maxRetries: 0 },
      );
      expect(bomb.length).toBeLessThan(64 * 1024);
      const error = await client.restaurants.list().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ResponseTooLargeError);
      expect(server.requests).toHaveLength(1);
    },
  );
});

describe('webhook tokens read in answers outside the contract are secrets too', () => {
  it('a create, a regeneration and a list whose answers fail their check: their tokens never show in later errors', async () => {
    const CREATED = 'whk_attack_created_1f2e3d';
    const REGENERATED = 'whk_attack_regenerated_4c5b6a';
    const LISTED = 'whk_attack_listed_7d8e9f';
    const webhook = (id: number, token: string) => ({
      id,
      url: 'https://partner.example/hooks',
      is_enabled: true,
      subscribed_events: {},
      auth_token: token,
    });
    const { client, logger, hooks } = await setUp(
      (request, tools) => {
        const route = request.path.slice(HOSTILE_API.length);
        if (route === '/webhooks/' && request.method === 'POST')
          return tools.json(201, { ...webhook(1, CREATED), id: 'not-a-number' });
        if (route === '/webhooks/1/auth-token/') return tools.json(201, { auth_token: REGENERATED, url: 7 });
        // The second item breaks the contract, so the third is never checked.
        if (route === '/webhooks/')
          return tools.json(200, {
            count: 3,
            next: null,
            results: [webhook(2, 'whk_attack_fine_0a0b0c'), { id: 3 }, webhook(4, LISTED)],
          });
        return tools.json(
          502,
          { detail: `rejected ${CREATED} ${REGENERATED} ${LISTED}` },
          { 'x-echo': `${CREATED} ${LISTED}` },
        );
      },
      { maxRetries: 0 },
    );
    const errors: unknown[] = [];
    const keep = (promise: PromiseLike<unknown>) =>
      Promise.resolve(promise).then(
        () => errors.push(new Error('resolved')),
        (error: unknown) => errors.push(error),
      );
    await keep(client.webhooks.create({ url: 'https://partner.example/hooks' }));
    await keep(client.webhooks.regenerateToken(1));
    await keep(client.webhooks.list());
    await keep(client.webhooks.retrieve(4));
    expect(errors.map((error) => (error as Error).name)).toEqual([
      'ResponseValidationError',
      'ResponseValidationError',
      'ResponseValidationError',
      'ServerError',
    ]);
    const texts = [...errors.flatMap(renderError), ...logger.lines, ...hooks.payloads];
    expect(findSecrets(texts, [CREATED, REGENERATED, LISTED])).toEqual([]);
    expect(texts.join('\n')).toContain('[REDACTED]');
  });
});

/** A well-behaved server whose first restaurants list never answers (the shared look-up stalls). */
function stallFirstRestaurantsList(): HostileHandler {
  let first = true;
  return (request, tools) => {
    if (request.path === `${HOSTILE_API}/restaurants/` && first) {
      first = false;
      return;
    }
    return wellBehaved(request, tools);
  };
}

describe("the restaurants look-up a create shares with others keeps each call's own deadline and signal", () => {
  it("a create joining another call's stalled timezone look-up ends by its own deadline, nothing sent", async () => {
    const { server, client } = await setUp(stallFirstRestaurantsList());
    const longCall = client.reservations.create(1, input, {
      deadlineMs: 60_000,
      timeoutMs: 60_000,
      idempotencyKey: 'long',
    });
    longCall.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const shortOutcome = await settle(() =>
      client.reservations.create(1, input, { deadlineMs: 200, idempotencyKey: 'short' }),
    );
    expect((shortOutcome.error as Error).name).toBe('TimeoutError');
    expect(server.posts()).toHaveLength(0);
  });

  it("a create joining another call's timezone look-up is not failed by that call's abort: it looks up on its own and books", async () => {
    const { server, client } = await setUp(stallFirstRestaurantsList());
    const controller = new AbortController();
    const aborted = settle(() =>
      client.reservations.create(1, input, { signal: controller.signal, idempotencyKey: 'given-up' }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const other = settle(() => client.reservations.create(1, input, { idempotencyKey: 'kept' }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort(new Error('the user left'));
    expect(((await aborted).error as Error).name).toBe('AbortError');
    const outcome = await other;
    expectBalanced("joined an aborted call's timezone look-up", server, 'kept', outcome);
    expect(outcome.value).toBeDefined();
    expect(server.bookings).toHaveLength(1);
  });
});

describe('a look-up that reads a page twice under another URL cannot tell', () => {
  it("the first page again as `?page=1` (items repeated, count reached): the caller's key is not taken as absent, nothing is sent", async () => {
    const { server, client } = await setUp((request, tools) => {
      if (isList(request)) {
        const all = tools.list();
        // The booking carrying the key sits on a second page this listing never reaches.
        return tools.json(200, {
          count: all.length,
          next: request.url.searchParams.has('page') ? null : '?page=1',
          results: all.slice(0, 3),
        });
      }
      return wellBehaved(request, tools);
    });
    for (let index = 0; index < 3; index += 1)
      server.bookings.push({
        id: 100 + index,
        key: `other-${index}`,
        body: { ...input, metadata: { [KEY_FIELD]: `other-${index}` } },
      });
    server.bookings.push({
      id: 200,
      key: 'order-7',
      body: { ...input, metadata: { [KEY_FIELD]: 'order-7' } },
    });
    const outcome = await settle(() => client.reservations.create(1, input, { idempotencyKey: 'order-7' }));
    expect(outcome.error).toBeInstanceOf(AmbiguousCreateError);
    expectBalanced('list repeats its first page as ?page=1', server, 'order-7', outcome);
    expect(server.posts()).toHaveLength(0);
  });
});

describe('one deadline across the timezone look-up, the create and its settle window', () => {
  it('a 429 on the restaurants list, then a 504 on the create: the look-ups stop by the deadline, ambiguous, sent once', async () => {
    let restaurantsAnswered = 0;
    const { server, client, clock } = await setUp((request, tools) => {
      if (request.path === `${HOSTILE_API}/restaurants/` && restaurantsAnswered++ === 0)
        return tools.json(429, {}, { 'retry-after': '3' });
      if (request.method === 'POST') {
        tools.commitLater(request, 4_000);
        return tools.json(504, {});
      }
      return wellBehaved(request, tools);
    });
    const startedAt = clock.now();
    const outcome = await settle(() => client.reservations.create(1, input, { deadlineMs: 6_000 }));
    expect(outcome.error).toBeInstanceOf(AmbiguousCreateError);
    expect(clock.now() - startedAt).toBeLessThanOrEqual(6_000);
    // Looked up at once and 1 s after the 504 (at 3 s), not at 6 s: that is the deadline.
    expect(server.requests.filter(isList)).toHaveLength(2);
    await clock.advance(10_000);
    server.commitDue();
    expectBalanced(
      '429 on the timezone look-up, 504, deadline 6 s',
      server,
      (outcome.error as AmbiguousCreateError).idempotencyKey,
      outcome,
    );
    expect(server.posts()).toHaveLength(1);
  });
});
