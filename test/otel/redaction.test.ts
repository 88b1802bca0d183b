/**
 * Nothing leaks into telemetry: a hostile node:http server echoes the Authorization header, the
 * request body (a guest's name, e-mail, phone and comment) and a webhook token back in error
 * bodies, headers and 2xx answers. Every span name, attribute, event, status, metric name and
 * label, and every log line (at debug) is searched for each secret and each guest detail; every
 * attribute name is one the documentation lists. A guest detail appears only when named in
 * `recordGuestData`, and then only as its own attribute.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient } from 'restaurant-partner-sdk';
import { createClockRateLimiter } from 'restaurant-partner-sdk/testing';
import { instrument } from 'restaurant-partner-sdk/otel';
import {
  HOSTILE_API,
  restaurantWire,
  startHostileServer,
  type HostileServer,
} from '../support/hostile-server.js';
import { keepingLogger, startTelemetry, type Telemetry } from './support.js';
import { basicCredentials } from '../support/basic-auth.js';
import { createManualClock } from '../support/manual-clock.js';

const PARTNER = '6f1c1f0e-0d5a-4b7e-9a43-3c2e8f1d2b10';
const TOKEN = 'tok_live_QW9zZWNyZXQtdG9rZW4tMTIzNDU2';
const WEBHOOK_TOKEN = 'whk_ZXZlbi1tb3JlLXNlY3JldA';
const GUEST = {
  first_name: 'Adaqz',
  last_name: 'Lovelacezq',
  email: 'ada.guest.zq@example.org',
  phone: '+32470999888',
  comment: 'window seat please qzx',
};
const SECRETS = [TOKEN, WEBHOOK_TOKEN, basicCredentials(PARTNER, TOKEN)];

/** Every documented attribute name (docs/observability.md), spans and metrics. */
const SPAN_ATTRIBUTES = new Set([
  'restaurant_partner.operation',
  'restaurant_partner.call.id',
  'restaurant_partner.priority',
  'restaurant_partner.restaurant.id',
  'restaurant_partner.create.outcome',
  'restaurant_partner.create.requests',
  'restaurant_partner.rate_limit.queue_position',
  'restaurant_partner.rate_limit.limiter',
  'restaurant_partner.rate_limit.waited_ms',
  'restaurant_partner.rate_limit.pause_ms',
  'http.request.method',
  'http.response.status_code',
  'http.request.resend_count',
  'url.full',
  'url.template',
  'server.address',
  'server.port',
  'error.type',
]);
// Bounded labels only: never an id, a key or a URL with ids in it.
const METRIC_ATTRIBUTES = new Set([
  'restaurant_partner.operation',
  'restaurant_partner.priority',
  'restaurant_partner.rate_limit.limiter',
  'restaurant_partner.create.outcome',
  'http.request.method',
  'http.response.status_code',
  'url.template',
  'error.type',
]);

// Echoes what it received: in error bodies, a header, and a 2xx webhook answer with its token.
async function echoing(
  request: Parameters<Parameters<typeof startHostileServer>[1] & object>[0],
  tools: {
    json(status: number, body: unknown, headers?: Record<string, string>): void;
  },
) {
  const echo = {
    detail: `refused: ${request.raw} with ${request.headers.authorization}`,
    ...GUEST,
    auth_token: WEBHOOK_TOKEN,
  };
  const headers = { 'x-echo': String(request.headers.authorization), 'x-guest': GUEST.email };
  if (request.path === `${HOSTILE_API}/restaurants/`) return tools.json(200, [restaurantWire(1)], headers);
  if (request.path.startsWith(`${HOSTILE_API}/webhooks/`))
    return tools.json(201, { id: 5, url: 'https://partner.example/hook', ...echo }, headers);
  if (request.method === 'GET') return tools.json(503, echo, headers);
  if (request.path.includes('/reservations/')) return tools.json(400, echo, headers);
  return tools.json(500, echo, headers);
}

let server: HostileServer;
let telemetry: Telemetry | undefined;
beforeAll(async () => {
  server = await startHostileServer(createManualClock({ autoAdvance: true }), echoing);
});
afterAll(() => server.close());
afterEach(async () => {
  await telemetry?.stop();
  telemetry = undefined;
});

async function drive() {
  const clock = createManualClock({ autoAdvance: true });
  const logger = keepingLogger();
  const client = new PartnerClient({
    baseUrl: server.url,
    partnerId: PARTNER,
    apiToken: TOKEN,
    clock,
    rateLimit: createClockRateLimiter({ requestsPerSecond: 1, clock }),
    logger,
    logLevel: 'debug',
    maxRetries: 1,
    createLookupWindowMs: 0,
    hooks: {},
  });
  await client.reservations
    .create(
      1,
      { start_time: { date: '2026-12-06', time: '20:00' }, adults: 2, ...GUEST },
      { idempotencyKey: 'k-1' },
    )
    .catch(() => undefined);
  await client.reservations
    .list(1)
    .toArray()
    .catch(() => undefined);
  await client.webhooks.create({ url: 'https://partner.example/hook' }).catch(() => undefined);
  await client
    .request({ method: 'GET', path: 'restaurants/1/availability/', query: { email: GUEST.email } })
    .catch(() => undefined);
  await client.profile.update({ description: { en: GUEST.comment } }).catch(() => undefined);
  return logger;
}

/** Every string telemetry holds: span names, attribute names and values, events, statuses. */
function spanText(spans: ReadableSpan[]): string[] {
  return spans.flatMap((span) => [
    span.name,
    ...Object.entries(span.attributes).flat().map(String),
    ...span.events.flatMap((event) => [
      event.name,
      ...Object.entries(event.attributes ?? {})
        .flat()
        .map(String),
    ]),
    span.status.message ?? '',
  ]);
}

async function metricText(telemetry: Telemetry): Promise<{ text: string[]; keys: Set<string> }> {
  const text: string[] = [];
  const keys = new Set<string>();
  for (const name of await telemetry.metricNames()) {
    text.push(name);
    for (const point of await telemetry.metric(name)) {
      for (const [key, value] of Object.entries(point.attributes)) {
        keys.add(key);
        text.push(key, String(value));
      }
    }
  }
  return { text, keys };
}

describe('redaction of every attribute', () => {
  it('no token, credential, webhook token or guest detail in spans, metrics or log lines, whatever the server echoes', async () => {
    telemetry = startTelemetry();
    const logger = await drive();
    const spans = telemetry.spans();
    expect(spans.length).toBeGreaterThan(8);
    const metrics = await metricText(telemetry);
    const everything = [...spanText(spans), ...metrics.text, JSON.stringify(logger.lines)].join('\n');
    for (const secret of [...SECRETS, ...Object.values(GUEST)]) expect(everything).not.toContain(secret);
    // The raw request's query value (a guest's e-mail given to client.request) is replaced.
    const availability = spans.find((span) => String(span.attributes['url.full']).includes('availability'));
    expect(availability?.attributes['url.full']).toBe(
      `${server.url}${HOSTILE_API}/restaurants/1/availability/?email=REDACTED`,
    );
    for (const span of spans)
      for (const key of Object.keys(span.attributes))
        expect(SPAN_ATTRIBUTES, `${span.name}: ${key}`).toContain(key);
    for (const key of metrics.keys) expect(METRIC_ATTRIBUTES, key).toContain(key);
    // Failures say their class or status, never their message.
    const failed = spans.filter((span) => span.status.code === SpanStatusCode.ERROR);
    expect(failed.length).toBeGreaterThan(0);
    for (const span of failed) expect(span.status.message).toMatch(/^(?:[A-Z][A-Za-z]+|\d{3})$/);
  });

  it("recordGuestData: ['email'] records the e-mail as restaurant_partner.guest.email on the create span, and nothing else of the guest", async () => {
    telemetry = startTelemetry({ recordGuestData: ['email'] });
    await drive();
    const spans = telemetry.spans();
    const create = spans.find((span) => span.name === 'reservations.create')!;
    expect(create.attributes['restaurant_partner.guest.email']).toBe(GUEST.email);
    const elsewhere = spanText(
      spans.map((span) => (span === create ? { ...span, attributes: {}, name: '' } : span)),
    );
    expect(elsewhere.join('\n')).not.toContain(GUEST.email);
    const { first_name, last_name, phone, comment } = GUEST;
    for (const detail of [first_name, last_name, phone, comment])
      expect(spanText(spans).join('\n')).not.toContain(detail);
  });

  it('recordGuestData names an unknown field: a clear error naming it, before anything is subscribed', () => {
    expect(() => instrument({ recordGuestData: ['email', 'passport' as never] })).toThrow(
      expect.objectContaining({
        name: 'InputValidationError',
        issues: [expect.objectContaining({ field: 'recordGuestData.1' })],
        message: expect.stringContaining('unknown guest field "passport"'),
      }),
    );
    expect(() => instrument({ tracerProvider: {} as never })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ field: 'tracerProvider' })] }),
    );
  });
});
