/**
 * An MSW stand-in for the service in client tests: records every request (method, URL, headers,
 * body) and answers with the responders a test queues, so each test states the exact wire it
 * expects and the exact answer it gets.
 */
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { PartnerClient, silentLogger, type ClientOptions } from '../../src/index.js';
import type { Clock } from '../../src/transport/clock.js';

export const BASE_URL = 'https://api.partner.test';
export const PARTNER_ID = '6f1c2a9e-9d1b-4c55-8f0e-2b7f3c0d4e11';
export const API_TOKEN = 'tok_SuperSecret_9f8e7d6c5b4a';
export const BASIC_HEADER = `Basic ${Buffer.from(`${PARTNER_ID}:${API_TOKEN}`).toString('base64')}`;
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

/** A Clock whose sleeps return at once and move virtual time; the waits are recorded. */
export function createInstantClock(start = Date.UTC(2026, 10, 23, 12)): Clock & { sleeps: number[] } {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    async sleep(ms, signal) {
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
      now += Math.max(0, ms);
    },
  };
}

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
        clock: createInstantClock(),
        ...options,
      });
    },
  };
}

/** A reservation as the service plausibly answers it. */
export function reservationBody(overrides: object = {}): Record<string, unknown> {
  return {
    id: 41,
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: null,
    phone: null,
    start_time: '2026-12-05T19:30:00+01:00',
    duration: 'PT2H',
    adults: 2,
    children: 0,
    comment: null,
    cancelled: false,
    cancelled_at: null,
    confirmed: true,
    confirmed_at: '2026-11-23T12:00:00+01:00',
    confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS',
    arrived: false,
    arrived_at: null,
    no_show: false,
    no_show_at: null,
    language: 'en',
    metadata: null,
    ...overrides,
  };
}

/** A responder answering a create 201 with its reservation, carrying the create's own metadata (its idempotency key) as a service stores it. */
export function createdAnswer(overrides: object = {}): Responder {
  return (call) => json(reservationBody({ ...overrides, metadata: (call.body as { metadata?: unknown } | undefined)?.metadata ?? null }), 201);
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
