/**
 * A real `node:http` server that speaks just enough of the partner API for bookings and
 * misbehaves on cue, the way a live service behind load balancers does: 429s with and without
 * `Retry-After`, 5xx before or after it committed the work, connections dropped before or after
 * committing, and answers slower than the client's timeout (the work still commits after the
 * delay, as a slow real server's would).
 *
 * Unlike the fake service, it honours nothing of `Idempotency-Key` (the live service may ignore
 * it): the only thing that can save a caller from a duplicate is the client's own lookup of the
 * key it stored in `metadata`. It keeps reservations in memory, binds to loopback only, bounds
 * bodies and stored rows, and closes every socket on `close()`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What the server does with one request instead of (or on top of) answering it properly. */
export type Fault =
  /** 429 before doing anything; with `Retry-After: <seconds>` when `retryAfterSeconds` is set. */
  | { kind: 'rate-limited'; retryAfterSeconds?: number }
  /** A 5xx before any work is done. */
  | { kind: 'error-before-commit'; status?: number }
  /** The work is committed, then a 5xx is answered. */
  | { kind: 'error-after-commit'; status?: number }
  /** The socket is destroyed before any work is done. */
  | { kind: 'drop-before-commit' }
  /** The work is committed, then the socket is destroyed without an answer. */
  | { kind: 'drop-after-commit' }
  /** The server waits `delayMs`, then commits and answers (to a client that has usually given up). */
  | { kind: 'slow'; delayMs: number };

export type FaultKind = Fault['kind'];
export type Operation = 'create' | 'list' | 'retrieve' | 'cancel' | 'restaurants' | 'other';

/** Decides the fault, if any, for each request. `sequence` counts requests of that operation from 0. */
export type FaultPlan = (request: { operation: Operation; sequence: number; method: string; path: string }) => Fault | undefined;

export interface StoredReservation {
  id: number;
  restaurantId: number;
  body: Record<string, unknown>;
  createdAt: string;
  cancelled: boolean;
  cancelledAt: string | null;
  /** How many cancel requests were committed against it (a repeat is harmless; the count shows retries). */
  cancelCommits: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  operation: Operation;
  fault: FaultKind | undefined;
  idempotencyKey: string | undefined;
  /** The raw Authorization header, kept so security tests can prove what was (not) sent. */
  authorization: string | undefined;
}

export interface MisbehavingServerOptions {
  partnerId: string;
  apiToken: string;
  /** Restaurants the partner may book at (others answer 404). Default `[1]`. */
  restaurantIds?: number[];
  /** `envelope` answers lists as `{count, next, previous, results}` paged by `page`/`page_size`; `array` as a bare array. */
  listShape?: 'envelope' | 'array';
  /** Page size when the caller gives none (envelope only). Default 100. */
  defaultPageSize?: number;
  /** The fault plan; none by default. It can be replaced later with `setFaultPlan`. */
  faults?: FaultPlan;
  /** Refuse to store more than this many reservations (the server is bounded). Default 10,000. */
  maxReservations?: number;
}

export interface MisbehavingServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly reservations: ReadonlyMap<number, StoredReservation>;
  readonly requests: readonly RecordedRequest[];
  setFaultPlan(plan: FaultPlan | undefined): void;
  /** Resolves when every delayed ("slow") commit still in flight has landed. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024;
const RESERVATIONS_PATH = /^\/api\/v1\/partnership\/restaurants\/([^/]+)\/reservations\/(?:([^/]+)\/)?$/;

/** A fault plan that replays a fixed list per operation, then answers normally. */
export function scriptedFaults(script: Partial<Record<Operation, (Fault | undefined)[]>>): FaultPlan {
  return ({ operation, sequence }) => script[operation]?.[sequence];
}

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32), so a failing run can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A fault plan that gives each request of the listed operations a fault with `probability`, picked evenly from `faults`. */
export function randomFaults(options: { seed: number; probability: number; faults: Fault[]; operations?: Operation[] }): FaultPlan {
  const random = seededRandom(options.seed);
  return ({ operation }) => {
    if (options.operations && !options.operations.includes(operation)) return undefined;
    if (random() >= options.probability) return undefined;
    return options.faults[Math.floor(random() * options.faults.length)];
  };
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.destroyed || response.writableEnded) return;
  const text = body === undefined ? '' : JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error('body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the server on 127.0.0.1 with a free port. */
export async function startMisbehavingServer(options: MisbehavingServerOptions): Promise<MisbehavingServer> {
  const restaurantIds = new Set(options.restaurantIds ?? [1]);
  const listShape = options.listShape ?? 'envelope';
  const defaultPageSize = options.defaultPageSize ?? 100;
  const maxReservations = options.maxReservations ?? 10_000;
  const expectedAuthorization = `Basic ${Buffer.from(`${options.partnerId}:${options.apiToken}`).toString('base64')}`;
  let plan = options.faults;
  const reservations = new Map<number, StoredReservation>();
  const requests: RecordedRequest[] = [];
  const sequences = new Map<Operation, number>();
  const pendingCommits = new Set<Promise<void>>();
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  let nextId = 1;
  let closed = false;

  const toWire = (stored: StoredReservation) => ({
    ...stored.body,
    id: stored.id,
    duration: 'PT2H',
    cancelled: stored.cancelled,
    cancelled_at: stored.cancelledAt,
    confirmed: true,
    confirmed_at: stored.createdAt,
    confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS',
    arrived: false,
    arrived_at: null,
    no_show: false,
    no_show_at: null,
    children: stored.body.children ?? 0,
    metadata: stored.body.metadata ?? null,
  });

  const classify = (method: string, path: string, query: URLSearchParams): { operation: Operation; restaurantId?: number; reservationId?: number } => {
    if (path === '/api/v1/partnership/restaurants/' && method === 'GET') return { operation: 'restaurants' };
    const match = RESERVATIONS_PATH.exec(path);
    if (!match) return { operation: 'other' };
    const restaurantId = Number(match[1]);
    const reservationId = match[2] === undefined ? undefined : Number(match[2]);
    if (reservationId === undefined) {
      if (method === 'POST') return { operation: 'create', restaurantId };
      if (method === 'GET') return { operation: 'list', restaurantId };
    } else {
      if (method === 'GET') return { operation: 'retrieve', restaurantId, reservationId };
      if (method === 'PATCH' && query.get('action') === 'cancel') return { operation: 'cancel', restaurantId, reservationId };
    }
    return { operation: 'other', restaurantId };
  };

  /** The work of a request that changes state; run at the point the fault says it commits. */
  const commit = (operation: Operation, restaurantId: number, reservationId: number | undefined, body: Record<string, unknown>): { status: number; body: unknown } => {
    const now = new Date().toISOString();
    if (operation === 'create') {
      if (reservations.size >= maxReservations) return { status: 503, body: { detail: 'Server full' } };
      const adults = body.adults;
      const errors: Record<string, string[]> = {};
      if (typeof body.start_time !== 'string') errors.start_time = ['This field is required.'];
      if (!Number.isInteger(adults) || (adults as number) < 1 || (adults as number) > 50) errors.adults = ['Ensure this value is between 1 and 50.'];
      if (Object.keys(errors).length > 0) return { status: 400, body: errors };
      const stored: StoredReservation = { id: nextId++, restaurantId, body, createdAt: now, cancelled: false, cancelledAt: null, cancelCommits: 0 };
      reservations.set(stored.id, stored);
      return { status: 201, body: toWire(stored) };
    }
    if (operation === 'cancel') {
      const stored = reservationId === undefined ? undefined : reservations.get(reservationId);
      if (!stored || stored.restaurantId !== restaurantId) return { status: 404, body: { detail: 'Not found.' } };
      stored.cancelCommits += 1;
      if (!stored.cancelled) {
        stored.cancelled = true;
        stored.cancelledAt = now;
      }
      return { status: 200, body: toWire(stored) };
    }
    return { status: 405, body: { detail: 'Method not allowed.' } };
  };

  const read = (operation: Operation, restaurantId: number, reservationId: number | undefined, query: URLSearchParams, origin: string, path: string) => {
    if (operation === 'retrieve') {
      const stored = reservationId === undefined ? undefined : reservations.get(reservationId);
      if (!stored || stored.restaurantId !== restaurantId) return { status: 404, body: { detail: 'Not found.' } };
      return { status: 200, body: toWire(stored) };
    }
    const all = [...reservations.values()].filter((stored) => stored.restaurantId === restaurantId).map(toWire);
    if (listShape === 'array') return { status: 200, body: all };
    const pageSize = Math.min(Math.max(Number(query.get('page_size')) || defaultPageSize, 1), 1000);
    const page = Math.max(Number(query.get('page')) || 1, 1);
    const pageUrl = (number: number) => {
      const url = new URL(path, origin);
      url.searchParams.set('page', String(number));
      url.searchParams.set('page_size', String(pageSize));
      return url.toString();
    };
    const start = (page - 1) * pageSize;
    return {
      status: 200,
      body: {
        count: all.length,
        next: start + pageSize < all.length ? pageUrl(page + 1) : null,
        previous: page > 1 ? pageUrl(page - 1) : null,
        results: all.slice(start, start + pageSize),
      },
    };
  };

  const delay = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const method = request.method ?? 'GET';
    const origin = `http://${request.headers.host ?? '127.0.0.1'}`;
    const url = new URL(request.url ?? '/', origin);
    const { operation, restaurantId, reservationId } = classify(method, url.pathname, url.searchParams);
    const sequence = sequences.get(operation) ?? 0;
    sequences.set(operation, sequence + 1);
    const idempotencyHeader = request.headers['idempotency-key'];
    const record: RecordedRequest = {
      method,
      path: url.pathname + url.search,
      operation,
      fault: undefined,
      idempotencyKey: typeof idempotencyHeader === 'string' ? idempotencyHeader : undefined,
      authorization: request.headers.authorization,
    };
    requests.push(record);

    let text: string;
    try {
      text = await readBody(request);
    } catch {
      return sendJson(response, 413, { detail: 'Request body too large.' });
    }
    if (request.headers.authorization !== expectedAuthorization) {
      return sendJson(response, 401, { detail: 'Invalid username/password.' }, { 'www-authenticate': 'Basic realm="api"' });
    }
    if (operation === 'restaurants') {
      // Only what the client reads to convert start times: id, schema_name and timezone.
      return sendJson(response, 200, [...restaurantIds].map((id) => ({ id, schema_name: `restaurant_${id}`, display_name: `Restaurant ${id}`, timezone: 'Europe/Brussels' })));
    }
    if (operation === 'other' || restaurantId === undefined) return sendJson(response, 404, { detail: 'Not found.' });
    if (!restaurantIds.has(restaurantId)) return sendJson(response, 404, { detail: 'Not found.' });

    let body: Record<string, unknown> = {};
    if (text) {
      try {
        const parsed: unknown = JSON.parse(text);
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
        body = parsed as Record<string, unknown>;
      } catch {
        return sendJson(response, 400, { detail: 'JSON parse error.' });
      }
    }

    const fault = plan?.({ operation, sequence, method, path: url.pathname });
    record.fault = fault?.kind;
    const changesState = operation === 'create' || operation === 'cancel';
    const answer = () =>
      changesState ? commit(operation, restaurantId, reservationId, body) : read(operation, restaurantId, reservationId, url.searchParams, origin, url.pathname);

    switch (fault?.kind) {
      case undefined: {
        const result = answer();
        return sendJson(response, result.status, result.body);
      }
      case 'rate-limited':
        return sendJson(
          response,
          429,
          { detail: 'Request was throttled.' },
          fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) },
        );
      case 'error-before-commit':
        return sendJson(response, fault.status ?? 503, { detail: 'Service unavailable.' });
      case 'error-after-commit':
        answer();
        return sendJson(response, fault.status ?? 502, { detail: 'Bad gateway.' });
      case 'drop-before-commit':
        request.socket.destroy();
        return;
      case 'drop-after-commit':
        answer();
        request.socket.destroy();
        return;
      case 'slow': {
        const landed = delay(fault.delayMs).then(() => {
          if (closed) return;
          const result = answer();
          sendJson(response, result.status, result.body);
        });
        pendingCommits.add(landed);
        await landed;
        pendingCommits.delete(landed);
        return;
      }
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) sendJson(response, 500, { detail: 'Internal error.' });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.maxConnections = 256;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    reservations,
    requests,
    setFaultPlan(next) {
      plan = next;
    },
    async settle() {
      while (pendingCommits.size > 0) await Promise.all([...pendingCommits]);
    },
    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
