/**
 * Behaviour that depends on real sockets, against real node:http servers (no MSW in this file,
 * so the global fetch is the real one).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConnectionError,
  IDEMPOTENCY_METADATA_KEY,
  PartnerApiError,
  PartnerClient,
  silentLogger,
  TimeoutError,
} from 'restaurant-partner-sdk';
import { API_TOKEN, PARTNER_ID, restaurantBody } from '../support/hostile-server.js';
import { reservationBody } from '../support/reservation.js';
import { createManualClock } from '../support/manual-clock.js';

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;
const servers: Server[] = [];

async function serve(handler: Handler): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => handler(request, response, body));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
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

const sendJson = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

describe('over real HTTP', () => {
  it('does not carry the Authorization header across a redirect to another origin', async () => {
    const seenByOther: (string | undefined)[] = [];
    const other = await serve((request, response) => {
      seenByOther.push(request.headers.authorization);
      sendJson(response, 200, [restaurantBody()]);
    });
    const seenByService: (string | undefined)[] = [];
    const service = await serve((request, response) => {
      seenByService.push(request.headers.authorization);
      response.writeHead(302, { location: `${other.url}/elsewhere/` });
      response.end();
    });
    const error = await clientFor(service.url)
      .restaurants.list()
      .toArray()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PartnerApiError);
    expect((error as PartnerApiError).status).toBe(302);
    expect(seenByService[0]).toMatch(/^Basic /);
    // Not followed at all: the other origin never sees a request, let alone the credentials.
    expect(seenByOther).toEqual([]);
  });

  it('a refused connection on create is retried without a lookup (the request never left)', async () => {
    const closed = await serve(() => undefined);
    const deadUrl = closed.url;
    await new Promise((resolve) => closed.server.close(resolve));
    const methods: string[] = [];
    const live = await serve((request, response, body) => {
      methods.push(`${request.method} ${request.url}`);
      if (request.url === '/api/v1/partnership/restaurants/')
        return sendJson(response, 200, [restaurantBody()]);
      sendJson(response, 201, reservationBody(JSON.parse(body)));
    });
    let calls = 0;
    // The first POST goes to a port nobody listens on; later ones to the live server.
    const fetchWithOneRefusal: typeof fetch = (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (
        url.endsWith('/reservations/') &&
        (input instanceof Request ? input.method : init?.method) === 'POST' &&
        calls++ === 0
      ) {
        return fetch(
          url.replace(live.url, deadUrl),
          input instanceof Request ? new Request(url.replace(live.url, deadUrl), input) : init,
        );
      }
      return fetch(input, init);
    };
    const reservation = await clientFor(live.url, { fetch: fetchWithOneRefusal }).reservations.create(7, {
      start_time: '2026-12-05T19:30:00',
      adults: 2,
    });
    expect(reservation.adults).toBe(2);
    expect(methods).toEqual([
      'GET /api/v1/partnership/restaurants/',
      'POST /api/v1/partnership/restaurants/7/reservations/',
    ]);
  });

  it('a connection dropped after the create was sent leads to a lookup, which finds the reservation', async () => {
    const methods: string[] = [];
    let key = '';
    const service = await serve((request, response, body) => {
      methods.push(`${request.method} ${request.url}`);
      if (request.url === '/api/v1/partnership/restaurants/')
        return sendJson(response, 200, [restaurantBody()]);
      if (request.method === 'POST') {
        key = JSON.parse(body).metadata[IDEMPOTENCY_METADATA_KEY];
        request.socket.destroy();
        return;
      }
      sendJson(response, 200, [reservationBody({ id: 501, metadata: { [IDEMPOTENCY_METADATA_KEY]: key } })]);
    });
    const reservation = await clientFor(service.url).reservations.create(7, {
      start_time: '2026-12-05T19:30:00',
      adults: 2,
    });
    expect(reservation.id).toBe(501);
    expect(methods).toEqual([
      'GET /api/v1/partnership/restaurants/',
      'POST /api/v1/partnership/restaurants/7/reservations/',
      'GET /api/v1/partnership/restaurants/7/reservations/?page_size=100',
    ]);
  });

  it('a server that sends headers and then stalls the body hits the per-attempt timeout', async () => {
    const service = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('[');
    });
    const error = await clientFor(service.url, { maxRetries: 0, timeoutMs: 100 })
      .restaurants.list()
      .toArray()
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
  });

  it('a dropped connection on a read is a ConnectionError after the retries', async () => {
    let attempts = 0;
    const service = await serve((request) => {
      attempts++;
      request.socket.destroy();
    });
    const error = await clientFor(service.url, { maxRetries: 2 })
      .restaurants.list()
      .toArray()
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.attempts).toBe(3);
    expect(attempts).toBe(3);
    expect(error.message).not.toContain(API_TOKEN);
  });
});
