/**
 * What bounds one call, against real node:http servers: the size of an answer, the call's
 * deadline, `Retry-After` on 429 and 503, and which redirects are followed.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  RateLimitWaitTooLongError,
  InputValidationError,
  PartnerApiError,
  PartnerClient,
  RateLimitError,
  ResponseTooLargeError,
  ServerError,
  silentLogger,
  TimeoutError,
} from 'restaurant-partner-sdk';
import { API_TOKEN, PARTNER_ID, restaurantBody } from '../support/hostile-server.js';
import { createManualClock } from '../support/manual-clock.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;
const servers: Server[] = [];

async function serve(handler: Handler): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url} ${request.headers.authorization ? 'auth' : 'no-auth'}`);
    request.resume();
    request.on('end', () => handler(request, response));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve).closeAllConnections())),
  );
});

const clientFor = (baseUrl: string, options: Partial<ConstructorParameters<typeof PartnerClient>[0]> = {}) =>
  new PartnerClient({
    baseUrl,
    partnerId: PARTNER_ID,
    apiToken: API_TOKEN,
    rateLimit: false,
    logger: silentLogger,
    clock: createManualClock({ autoAdvance: true }),
    ...options,
  });

const sendJson = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
};

describe('maxResponseBytes', () => {
  it('refuses an endless body with ResponseTooLargeError once it passes the limit, and stops reading it', async () => {
    let sentBytes = 0;
    let closed = false;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('[');
      const pump = () => {
        while (!closed && response.write(chunk)) sentBytes += chunk.length;
        if (!closed) response.once('drain', pump);
      };
      response.on('close', () => (closed = true));
      pump();
    });
    const error = await clientFor(server.url, { maxResponseBytes: 1024 * 1024 })
      .restaurants.list()
      .toArray()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as ResponseTooLargeError).maxResponseBytes).toBe(1024 * 1024);
    // The server is cut off shortly after the limit (socket buffers aside), not left streaming.
    await vi.waitFor(() => expect(closed).toBe(true), { timeout: 5000, interval: 10 });
    expect(sentBytes).toBeLessThan(16 * 1024 * 1024);
  });

  it('refuses an answer whose Content-Length already says it is too large, before reading it', async () => {
    const server = await serve((_request, response) =>
      sendJson(response, 200, [restaurantBody({ display_name: 'x'.repeat(5000) })]),
    );
    await expect(
      clientFor(server.url, { maxResponseBytes: 1000 }).restaurants.list().toArray(),
    ).rejects.toBeInstanceOf(ResponseTooLargeError);
  });

  it('is checked at construction', () => {
    expect(() => clientFor('http://127.0.0.1:9', { maxResponseBytes: 0 })).toThrow(InputValidationError);
    expect(() => clientFor('http://127.0.0.1:9', { deadlineMs: -1 })).toThrow(InputValidationError);
  });
});

describe('deadlineMs and Retry-After', () => {
  it('fails at once with the 429 when its Retry-After would outlast the deadline, instead of waiting', async () => {
    const server = await serve((_request, response) =>
      sendJson(response, 429, { detail: 'slow down' }, { 'retry-after': '3600' }),
    );
    const clock = createManualClock({ autoAdvance: true });
    const error = await clientFor(server.url, { clock, deadlineMs: 30_000 })
      .restaurants.list()
      .toArray()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(clock.sleeps).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('honours Retry-After on a 503 as on a 429', async () => {
    let calls = 0;
    const server = await serve((_request, response) =>
      calls++ === 0
        ? sendJson(response, 503, { detail: 'maintenance' }, { 'retry-after': '7' })
        : sendJson(response, 200, [restaurantBody()]),
    );
    const clock = createManualClock({ autoAdvance: true });
    const restaurants = await clientFor(server.url, { clock }).restaurants.list().toArray();
    expect(restaurants).toHaveLength(1);
    expect(clock.sleeps).toEqual([7000]);
  });

  it('keeps the 503 with its retryAfterMs when retries run out', async () => {
    const server = await serve((_request, response) =>
      sendJson(response, 503, { detail: 'maintenance' }, { 'retry-after': '2' }),
    );
    const error = await clientFor(server.url, { maxRetries: 0 })
      .restaurants.list()
      .toArray()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).retryAfterMs).toBe(2000);
  });

  it('bounds the wait for a rate-limit slot: a call queued past its deadline fails without sending', async () => {
    const server = await serve((_request, response) => sendJson(response, 200, [restaurantBody()]));
    const client = clientFor(server.url, { clock: undefined, rateLimit: { requestsPerSecond: 1 } });
    await client.restaurants.list().toArray();
    // The next slot is a second away; this call may wait a quarter of that.
    // Its place in the queue already puts it past its deadline: refused at once, typed, nothing sent.
    const error = await client.restaurants
      .list({ deadlineMs: 250 })
      .toArray()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitWaitTooLongError);
    expect((error as RateLimitWaitTooLongError).estimatedWaitMs).toBeGreaterThan(
      (error as RateLimitWaitTooLongError).maxWaitMs,
    );
    expect((error as Error).message).toContain('refused without being sent');
    expect(server.requests).toHaveLength(1);
  });

  it('bounds an attempt by the deadline when it is shorter than timeoutMs', async () => {
    const server = await serve(() => undefined);
    const error = await clientFor(server.url, { timeoutMs: 60_000 })
      .restaurants.list({ deadlineMs: 100 })
      .toArray()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toContain('deadline of 100 ms');
  });

  it('sleeps no retry back-off past the deadline', async () => {
    const server = await serve((_request, response) => sendJson(response, 500, { detail: 'boom' }));
    const clock = createManualClock({ autoAdvance: true });
    const error = await clientFor(server.url, { clock, maxRetries: 50 })
      .restaurants.list({ deadlineMs: 5_000 })
      .toArray()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServerError);
    expect(clock.sleeps.reduce((sum, ms) => sum + ms, 0)).toBeLessThan(5_000);
  });
});

describe('redirects', () => {
  it('follows a read redirected within the service origin', async () => {
    const server = await serve((request, response) => {
      if (request.url === '/api/v1/partnership/restaurants/') {
        response.writeHead(301, { location: '/api/v1/partnership/restaurants/?moved=1' });
        return response.end();
      }
      sendJson(response, 200, [restaurantBody()]);
    });
    let slots = 0;
    const countingLimiter = { acquire: async () => void (slots += 1), pause: () => undefined, queueDepth: 0 };
    expect(
      await clientFor(server.url, { rateLimit: countingLimiter }).restaurants.list().toArray(),
    ).toHaveLength(1);
    expect(server.requests).toEqual([
      'GET /api/v1/partnership/restaurants/ auth',
      'GET /api/v1/partnership/restaurants/?moved=1 auth',
    ]);
    // The followed redirect is a request like any other: it waited for its own rate-limit slot.
    expect(slots).toBe(2);
  });

  it('never follows a redirect for a write, even within the origin', async () => {
    const server = await serve((request, response) => {
      if (request.method === 'PATCH') {
        response.writeHead(307, { location: '/api/v1/partnership/profile/elsewhere/' });
        return response.end();
      }
      sendJson(response, 200, { uuid: PARTNER_ID, name: 'x' });
    });
    const error = await clientFor(server.url)
      .profile.update({ name: 'New name' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PartnerApiError);
    expect((error as PartnerApiError).status).toBe(307);
    expect(server.requests).toEqual(['PATCH /api/v1/partnership/profile/ auth']);
  });
});
