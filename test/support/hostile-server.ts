/**
 * The one helper for answers the fake must never give. Where a test needs the partner API to
 * behave (rightly, or wrongly in a way a live service plausibly does: faults, dialects, an ignored
 * `Idempotency-Key`), it uses the fake; what is left is scripted here, answer by answer:
 *
 * - `startHostileServer`: a real `node:http` server (loopback, port 0) with a booking store that
 *   ignores `Idempotency-Key`, and one handler per test deciding how each request is (mis)answered,
 *   the way gateways and real bugs do: a 504 at once while the origin commits later (on the test's
 *   clock), malformed 2xx, looping or endless `next` links, bodies that never end, redirects, and
 *   answers echoing the credentials. Every booking is counted, so a test can hold what the client
 *   reported against what the server holds.
 * - `startRawServer`: raw TCP, for answers no HTTP library would write (malformed HTTP).
 * - `mockApi`: the same idea in-process (MSW), for client tests that state the exact wire they
 *   expect and the exact answer they get, one queued responder per request.
 *
 * The wire shapes they answer with (`restaurantBody`, `webhookBody`) are written once, here; the
 * reservation is test/support/reservation.ts's.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { PartnerClient, silentLogger, type ClientOptions } from '../../src/index.js';
import type { Clock } from '../../src/transport/clock.js';
import { basicAuthorization } from './basic-auth.js';
import { reservationBody } from './reservation.js';
import { createManualClock } from './manual-clock.js';

export const HOSTILE_API = '/api/v1/partnership';
export const KEY_FIELD = 'restaurant_partner_sdk.idempotency_key';

export interface Booking {
  id: number;
  key: string | undefined;
  body: Record<string, unknown>;
}

export interface HostileRequest {
  method: string;
  url: URL;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  raw: string;
}

/** What a handler may do with one request. */
export interface HostileTools {
  /** Stores the booking of a create now and returns it as the wire shows it. */
  commit(request: HostileRequest): Record<string, unknown>;
  /**
   * Stores the booking once `ms` have passed on the test's clock (an origin committing behind a
   * gateway). It lands before the first request the server sees at or after that time, or at
   * `commitDue()`: the server never sleeps, so it never moves a virtual clock itself.
   */
  commitLater(request: HostileRequest, ms: number): void;
  /** Every booking as the wire shows it. */
  list(): Record<string, unknown>[];
  json(status: number, body: unknown, headers?: Record<string, string>): void;
  /** Destroys the connection without an answer. */
  reset(): void;
  response: ServerResponse;
}

export type HostileHandler = (request: HostileRequest, tools: HostileTools) => unknown;

export interface HostileServer {
  url: string;
  bookings: Booking[];
  requests: HostileRequest[];
  posts(): HostileRequest[];
  setHandler(handler: HostileHandler): void;
  /** Lands every delayed commit whose time has come on the test's clock. */
  commitDue(): void;
  close(): Promise<void>;
}

/** A restaurant as the hostile server lists it: `restaurantBody` with this id. */
export function restaurantWire(id = 1, overrides: Record<string, unknown> = {}) {
  return restaurantBody({
    id,
    schema_name: `restaurant_${id}`,
    display_name: `Restaurant ${id}`,
    ...overrides,
  });
}

/** A stored booking as the wire shows it: what the caller sent over `reservationBody`. */
export function bookingWire(booking: Booking) {
  return reservationBody({ ...booking.body, id: booking.id, metadata: booking.body.metadata ?? null });
}

/** The id a request names after `/reservations/` (a retrieve, update or cancel of one booking), if any. */
export function reservationIdOf(request: HostileRequest): number | undefined {
  const match = /\/reservations\/(\d+)\/?$/.exec(request.path);
  return match ? Number(match[1]) : undefined;
}

/**
 * The ordinary answers: the restaurants list, a booking read by id (404 when unknown, as the
 * service answers), the reservations list, and a create that books.
 */
export const wellBehaved: HostileHandler = (request, tools) => {
  if (request.path === `${HOSTILE_API}/restaurants/`) return tools.json(200, [restaurantWire()]);
  const id = reservationIdOf(request);
  if (request.method === 'GET' && id !== undefined) {
    const booking = tools.list().find((each) => each.id === id);
    return booking ? tools.json(200, booking) : tools.json(404, { detail: 'Not found.' });
  }
  if (request.method === 'GET') return tools.json(200, tools.list());
  if (request.method === 'POST') return tools.json(201, tools.commit(request));
  tools.json(404, { detail: 'Not found.' });
};

/** The ordinary answers, with a create that takes `ms` of real time before it books: two creates with one key overlap. */
export const slowCreate =
  (ms: number): HostileHandler =>
  async (request, tools) => {
    if (request.method !== 'POST') return wellBehaved(request, tools);
    await new Promise((resolve) => setTimeout(resolve, ms));
    return tools.json(201, tools.commit(request));
  };

export async function startHostileServer(
  clock: Clock,
  handler: HostileHandler = wellBehaved,
): Promise<HostileServer> {
  const bookings: Booking[] = [];
  const requests: HostileRequest[] = [];
  const sockets = new Set<Socket>();
  const later: { dueAt: number; request: HostileRequest }[] = [];
  let current = handler;
  let nextId = 1;

  const commit = (request: HostileRequest) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const key = (body.metadata as Record<string, unknown> | undefined)?.[KEY_FIELD];
    const booking: Booking = { id: nextId++, key: typeof key === 'string' ? key : undefined, body };
    bookings.push(booking);
    return bookingWire(booking);
  };
  const commitDue = () => {
    for (const item of later
      .filter((entry) => entry.dueAt <= clock.now())
      .sort((a, b) => a.dueAt - b.dueAt)) {
      later.splice(later.indexOf(item), 1);
      commit(item.request);
    }
  };

  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      const url = new URL(incoming.url ?? '/', `http://${incoming.headers.host}`);
      const request: HostileRequest = {
        method: incoming.method ?? 'GET',
        url,
        path: url.pathname,
        headers: incoming.headers,
        body,
        raw,
      };
      requests.push(request);
      commitDue();
      const tools: HostileTools = {
        commit,
        commitLater: (delayed, ms) => {
          later.push({ dueAt: clock.now() + ms, request: delayed });
        },
        list: () => bookings.map(bookingWire),
        json: (status, value, headers = {}) => {
          if (response.destroyed) return;
          const text = JSON.stringify(value);
          response.writeHead(status, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
            ...headers,
          });
          response.end(text);
        },
        reset: () => incoming.socket.destroy(),
        response,
      };
      Promise.resolve(current(request, tools)).catch(() => incoming.socket.destroy());
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bookings,
    requests,
    posts: () => requests.filter((request) => request.method === 'POST'),
    setHandler: (next) => {
      current = next;
    },
    commitDue,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A raw TCP server: `answer` gets the request head as text and returns the bytes to write before closing. */
export async function startRawServer(
  answer: (head: string) => string | Buffer,
): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let head = '';
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.end(answer(head));
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---- In-process scripted answers (MSW) ----

export const BASE_URL = 'https://api.partner.test';
export const PARTNER_ID = '6f1c2a9e-9d1b-4c55-8f0e-2b7f3c0d4e11';
export const API_TOKEN = 'tok_SuperSecret_9f8e7d6c5b4a';
export const BASIC_HEADER = basicAuthorization(PARTNER_ID, API_TOKEN);
export const PREFIX = `${BASE_URL}/api/v1/partnership`;

export interface RecordedCall {
  method: string;
  url: URL;
  /** Path relative to /api/v1/partnership, with its query. */
  route: string;
  headers: Headers;
  body: unknown;
}

export type Responder = (call: RecordedCall) => Response | Promise<Response>;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return HttpResponse.json(body as never, { status, headers });
}

export function empty(status = 204): Response {
  return new HttpResponse(null, { status });
}

/** Starts MSW for the file; returns the recorder. */
export function mockApi() {
  const calls: RecordedCall[] = [];
  const queue: Responder[] = [];
  let fallback: Responder | undefined;
  const server = setupServer(
    http.all(`${BASE_URL}/*`, async ({ request }) => {
      const text = await request.text();
      let body: unknown = undefined;
      if (text) {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      const url = new URL(request.url);
      const call: RecordedCall = {
        method: request.method,
        url,
        route: `${url.pathname.replace('/api/v1/partnership', '')}${url.search}`,
        headers: request.headers,
        body,
      };
      calls.push(call);
      const responder = queue.shift() ?? fallback;
      if (!responder) return json({ detail: `no responder queued for ${request.method} ${call.route}` }, 599);
      return responder(call);
    }),
  );
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  afterEach(() => {
    calls.length = 0;
    queue.length = 0;
    fallback = undefined;
  });
  afterAll(() => server.close());

  return {
    calls,
    server,
    /** Queues one responder per coming request, in order. */
    reply(...responders: Responder[]) {
      queue.push(...responders);
    },
    /** Answers every request not covered by the queue. */
    always(responder: Responder) {
      fallback = responder;
    },
    /** A client against the mock: no rate limit and no retry sleeps unless the test asks. */
    client(options: Partial<ClientOptions> = {}) {
      return new PartnerClient({
        baseUrl: BASE_URL,
        partnerId: PARTNER_ID,
        apiToken: API_TOKEN,
        rateLimit: false,
        logger: silentLogger,
        clock: createManualClock({ autoAdvance: true }),
        ...options,
      });
    },
  };
}

/** A responder answering a create 201 with its reservation, carrying the create's own metadata (its idempotency key) as a service stores it. */
export function createdAnswer(overrides: object = {}): Responder {
  return (call) =>
    json(
      reservationBody({
        ...overrides,
        metadata: (call.body as { metadata?: unknown } | undefined)?.metadata ?? null,
      }),
      201,
    );
}

export function restaurantBody(overrides: object = {}): Record<string, unknown> {
  return {
    id: 7,
    display_name: 'Chez Test',
    schema_name: 'chez_test',
    address: '1 Rue du Test, Brussels',
    website: 'https://chez.test',
    latitude: 50.85,
    longitude: 4.35,
    timezone: 'Europe/Brussels',
    ...overrides,
  };
}

export function webhookBody(overrides: object = {}): Record<string, unknown> {
  return {
    id: 3,
    created_at: '2026-11-23T12:00:00Z',
    updated_at: '2026-11-23T12:00:00Z',
    url: 'https://partner.test/hooks',
    name: 'main',
    is_enabled: true,
    last_use_at: null,
    last_response_status_code: null,
    last_response: null,
    subscribed_events: { RESERVATION_CONFIRMED: true },
    ...overrides,
  };
}
