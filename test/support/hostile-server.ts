/**
 * A hostile service on a real `node:http` server (loopback, port 0): a booking store that ignores
 * `Idempotency-Key`, and one handler per test deciding how each request is (mis)answered, the way
 * gateways and real bugs do: a 504 at once while the origin commits later (on the test's clock),
 * malformed 2xx, looping or endless `next` links, bodies that never end, redirects, and answers
 * echoing the credentials. Every booking is counted, so a test can hold what the client reported
 * against what the server holds. `startRawServer` speaks raw TCP for answers no HTTP library would
 * write (malformed HTTP).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import type { Clock } from '../../src/transport/clock.js';

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

export function restaurantWire(id = 1, overrides: Record<string, unknown> = {}) {
  return { id, schema_name: `restaurant_${id}`, display_name: `Restaurant ${id}`, timezone: 'Europe/Brussels', ...overrides };
}

export function bookingWire(booking: Booking) {
  return {
    ...booking.body,
    id: booking.id,
    duration: 'PT2H',
    cancelled: false,
    confirmed: true,
    confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS',
    metadata: booking.body.metadata ?? null,
  };
}

/** The ordinary answers: the restaurants list, the reservations list, and a create that books. */
export const wellBehaved: HostileHandler = (request, tools) => {
  if (request.path === `${HOSTILE_API}/restaurants/`) return tools.json(200, [restaurantWire()]);
  if (request.method === 'GET') return tools.json(200, tools.list());
  if (request.method === 'POST') return tools.json(201, tools.commit(request));
  tools.json(404, { detail: 'Not found.' });
};

export async function startHostileServer(clock: Clock, handler: HostileHandler = wellBehaved): Promise<HostileServer> {
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
    for (const item of later.filter((entry) => entry.dueAt <= clock.now()).sort((a, b) => a.dueAt - b.dueAt)) {
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
      const request: HostileRequest = { method: incoming.method ?? 'GET', url, path: url.pathname, headers: incoming.headers, body, raw };
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
          response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
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
export async function startRawServer(answer: (head: string) => string | Buffer): Promise<{ url: string; close(): Promise<void> }> {
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
