/**
 * Security proofs with real servers:
 * - the API token appears in no error (message, stack, JSON.stringify, util.inspect with hidden
 *   properties and the whole `cause` chain), no log line (debug included) and no hook payload, on
 *   every failure path the client has;
 * - Basic credentials are never sent to another origin, whatever redirect the service answers and
 *   whatever `next` link a list page carries;
 * - an `http:` baseUrl other than loopback is warned about (the documented behaviour), loopback
 *   and https are not.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AbortError,
  AmbiguousCreateError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  createRateLimiter,
  InputValidationError,
  NoAvailabilityError,
  NotFoundError,
  PartnerClient,
  PermissionDeniedError,
  RateLimitError,
  RateLimitQueueFullError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
} from 'restaurant-partner-sdk';
import { createClockRateLimiter, FakeClock } from 'restaurant-partner-sdk/testing';
import { capturingHooks, capturingLogger, findSecrets, renderError, secretForms } from './support/leaks.js';
import { basicAuthorization } from '../support/basic-auth.js';

const partnerId = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d';
const apiToken = 'sec-proof-token-e1d2c3b4a5968778695a4b3c';
const secrets = secretForms(partnerId, apiToken);
const API = '/api/v1/partnership';

interface Recorded {
  method: string;
  url: string;
  authorization: string | undefined;
}

/** A loopback server whose answers are given per test; it records what reached it. */
async function startServer(
  answer: (request: IncomingMessage, response: ServerResponse, origin: string) => void,
) {
  const seen: Recorded[] = [];
  const server: Server = createServer((request, response) => {
    seen.push({
      method: request.method ?? '',
      url: request.url ?? '',
      authorization: request.headers.authorization,
    });
    request.resume();
    request.on('end', () => answer(request, response, origin));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const send = (
  response: ServerResponse,
  status: number,
  body?: unknown,
  headers: Record<string, string> = {},
) => {
  const text = body === undefined ? '' : JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(text);
};

describe('the leak detector itself', () => {
  it('finds a credential hidden deep in a cause chain (a Request kept on an inner error)', () => {
    const inner = Object.assign(new Error('inner'), {
      request: new Request('https://api.example/x', {
        headers: { authorization: basicAuthorization(partnerId, apiToken) },
      }),
    });
    const outer = new Error('outer', { cause: new Error('middle', { cause: inner }) });
    expect(findSecrets(renderError(outer), secrets)).not.toEqual([]);
  });
});

describe('no token on any failure path', () => {
  let api: Awaited<ReturnType<typeof startServer>>;
  const logger = capturingLogger();
  const hooks = capturingHooks();
  const errors: { path: string; error: unknown }[] = [];

  beforeAll(async () => {
    // Routes: /restaurants/ (the timezone list); a reservation or webhook :id answers the status :id, or misbehaves (997-999).
    api = await startServer((request, response) => {
      const path = (request.url ?? '').split('?')[0]!;
      if (path === `${API}/restaurants/`)
        return send(response, 200, [{ id: 1, schema_name: 'r1', timezone: 'Europe/Brussels' }]);
      if (path === `${API}/restaurants/1/reservations/` && request.method === 'GET')
        return send(response, 500, { detail: 'lookup down' });
      if (path === `${API}/restaurants/1/reservations/` && request.method === 'POST') return undefined; // never answers: the create times out
      const status = Number(/\/(\d+)\/$/.exec(path)?.[1] ?? 404);
      if (status === 999) return request.socket.destroy();
      if (status === 998) return send(response, 200, { id: 'not-an-integer', start_time: 'yesterday' });
      if (status === 997) return undefined; // never answers
      if (status === 996) {
        // A misconfigured proxy or debug page that echoes the credentials it was sent.
        const sent = request.headers.authorization ?? '';
        const decoded = Buffer.from(sent.replace(/^Basic /, ''), 'base64').toString('utf8');
        return send(
          response,
          401,
          {
            detail: `Invalid credentials ${decoded}`,
            received: { authorization: sent, token: decoded.split(':')[1] },
          },
          { 'x-echo': sent },
        );
      }
      if (status === 409) return send(response, 409, { detail: 'No table.', code: 'no_availability' });
      if (status === 400)
        return send(response, 400, { adults: ['Ensure this value is less than or equal to 50.'] });
      if (status === 429)
        return send(response, 429, { detail: 'Request was throttled.' }, { 'retry-after': '1' });
      return send(response, status, { detail: `Answer ${status}.` });
    });
  });
  afterAll(() => api.close());

  const client = (overrides: Partial<ConstructorParameters<typeof PartnerClient>[0]> = {}) => {
    const clock = new FakeClock({ frozen: true });
    return new PartnerClient({
      baseUrl: api.origin,
      partnerId,
      apiToken,
      clock,
      rateLimit: createClockRateLimiter({ requestsPerSecond: 50, clock }),
      // Generous, so that a busy machine's slow loopback answer is not a timeout; the timeout cases set 150 ms.
      timeoutMs: 5_000,
      maxRetries: 2,
      logger,
      logLevel: 'debug',
      hooks,
      ...overrides,
    });
  };
  const failure = async (
    path: string,
    expected: new (...args: never[]) => Error,
    run: () => Promise<unknown>,
  ) => {
    const error = await run().then(
      (value) => new Error(`expected ${expected.name}, got ${inspect(value)}`),
      (caught: unknown) => caught,
    );
    expect(error, `${path}: ${String(error)}`).toBeInstanceOf(expected);
    errors.push({ path, error });
  };

  it('HTTP errors: 400, 401, 403, 404, 409, 429 past retries, 5xx past retries', async () => {
    const c = client();
    await failure('400', BadRequestError, () => c.reservations.cancel(1, 400));
    await failure('401', AuthenticationError, () => c.reservations.retrieve(1, 401));
    await failure('401 echoing the credentials', AuthenticationError, () => c.reservations.retrieve(1, 996));
    await failure('403', PermissionDeniedError, () => c.reservations.retrieve(1, 403));
    await failure('404', NotFoundError, () => c.reservations.cancel(1, 404));
    await failure('409', NoAvailabilityError, () => c.reservations.cancel(1, 409));
    await failure('409 plain', ConflictError, () => c.reservations.markArrived(1, 409));
    await failure('429', RateLimitError, () => c.reservations.retrieve(1, 429));
    await failure('500', ServerError, () => c.reservations.retrieve(1, 500));
    await failure('503', ServerError, () => c.webhooks.retrieve(503));
  });

  it('no answer: timeout, dropped connection, refused connection, abort', async () => {
    const c = client();
    await failure('timeout', TimeoutError, () => client({ timeoutMs: 150 }).reservations.retrieve(1, 997));
    await failure('dropped', ConnectionError, () => c.reservations.retrieve(1, 999));
    const closed = await startServer(() => undefined);
    await closed.close();
    await failure('refused', ConnectionError, () =>
      client({ baseUrl: closed.origin }).reservations.retrieve(1, 1),
    );
    await failure('abort in flight', AbortError, () =>
      c.reservations.retrieve(1, 997, { signal: AbortSignal.timeout(30) }),
    );
    const aborted = new AbortController();
    aborted.abort(new Error('caller gave up'));
    await failure('abort before', AbortError, () =>
      c.reservations.retrieve(1, 1, { signal: aborted.signal }),
    );
  });

  it('contract and input: response validation, input validation, ambiguous create, full queue, bad options', async () => {
    const c = client();
    await failure('response validation', ResponseValidationError, () => c.reservations.retrieve(1, 998));
    await failure('input validation', InputValidationError, () =>
      c.reservations.create(1, { start_time: 'soon', adults: 0 }),
    );
    // The create never answers and the lookup by key fails: the outcome is unknown.
    await failure('ambiguous create', AmbiguousCreateError, () =>
      client({ timeoutMs: 150 }).reservations.create(1, {
        start_time: '2026-12-05T19:30:00+01:00',
        adults: 2,
      }),
    );
    // Real time here: the second call waits (until its signal aborts it) while the third finds the queue full.
    // It is aborted once the third has failed, not after a fixed delay, which a busy machine can outlast.
    // One request per 50 s: the second's wait fits its 120 s deadline, so it queues rather than being refused
    // as too long (whether or not this process has already made its first request).
    const limiter = createRateLimiter({ requestsPerSecond: 0.02, maxQueue: 1 });
    const tight = client({ rateLimit: limiter });
    const giveUp = new AbortController();
    const first = tight.reservations.retrieve(1, 200);
    const second = tight.reservations.retrieve(1, 200, { signal: giveUp.signal });
    await failure('queue full', RateLimitQueueFullError, () => tight.reservations.retrieve(1, 200));
    giveUp.abort();
    await Promise.allSettled([first, second]);
    await failure(
      'credentials in baseUrl',
      InputValidationError,
      async () =>
        new PartnerClient({
          baseUrl: `https://${partnerId}:${apiToken}@api.example.com`,
          partnerId,
          apiToken,
        }),
    );
    await failure(
      'bad timeout option',
      InputValidationError,
      async () => new PartnerClient({ baseUrl: api.origin, partnerId, apiToken, timeoutMs: -1 }),
    );
  });

  it('none of those errors, log lines (debug included) or hook payloads shows the token', () => {
    expect(errors.length).toBeGreaterThanOrEqual(20);
    const hits = errors.flatMap(({ path, error }) =>
      findSecrets(renderError(error), secrets).map((hit) => `${path}: ${hit}`),
    );
    expect(hits).toEqual([]);
    expect(logger.lines.length).toBeGreaterThan(0);
    expect(hooks.payloads.length).toBeGreaterThan(0);
    expect(findSecrets([...logger.lines, ...hooks.payloads], secrets)).toEqual([]);
  });

  it('the client itself and a webhook with its token print no secret', async () => {
    const c = client();
    expect(
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- what String() shows of it is under test
      findSecrets([JSON.stringify(c), inspect(c, { showHidden: true, depth: Infinity }), String(c)], secrets),
    ).toEqual([]);
    const webhookToken = 'whk_secret_5c4b3a29180706f5e4d3';
    const hooksServer = await startServer((_request, response) =>
      send(response, 201, { id: 5, url: 'https://partner.example/hooks', auth_token: webhookToken }),
    );
    try {
      const webhook = await client({ baseUrl: hooksServer.origin }).webhooks.create({
        url: 'https://partner.example/hooks',
      });
      expect(webhook.auth_token, 'the token is there for the caller to store').toBe(webhookToken);
      expect(
        findSecrets(
          [
            JSON.stringify(webhook),
            inspect(webhook, { depth: Infinity }),
            inspect(webhook, { showHidden: true, depth: Infinity }),
            // eslint-disable-next-line @typescript-eslint/no-base-to-string -- what String() shows of it is under test
            String(webhook),
          ],
          [webhookToken],
        ),
      ).toEqual([]);
      // Shown only once: a copy the caller makes deliberately keeps it, so it can be stored.
      expect({ ...webhook }.auth_token).toBe(webhookToken);
    } finally {
      await hooksServer.close();
    }
  });
});

describe('Basic credentials never go to another origin', () => {
  let other: Awaited<ReturnType<typeof startServer>>;
  let redirecting: Awaited<ReturnType<typeof startServer>>;
  let redirectStatus = 302;

  beforeAll(async () => {
    other = await startServer((request, response) => {
      if ((request.url ?? '').includes('/restaurants/1/reservations/')) {
        return send(response, 200, {
          id: 1,
          start_time: '2026-12-05T19:30:00+01:00',
          adults: 2,
          cancelled: true,
        });
      }
      return send(response, 200, [{ id: 1, schema_name: 'r1', timezone: 'Europe/Brussels' }]);
    });
    redirecting = await startServer((request, response, origin) => {
      const url = request.url ?? '/';
      if (
        url.startsWith(`${API}/restaurants/1/reservations/?`) ||
        url === `${API}/restaurants/1/reservations/`
      ) {
        // A list page whose `next` link names the other origin.
        if (!url.includes('page=2')) {
          return send(response, 200, {
            count: 2,
            next: `${other.origin}${API}/restaurants/1/reservations/?page=2`,
            previous: null,
            results: [{ id: 1, start_time: '2026-12-05T19:30:00+01:00' }],
          });
        }
        return send(response, 200, {
          count: 2,
          next: null,
          previous: `${origin}${url}`,
          results: [{ id: 2, start_time: '2026-12-05T20:30:00+01:00' }],
        });
      }
      response.writeHead(redirectStatus, { location: `${other.origin}${url}` });
      response.end();
    });
  });
  afterAll(async () => {
    await other.close();
    await redirecting.close();
  });

  const client = () =>
    new PartnerClient({
      baseUrl: redirecting.origin,
      partnerId,
      apiToken,
      rateLimit: false,
      maxRetries: 0,
      timeoutMs: 2000,
      logger: capturingLogger(),
    });

  for (const status of [301, 302, 303, 307, 308]) {
    it(`after a ${status} to another port, the other origin never sees Authorization (GET, PATCH, POST)`, async () => {
      redirectStatus = status;
      other.seen.length = 0;
      const c = client();
      await Promise.allSettled([
        c.reservations.retrieve(1, 7),
        c.reservations.cancel(1, 7),
        c.profile.retrieve(),
        c.webhooks.create({ url: 'https://partner.example/hooks' }),
      ]);
      const withCredentials = other.seen.filter((request) => request.authorization !== undefined);
      expect(withCredentials, JSON.stringify(other.seen)).toEqual([]);
      // The redirecting server itself did get the credentials: the check above is not vacuous.
      expect(redirecting.seen.some((request) => request.authorization?.startsWith('Basic '))).toBe(true);
    });
  }

  it('a list page whose next link names another origin is read from the configured origin only', async () => {
    other.seen.length = 0;
    const items = await client().reservations.list(1).toArray();
    expect(items.map((item) => item.id)).toEqual([1, 2]);
    expect(other.seen).toEqual([]);
  });
});

describe('plain http to a non-loopback host', () => {
  const build = (baseUrl: string) => {
    const logger = capturingLogger();
    new PartnerClient({ baseUrl, partnerId, apiToken, logger });
    return logger.lines.filter((line) => line.startsWith('warn'));
  };

  it('is warned about, naming the URL and the risk, without the token', () => {
    for (const baseUrl of [
      'http://api.partner-service.example',
      'http://10.0.0.12:8080/proxy',
      'http://192.168.1.5',
    ]) {
      const warnings = build(baseUrl);
      expect(warnings, baseUrl).toHaveLength(1);
      expect(warnings[0]).toMatch(/http/i);
      expect(findSecrets(warnings, secrets)).toEqual([]);
    }
  });

  it('is not warned about for https or loopback', () => {
    for (const baseUrl of [
      'https://api.partner-service.example',
      'http://127.0.0.1:8080',
      'http://localhost:3000',
      'http://[::1]:4000',
    ]) {
      expect(build(baseUrl), baseUrl).toEqual([]);
    }
  });
});
