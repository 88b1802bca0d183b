import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AbortError,
  AmbiguousCreateError,
  ConnectionError,
  InputValidationError,
  PartnerClient,
  ServerError,
  silentLogger,
  TimeoutError,
  type ClientOptions,
  type RateLimiter,
} from 'restaurant-partner-sdk';
import { restaurantBody } from '../support/hostile-server.js';
import { reservationBody } from '../support/reservation.js';
import { createManualClock } from '../support/manual-clock.js';

const BASE_URL = 'https://api.partner.test';
const booking = { start_time: { date: '2026-12-05', time: '19:30' }, adults: 2 };

type Answer = Response | Error;

/** A fetch answering each request from `answer` (given its JSON body), recording method and path; an Error is thrown as is. */
function scriptedFetch(
  answer: (method: string, path: string, body: Record<string, unknown> | undefined) => Answer,
) {
  const requests: string[] = [];
  const fetch = (async (input: Request | string | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const path = new URL(request.url).pathname;
    requests.push(`${request.method} ${path}`);
    const text = await request.text();
    const result = answer(
      request.method,
      path,
      text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
    );
    if (result instanceof Error) throw result;
    return result;
  }) as typeof globalThis.fetch;
  return { fetch, requests };
}

const client = (options: Partial<ClientOptions> = {}) =>
  new PartnerClient({
    baseUrl: BASE_URL,
    partnerId: 'partner',
    apiToken: 'token-of-the-partner',
    rateLimit: false,
    clock: createManualClock({ autoAdvance: true }),
    logger: silentLogger,
    createLookupWindowMs: 0,
    ...options,
  });

// What undici throws for a failure, with the system error under `cause`.
const fetchFailed = (syscall: string, code: string) =>
  new TypeError('fetch failed', { cause: Object.assign(new Error(`${syscall} ${code}`), { code, syscall }) });

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe("error.sent: 'no' only when the request provably never left", () => {
  it("a refused connection (the connect phase) is 'no', and a create is sent again", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const error = await client({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 2 })
      .restaurants.list()
      .toArray()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).sent).toBe('no');
    expect((error as ConnectionError).attempts).toBe(3);
  });

  it("EHOSTUNREACH on a socket already carrying the create is 'maybe': the create is not sent again", async () => {
    const { fetch, requests } = scriptedFetch((method) =>
      method === 'POST' ? fetchFailed('read', 'EHOSTUNREACH') : Response.json([]),
    );
    const error = await client({ fetch, maxRetries: 3 })
      .reservations.create(12, booking, { timezone: 'Europe/Brussels' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AmbiguousCreateError);
    expect((error as AmbiguousCreateError).sent).toBe('maybe');
    expect((error as AmbiguousCreateError).cause).toMatchObject({ sent: 'maybe', name: 'ConnectionError' });
    expect(requests.filter((request) => request.startsWith('POST'))).toHaveLength(1);
  });

  it("EHOSTUNREACH while connecting is 'no': the create is sent again and books once", async () => {
    let posts = 0;
    const { fetch, requests } = scriptedFetch((method, _path, body) => {
      if (method !== 'POST') return Response.json([]);
      posts += 1;
      // A booking answers with the metadata it was sent (the create's key among it).
      return posts === 1
        ? fetchFailed('connect', 'EHOSTUNREACH')
        : Response.json(reservationBody({ id: 7, metadata: body?.metadata }), { status: 201 });
    });
    const reservation = await client({ fetch, maxRetries: 3 }).reservations.create(12, booking, {
      timezone: 'Europe/Brussels',
    });
    expect(reservation.id).toBe(7);
    expect(requests.filter((request) => request.startsWith('POST'))).toHaveLength(2);
  });

  it("an error from a custom fetch that names no cause is 'maybe'", async () => {
    const { fetch } = scriptedFetch(() => new Error('the proxy hung up'));
    const error = await client({ fetch, maxRetries: 0 })
      .profile.retrieve()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).sent).toBe('maybe');
  });

  it("an answer is 'yes', with the attempts made counted by the error's constructor", async () => {
    const { fetch } = scriptedFetch(() => Response.json({ detail: 'down' }, { status: 503 }));
    const error = await client({ fetch, maxRetries: 2 })
      .profile.retrieve()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ sent: 'yes', attempts: 3 });
  });

  it("a retry that fails to connect after an answered attempt still says 'yes' for the call", async () => {
    let calls = 0;
    const { fetch } = scriptedFetch(() =>
      ++calls === 1 ? Response.json({}, { status: 502 }) : fetchFailed('connect', 'ECONNREFUSED'),
    );
    const error = await client({ fetch, maxRetries: 1 })
      .profile.retrieve()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ sent: 'yes', attempts: 2 });
  });

  it("a body that stalls after the headers times out as 'yes' (the answer had begun)", async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.flushHeaders();
      response.write('{"id":');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const error = await client({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0, timeoutMs: 1000 })
      .profile.retrieve()
      .catch((caught: unknown) => caught);
    server.closeAllConnections();
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ sent: 'yes', attempts: 1 });
  });

  it("an abort while waiting for a rate-limit slot is 'no', with no attempt made", async () => {
    const limiter: RateLimiter = {
      acquire: ({ signal } = {}) =>
        new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason))),
      pause: () => undefined,
      queueDepth: 0,
    };
    const controller = new AbortController();
    const { fetch, requests } = scriptedFetch(() => Response.json({}));
    const pending = client({ fetch, rateLimit: limiter }).profile.retrieve({ signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    const error = await pending.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AbortError);
    expect(error).toMatchObject({ sent: 'no', attempts: 0 });
    expect(requests).toEqual([]);
  });
});

describe('priority travels with the call to the rate limiter', () => {
  const recordingLimiter = () => {
    const seen: (RateLimiter.AcquireOptions | undefined)[] = [];
    const limiter: RateLimiter = {
      acquire: async (options) => void seen.push(options),
      pause: () => undefined,
      queueDepth: 0,
    };
    return { limiter, seen };
  };

  it("is 'interactive' by default and 'background' when the call says so, for every request the call makes", async () => {
    const { limiter, seen } = recordingLimiter();
    const { fetch } = scriptedFetch((method, path, body) => {
      if (path.endsWith('/restaurants/'))
        return Response.json([restaurantBody({ id: 12, timezone: 'Europe/Brussels' })]);
      return method === 'POST'
        ? Response.json(reservationBody({ metadata: body?.metadata }), { status: 201 })
        : Response.json([]);
    });
    const partner = client({ fetch, rateLimit: limiter });
    await partner.profile.retrieve().catch(() => undefined);
    expect(seen.map((options) => options?.priority)).toEqual(['interactive']);
    seen.length = 0;
    // The create first reads the restaurants list for the timezone: that sub-request shares the call's priority.
    await partner.reservations.create(12, booking, { priority: 'background' });
    expect(seen.map((options) => options?.priority)).toEqual(['background', 'background']);
  });

  it('an unknown priority is refused before any request', async () => {
    const { fetch, requests } = scriptedFetch(() => Response.json({}));
    const error = await client({ fetch })
      .profile.retrieve({ priority: 'urgent' as never })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputValidationError);
    expect((error as InputValidationError).field).toBe('priority');
    expect(requests).toEqual([]);
  });
});
