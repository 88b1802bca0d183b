/**
 * The client's promises against hostile servers (real node:http servers on loopback, and raw TCP
 * for malformed HTTP), driven through the public names. Each case counts the bookings the server
 * holds against what the client reported:
 *
 * - told success: exactly one booking carries the key, and it is the one returned;
 * - AmbiguousCreateError: it carries the key, and at most one booking carries it;
 * - any other error: no booking exists.
 *
 * Time is the fake's frozen clock, shared by the client (settle window, retries) and the server
 * (an origin committing after its gateway answered), so nothing sleeps in real time.
 */
import { describe, expect, it } from 'vitest';
import {
  AmbiguousCreateError,
  PartnerApiError,
  PartnerClient,
  PartnerSdkError,
  RateLimitError,
  ResponseTooLargeError,
} from 'restaurant-partner-sdk';
import { FakeClock } from 'restaurant-partner-sdk/testing';
import {
  HOSTILE_API,
  KEY_FIELD,
  restaurantWire,
  startHostileServer,
  startRawServer,
  wellBehaved,
  type HostileHandler,
} from '../support/hostile-server.js';
import { hostileProofs, settle } from './support/balance.js';
import { capturingHooks, capturingLogger, findSecrets, renderError, secretForms } from './support/leaks.js';

const PARTNER_ID = '0d9b5c1e-7a3f-4e2b-9c8d-1f2e3d4c5b6a';
// '+', '/' and '=' make the URL-encoded forms differ from the token itself.
const API_TOKEN = 'hostile+token/Value=42-9f8e7d6c5b';
const SECRETS = secretForms(PARTNER_ID, API_TOKEN);
const input = { start_time: '2026-12-05T19:30:00', adults: 2 };

const { setUp, expectBalanced, counts, servers } = hostileProofs(
  'hostile servers',
  { partnerId: PARTNER_ID, apiToken: API_TOKEN },
  { alone: true },
);

const isList = (request: { method: string; path: string }) =>
  request.method === 'GET' && request.path.endsWith('/reservations/');

describe('a gateway answers at once while the origin commits later (Idempotency-Key ignored)', () => {
  for (const [name, answer] of [
    ['504', (tools: Parameters<HostileHandler>[1]) => tools.json(504, { detail: 'Gateway Timeout' })],
    ['502', (tools: Parameters<HostileHandler>[1]) => tools.json(502, { detail: 'Bad Gateway' })],
    ['connection reset', (tools: Parameters<HostileHandler>[1]) => tools.reset()],
  ] as const) {
    it(`${name}, commit 2.5 s later: one booking, reported as success after the settle window finds it`, async () => {
      const { server, client } = await setUp((request, tools) => {
        if (request.method === 'POST') {
          tools.commitLater(request, 2500);
          return answer(tools);
        }
        return wellBehaved(request, tools);
      });
      const outcome = await settle(() =>
        client.reservations.create(1, input, { idempotencyKey: `gateway-${name}` }),
      );
      expectBalanced(`${name} then commit after 2.5 s`, server, `gateway-${name}`, outcome);
      expect(outcome.value).toBeDefined();
      expect(server.posts()).toHaveLength(1);
      // Found by a later look-up of the window (the ones at 0 and 1 s saw nothing yet), not by sending again.
      expect(server.requests.filter(isList).length).toBeGreaterThanOrEqual(3);
    });
  }

  it('504 and the origin never commits: AmbiguousCreateError with the key, nothing sent twice', async () => {
    const { server, client, clock } = await setUp((request, tools) =>
      request.method === 'POST' ? tools.json(504, {}) : wellBehaved(request, tools),
    );
    const startedAt = clock.now();
    const outcome = await settle(() => client.reservations.create(1, input));
    expectBalanced(
      '504, never commits',
      server,
      (outcome.error as AmbiguousCreateError).idempotencyKey,
      outcome,
    );
    expect(outcome.error).toBeInstanceOf(AmbiguousCreateError);
    expect(server.posts()).toHaveLength(1);
    // Looked up at once and over the 10 s settle window, on the client's clock.
    expect(server.requests.filter(isList)).toHaveLength(5);
    expect(clock.now() - startedAt).toBeGreaterThanOrEqual(10_000);
  });

  it('a commit later than the settle window stays ambiguous, and the booking then carries the key', async () => {
    const { server, client, clock } = await setUp((request, tools) => {
      if (request.method === 'POST') {
        tools.commitLater(request, 30_000);
        return tools.json(504, {});
      }
      return wellBehaved(request, tools);
    });
    const outcome = await settle(() =>
      client.reservations.create(1, input, { idempotencyKey: 'late-commit' }),
    );
    expect(outcome.error).toBeInstanceOf(AmbiguousCreateError);
    await clock.advance(30_000);
    server.commitDue();
    expectBalanced('504, commit after 30 s', server, 'late-commit', outcome);
    expect(server.bookings.map((booking) => booking.key)).toEqual(['late-commit']);
  });
});

describe('told failed while the booking exists: never again', () => {
  it('a malformed 201 then a failing look-up: AmbiguousCreateError, not ResponseValidationError', async () => {
    const { server, client } = await setUp((request, tools) => {
      if (request.method === 'POST') {
        tools.commit(request);
        return tools.json(201, { id: 'not-a-number', detail: 'created' });
      }
      if (isList(request)) return tools.json(500, { detail: 'list down' });
      return wellBehaved(request, tools);
    });
    const outcome = await settle(() => client.reservations.create(1, input));
    const key = (outcome.error as AmbiguousCreateError).idempotencyKey;
    expect(outcome.error).toBeInstanceOf(AmbiguousCreateError);
    expectBalanced('malformed 201, look-up fails', server, key, outcome);
  });

  it('a malformed 201 whose look-up works: the booking, found by its key', async () => {
    const { server, client } = await setUp((request, tools) => {
      if (request.method === 'POST') {
        tools.commit(request);
        return tools.json(201, '<html>Created</html>');
      }
      return wellBehaved(request, tools);
    });
    const outcome = await settle(() =>
      client.reservations.create(1, input, { idempotencyKey: 'malformed-found' }),
    );
    expectBalanced('malformed 201, look-up finds it', server, 'malformed-found', outcome);
    expect(outcome.value).toBeDefined();
  });

  it.each(['signal', 'AbortSignal.timeout'])(
    'the caller aborts (%s) after the POST was sent: AmbiguousCreateError with the key, not a plain AbortError',
    async (how) => {
      let posted!: () => void;
      const sent = new Promise<void>((resolve) => (posted = resolve));
      const { server, client } = await setUp((request, tools) => {
        if (request.method === 'POST') {
          tools.commit(request);
          posted();
          return; // never answers
        }
        return wellBehaved(request, tools);
      });
      const controller = new AbortController();
      // Long enough that the POST is out before it fires even on a busy machine (the server never answers).
      const signal = how === 'signal' ? controller.signal : AbortSignal.timeout(1_000);
      const call = settle(() =>
        client.reservations.create(1, input, { idempotencyKey: `abort-${how}`, signal }),
      );
      await sent;
      controller.abort(new Error('the user left'));
      const outcome = await call;
      expect(outcome.error).toBeInstanceOf(AmbiguousCreateError);
      expectBalanced(`caller abort after send (${how})`, server, `abort-${how}`, outcome);
    },
  );

  it('an abort before anything was sent stays a plain AbortError, and nothing is booked', async () => {
    const { server, client } = await setUp(wellBehaved);
    const controller = new AbortController();
    controller.abort();
    const outcome = await settle(() => client.reservations.create(1, input, { signal: controller.signal }));
    expect((outcome.error as Error).name).toBe('AbortError');
    expect(server.bookings).toHaveLength(0);
  });
});

describe('look-ups that cannot see the whole list mean "cannot tell", and stay bounded', () => {
  const behindA504 =
    (
      list: (request: Parameters<HostileHandler>[0], tools: Parameters<HostileHandler>[1]) => void,
    ): HostileHandler =>
    (request, tools) => {
      if (request.method === 'POST') {
        tools.commit(request);
        return tools.json(504, {});
      }
      if (isList(request)) return list(request, tools);
      return wellBehaved(request, tools);
    };

  it('a `next` that loops back to the first page: ambiguous, never "absent" and sent again', async () => {
    const { server, client } = await setUp(
      behindA504((request, tools) => {
        const page = Number(request.url.searchParams.get('page') ?? 1);
        tools.json(200, {
          count: 99,
          next: page === 1 ? `${request.path}?page=2` : request.path,
          results: [],
        });
      }),
    );
    const outcome = await settle(() => client.reservations.create(1, input));
    const key = (outcome.error as AmbiguousCreateError).idempotencyKey;
    expect(outcome.error).toBeInstanceOf(AmbiguousCreateError);
    expectBalanced('look-up over a looping next', server, key, outcome);
    expect(server.posts()).toHaveLength(1);
  });

  it('an envelope that ends before its count: ambiguous', async () => {
    const { server, client } = await setUp(
      behindA504((_request, tools) => tools.json(200, { count: 5, next: null, results: [] })),
    );
    const outcome = await settle(() => client.reservations.create(1, input));
    const key = (outcome.error as AmbiguousCreateError).idempotencyKey;
    expect(outcome.error).toBeInstanceOf(AmbiguousCreateError);
    expect((outcome.error as AmbiguousCreateError).message).toContain('could not tell');
    expect(
      ((outcome.error as AmbiguousCreateError).cause as { issues: { code: string }[] }).issues[0]!.code,
    ).toBe('list_ended_early');
    expectBalanced('look-up over a list ending before count', server, key, outcome);
  });

  it('a `next` that never ends: at most maxPages pages per look-up, then ambiguous', async () => {
    const { server, client } = await setUp(
      behindA504((request, tools) => {
        const page = Number(request.url.searchParams.get('page') ?? 1);
        tools.json(200, { count: 1_000_000, next: `${request.path}?page=${page + 1}`, results: [] });
      }),
      { maxPages: 20 },
    );
    const outcome = await settle(() => client.reservations.create(1, input));
    const key = (outcome.error as AmbiguousCreateError).idempotencyKey;
    expect(outcome.error).toBeInstanceOf(AmbiguousCreateError);
    expect(server.requests.filter(isList).length).toBeLessThanOrEqual(5 * 20);
    expectBalanced('look-up over an endless next', server, key, outcome);
  });

  it('a plain list whose `next` never ends fails at maxPages instead of running on', async () => {
    const { server, client } = await setUp((request, tools) => {
      const page = Number(request.url.searchParams.get('page') ?? 1);
      tools.json(200, { next: `${request.path}?page=${page + 1}`, results: [restaurantWire(page)] });
    });
    await expect(client.restaurants.list().toArray()).rejects.toMatchObject({
      name: 'ResponseValidationError',
      field: 'next',
    });
    expect(server.requests).toHaveLength(1000);
  });
});

describe('nothing unbounded', () => {
  it('a create whose 201 body never ends: refused past maxResponseBytes, then found by its key', async () => {
    let closed = 0;
    const { server, client } = await setUp(
      (request, tools) => {
        if (request.method !== 'POST') return wellBehaved(request, tools);
        tools.commit(request);
        const { response } = tools;
        response.writeHead(201, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, ' ');
        response.write('{"id": 1, "padding": "');
        const pump = () => {
          while (!response.destroyed && response.write(chunk));
          if (!response.destroyed) response.once('drain', pump);
        };
        response.on('close', () => (closed += 1));
        pump();
      },
      { maxResponseBytes: 256 * 1024 },
    );
    const outcome = await settle(() =>
      client.reservations.create(1, input, { idempotencyKey: 'endless-body' }),
    );
    expectBalanced('endless 201 body', server, 'endless-body', outcome);
    expect(outcome.value).toBeDefined();
    expect(closed).toBe(1);
  });

  it('a GET whose body never ends rejects with ResponseTooLargeError', async () => {
    const { client } = await setUp(
      (_request, tools) => {
        tools.response.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, '[');
        const pump = () => {
          while (!tools.response.destroyed && tools.response.write(chunk));
          if (!tools.response.destroyed) tools.response.once('drain', pump);
        };
        pump();
      },
      { maxResponseBytes: 1024 * 1024 },
    );
    const error = await client.profile.retrieve().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
  });

  it('a 429 with a huge Retry-After on a create ends at once (the deadline cannot hold it), nothing booked', async () => {
    const { server, client, clock } = await setUp((request, tools) =>
      request.method === 'POST'
        ? tools.json(429, { detail: 'throttled' }, { 'retry-after': '3600' })
        : wellBehaved(request, tools),
    );
    const startedAt = clock.now();
    const outcome = await settle(() => client.reservations.create(1, input, { deadlineMs: 20_000 }));
    expect(outcome.error).toBeInstanceOf(RateLimitError);
    expect(clock.now() - startedAt).toBeLessThan(20_000);
    expectBalanced('429 with Retry-After 3600, deadline 20 s', server, 'none', outcome);
  });
});

describe('redirects', () => {
  it('a create answered by a same-origin 303 to a list is not followed: the booking is found by its key', async () => {
    const { server, client } = await setUp((request, tools) => {
      if (request.method === 'POST') {
        tools.commit(request);
        tools.response.writeHead(303, { location: `${HOSTILE_API}/restaurants/1/reservations/` });
        return tools.response.end();
      }
      return wellBehaved(request, tools);
    });
    // Someone else's booking in the list that a followed redirect would have returned.
    server.bookings.push({
      id: 500,
      key: 'someone-else',
      body: { start_time: '2026-12-05T20:00:00+01:00', adults: 4, metadata: { [KEY_FIELD]: 'someone-else' } },
    });
    const outcome = await settle(() =>
      client.reservations.create(1, input, { idempotencyKey: 'redirected' }),
    );
    expect(outcome.value?.metadata?.[KEY_FIELD]).toBe('redirected');
    expect(outcome.value?.id).not.toBe(500);
    expect(server.requests.filter((request) => request.method === 'POST')).toHaveLength(1);
    counts.push(
      `  same-origin 303 on create: ${server.bookings.length - 1} booked by us, told success #${outcome.value?.id}`,
    );
  });

  it('a create redirected to another origin: nothing reaches the other origin, and the outcome is looked up', async () => {
    const other = await startHostileServer(new FakeClock({ frozen: true }));
    servers.push(other);
    const { server, client } = await setUp((request, tools) => {
      if (request.method === 'POST') {
        tools.response.writeHead(307, { location: `${other.url}${request.path}` });
        return tools.response.end();
      }
      return wellBehaved(request, tools);
    });
    const outcome = await settle(() =>
      client.reservations.create(1, input, { idempotencyKey: 'cross-origin' }),
    );
    expect(outcome.error).toBeInstanceOf(AmbiguousCreateError);
    expect(other.requests).toHaveLength(0);
    expectBalanced('cross-origin 307 on create', server, 'cross-origin', outcome);
  });

  it('a read redirected to another origin is refused: the credentials never leave the service', async () => {
    const other = await startHostileServer(new FakeClock({ frozen: true }));
    servers.push(other);
    const { client } = await setUp((request, tools) => {
      tools.response.writeHead(302, { location: `${other.url}${request.path}` });
      tools.response.end();
    });
    const error = await client.restaurants
      .list()
      .toArray()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PartnerApiError);
    expect(other.requests).toHaveLength(0);
  });
});

describe("a caller's own idempotencyKey protects a repeat after a crash, on a service that ignores the header", () => {
  it('the repeat finds the first booking before sending: one booking, both calls answered with it', async () => {
    const { server, client, clock } = await setUp(wellBehaved);
    const first = await client.reservations.create(1, input, { idempotencyKey: 'order-42' });
    // A new process (a new client) repeats the same order after a crash.
    const again = new PartnerClient({
      baseUrl: server.url,
      partnerId: PARTNER_ID,
      apiToken: API_TOKEN,
      rateLimit: false,
      clock,
    });
    const second = await again.reservations.create(1, input, { idempotencyKey: 'order-42' });
    expect(second.id).toBe(first.id);
    expect(server.bookings).toHaveLength(1);
    expect(server.posts()).toHaveLength(1);
    counts.push(
      `  repeat of order-42 after a crash: ${server.bookings.length} booked, ${server.posts().length} POST, both told #${first.id}`,
    );
  });

  it('when that look-up cannot tell (the list fails), nothing is sent: AmbiguousCreateError with the key', async () => {
    const { server, client } = await setUp((request, tools) =>
      isList(request) ? tools.json(500, {}) : wellBehaved(request, tools),
    );
    const outcome = await settle(() => client.reservations.create(1, input, { idempotencyKey: 'order-43' }));
    expect(outcome.error).toBeInstanceOf(AmbiguousCreateError);
    expect(server.posts()).toHaveLength(0);
    expectBalanced('caller key, look-up before send fails', server, 'order-43', outcome);
  });
});

describe('secrets never leak, whatever the server sends back', () => {
  const WEBHOOK_TOKEN = 'whk_live_secret_7c6b5a4d3e2f';

  it('echoed Authorization, token-valued fields, next links carrying it and raw malformed bytes: none shows anywhere', async () => {
    const echo = (request: Parameters<HostileHandler>[0]) =>
      `${request.headers.authorization} ${API_TOKEN} ${encodeURIComponent(API_TOKEN)}`;
    const { client, logger, hooks } = await setUp(
      (request, tools) => {
        const said = echo(request);
        const route = request.path.slice(HOSTILE_API.length);
        if (route === '/profile/') return tools.json(200, { uuid: 1, echoed: said });
        if (route === '/restaurants/' && !request.url.searchParams.has('cursor')) {
          return tools.json(200, {
            count: 2,
            next: `${request.path}?cursor=${encodeURIComponent(API_TOKEN)}`,
            results: [restaurantWire(1)],
          });
        }
        if (route === '/restaurants/') return tools.json(500, { detail: said }, { 'x-echo': said });
        if (route === '/webhooks/' && request.method === 'POST') {
          return tools.json(201, {
            id: 3,
            url: 'https://partner.example/hooks',
            is_enabled: true,
            subscribed_events: {},
            auth_token: WEBHOOK_TOKEN,
          });
        }
        if (route === '/webhooks/')
          return tools.json(200, [
            {
              id: 3,
              url: 'https://partner.example/hooks',
              subscribed_events: { [API_TOKEN]: 'yes', [WEBHOOK_TOKEN]: 1 },
            },
          ]);
        if (route === '/webhooks/3/')
          return tools.json(502, { detail: `token ${WEBHOOK_TOKEN} rejected`, echoed: said });
        if (route === '/restaurants/2/reservations/' && request.method === 'POST')
          return tools.json(201, { id: said, start_time: said });
        if (route === '/restaurants/') return tools.json(200, [restaurantWire(1)]);
        return tools.json(404, { detail: said, [API_TOKEN]: said });
      },
      { maxRetries: 1, createLookupWindowMs: 0 },
    );
    const errors: unknown[] = [];
    const keep = async (run: () => PromiseLike<unknown>) => {
      try {
        await run();
      } catch (error) {
        errors.push(error);
      }
    };
    await keep(() => client.profile.retrieve());
    await keep(() => client.restaurants.list().toArray());
    await keep(() => client.webhooks.create({ url: 'https://partner.example/hooks' }));
    await keep(() => client.webhooks.list().toArray());
    await keep(() => client.webhooks.retrieve(3));
    await keep(() => client.reservations.retrieve(1, 99));
    expect(errors.length).toBeGreaterThanOrEqual(5);
    const texts = [...errors.flatMap(renderError), ...logger.lines, ...hooks.payloads];
    expect(findSecrets(texts, [...SECRETS, WEBHOOK_TOKEN])).toEqual([]);
    // The scrubbing did happen: the errors say where the secrets were.
    expect(texts.join('\n')).toContain('[REDACTED]');
  });

  it("a restaurant's timezone set to the token: the refusal of the create does not show it", async () => {
    const { client } = await setUp((request, tools) =>
      request.path === `${HOSTILE_API}/restaurants/`
        ? tools.json(200, [restaurantWire(1, { timezone: API_TOKEN })])
        : wellBehaved(request, tools),
    );
    const error = await client.reservations.create(1, input).catch((caught: unknown) => caught);
    expect((error as Error).name).toBe('InputValidationError');
    expect(findSecrets(renderError(error), SECRETS)).toEqual([]);
  });

  it('raw malformed HTTP echoing the request (undici keeps the bytes in cause.cause.data): scrubbed', async () => {
    const raw = await startRawServer(
      (head) =>
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n${head.replace(/\r\n\r\n$/, '').replace(/\r\n/g, '\u0000\r\n')}\r\nContent-Length: nope\r\n\r\n{}`,
    );
    try {
      const logger = capturingLogger();
      const hooks = capturingHooks();
      const client = new PartnerClient({
        baseUrl: raw.url,
        partnerId: PARTNER_ID,
        apiToken: API_TOKEN,
        rateLimit: false,
        maxRetries: 0,
        logger,
        hooks,
      });
      const errors: unknown[] = [];
      await client.restaurants
        .list()
        .toArray()
        .catch((error: unknown) => errors.push(error));
      await client.reservations
        .create(1, { ...input, start_time: '2026-12-05T19:30:00+01:00' }, { deadlineMs: 2_000 })
        .catch((error: unknown) => errors.push(error));
      expect(errors).toHaveLength(2);
      expect(errors[0]).toBeInstanceOf(PartnerSdkError);
      // No error of ky's (holding the Request and its Authorization header) anywhere in a cause chain.
      for (const error of errors) {
        for (let current: unknown = error; current; current = (current as { cause?: unknown }).cause)
          expect(current).not.toHaveProperty('request');
      }
      const texts = [...errors.flatMap(renderError), ...logger.lines, ...hooks.payloads];
      expect(findSecrets(texts, SECRETS)).toEqual([]);
    } finally {
      await raw.close();
    }
  });
});
