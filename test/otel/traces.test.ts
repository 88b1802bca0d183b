/**
 * `instrument()` with the OpenTelemetry SDK's in-memory exporter, the client driven against the
 * in-process fake on its frozen clock: the span tree of a booking (call, waits, attempts,
 * look-ups), each request's `traceparent`, the create's outcomes, 429 pauses and retries.
 */
import { context, propagation, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { AmbiguousCreateError, PartnerClient, silentLogger, type RequestEvent } from 'restaurant-partner-sdk';
import { createFakeService, type FakeService } from 'restaurant-partner-sdk/testing';
import { childrenOf, keepingLogger, startTelemetry, type Telemetry } from './support.js';

let telemetry: Telemetry | undefined;
let fake: FakeService | undefined;
afterEach(async () => {
  await telemetry?.stop();
  telemetry = undefined;
  fake?.dispose();
  fake = undefined;
});

const input = { start_time: { date: '2026-12-06', time: '20:00' }, adults: 2, first_name: 'Ada' };

/** A fake on a frozen clock, a partner with one restaurant, and a client recording each request's headers. */
function world(dialect: Parameters<typeof createFakeService>[0] = {}) {
  fake = createFakeService({ clock: { frozen: true }, ...dialect });
  const partner = fake.addPartner();
  const restaurant = fake.addRestaurant({ partnerIds: [partner.partnerId], timezone: 'Europe/Brussels' });
  const options = fake.clientOptions(partner);
  const sent: Headers[] = [];
  const fetch = ((request: RequestInfo | URL, init?: RequestInit) => {
    sent.push(new Headers(request instanceof Request ? request.headers : init?.headers));
    return options.fetch(request, init);
  }) as typeof globalThis.fetch;
  const logger = keepingLogger();
  const client = new PartnerClient({ ...options, fetch, logger });
  return { fake, partner, restaurant, client, sent, logger };
}

const named = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name);
const one = (spans: ReadableSpan[], name: string) => {
  const found = named(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
};

describe('a booking as a trace', () => {
  it('one INTERNAL span named reservations.create, with a wait and a CLIENT span per request (timezone read and POST)', async () => {
    telemetry = startTelemetry();
    const { client, restaurant, sent } = world();
    const booking = await client.reservations.create(restaurant.id, input);
    const spans = telemetry.spans();
    const call = one(spans, 'reservations.create');
    expect(call.kind).toBe(SpanKind.INTERNAL);
    expect(call.parentSpanContext).toBeUndefined();
    expect(call.attributes).toMatchObject({
      'restaurant_partner.operation': 'reservations.create',
      'restaurant_partner.priority': 'interactive',
      'restaurant_partner.restaurant.id': restaurant.id,
      'restaurant_partner.create.outcome': 'created',
      'restaurant_partner.create.requests': 2,
    });
    expect(call.attributes['restaurant_partner.call.id']).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
    const children = childrenOf(spans, call);
    expect(children.map((span) => span.name)).toEqual([
      'restaurant_partner.rate_limit.wait',
      'GET /api/v1/partnership/restaurants/',
      'restaurant_partner.rate_limit.wait',
      'POST /api/v1/partnership/restaurants/{restaurant_id}/reservations/',
    ]);
    const post = children[3]!;
    expect(post.kind).toBe(SpanKind.CLIENT);
    expect(post.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 201,
      'url.template': '/api/v1/partnership/restaurants/{restaurant_id}/reservations/',
      'url.full': `${fake!.baseUrl}/api/v1/partnership/restaurants/${restaurant.id}/reservations/`,
      'server.address': new URL(fake!.baseUrl).hostname,
      'server.port': 443,
      'restaurant_partner.operation': 'reservations.create',
      'restaurant_partner.call.id': call.attributes['restaurant_partner.call.id'],
    });
    expect(post.attributes['http.request.resend_count']).toBeUndefined();
    expect(post.status.code).toBe(SpanStatusCode.UNSET);
    // Each request names its own attempt span as its parent in the next service.
    const attempts = children.filter((span) => span.kind === SpanKind.CLIENT);
    expect(sent.map((headers) => headers.get('traceparent'))).toEqual(
      attempts.map((span) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`),
    );
    expect(booking.id).toBeGreaterThan(0);
    // The second wait lasts a second or more after the first answer, on the fake's clock.
    const waits = named(children, 'restaurant_partner.rate_limit.wait');
    const waited = waits.map((span) => span.attributes['restaurant_partner.rate_limit.waited_ms'] as number);
    expect(waited[0]).toBe(0);
    expect(waited[1]).toBeGreaterThanOrEqual(1000);
    expect(waits[0]!.attributes['restaurant_partner.rate_limit.limiter']).toBe('process');
  });

  it("the call is a child of the caller's active span", async () => {
    telemetry = startTelemetry();
    const { client } = world();
    await telemetry.tracer.startActiveSpan('handle checkout', async (span) => {
      await client.restaurants.list().toArray();
      span.end();
    });
    const spans = telemetry.spans();
    const outer = one(spans, 'handle checkout');
    const call = one(spans, 'restaurants.list');
    expect(call.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    expect(call.spanContext().traceId).toBe(outer.spanContext().traceId);
  });

  it('a 504 whose booking commits 3 s later: outcome recovered_by_lookup, the look-up pages as CLIENT spans of the same call', async () => {
    telemetry = startTelemetry();
    const { client, restaurant, fake: service } = world({ dialect: { idempotencyKey: 'ignored' } });
    service.injectFault({ operation: 'reservations.create', status: 504, commitDelayMs: 3000 });
    await client.reservations.create(restaurant.id, input);
    const spans = telemetry.spans();
    const call = one(spans, 'reservations.create');
    const requests = childrenOf(spans, call).filter((span) => span.kind === SpanKind.CLIENT);
    const journal = service.requests.filter((entry) => entry.face === 'partner');
    expect(requests).toHaveLength(journal.length);
    expect(call.attributes['restaurant_partner.create.outcome']).toBe('recovered_by_lookup');
    expect(call.attributes['restaurant_partner.create.requests']).toBe(journal.length);
    expect(
      requests.map((span) => [
        span.attributes['http.request.method'],
        span.attributes['http.response.status_code'],
      ]),
    ).toEqual(journal.map((entry) => [entry.method, entry.status]));
    const posted = requests.find((span) => span.attributes['http.request.method'] === 'POST')!;
    expect(posted.attributes['error.type']).toBe('504');
    expect(posted.status).toEqual({ code: SpanStatusCode.ERROR, message: '504' });
    const lookUps = requests.filter(
      (span) =>
        span.attributes['url.template'] === '/api/v1/partnership/restaurants/{restaurant_id}/reservations/' &&
        span.attributes['http.request.method'] === 'GET',
    );
    expect(lookUps.length).toBeGreaterThanOrEqual(1);
    expect(call.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('an ambiguous create, then its repeat while the key is held: outcome ambiguous both times, one warning each naming the call', async () => {
    telemetry = startTelemetry();
    const { client, restaurant, fake: service, logger } = world({ dialect: { idempotencyKey: 'ignored' } });
    service.injectFault({ operation: 'reservations.create', status: 504, commitDelayMs: 60 * 60_000 });
    const failures: unknown[] = [];
    for (let i = 0; i < 2; i += 1)
      await client.reservations
        .create(restaurant.id, input, { idempotencyKey: 'order-1' })
        .catch((error: unknown) => failures.push(error));
    expect(failures.every((error) => error instanceof AmbiguousCreateError)).toBe(true);
    const calls = named(telemetry.spans(), 'reservations.create');
    expect(calls.map((span) => span.attributes['restaurant_partner.create.outcome'])).toEqual([
      'ambiguous',
      'ambiguous',
    ]);
    expect(calls.map((span) => span.attributes['error.type'])).toEqual([
      'AmbiguousCreateError',
      'AmbiguousCreateError',
    ]);
    expect(calls[0]!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'AmbiguousCreateError' });
    const warnings = logger.lines.filter((line) => line.level === 'warn');
    expect(warnings).toHaveLength(2);
    calls.forEach((span, index) => {
      const id = span.attributes['restaurant_partner.call.id'] as string;
      expect(warnings[index]!.message).toContain(`reservations.create`);
      expect(warnings[index]!.message).toContain(`call ${id}`);
      expect(warnings[index]!.details).toMatchObject({ operation: 'reservations.create', callId: id });
    });
    expect(warnings[0]!.message).toContain('ended ambiguous');
    expect(warnings[1]!.message).toContain('held');
    // Never the key: a partner's own key may be made of a guest's details.
    expect(JSON.stringify(logger.lines)).not.toContain('order-1');
  });

  it('a repeat with the same key after the booking: replayed; the key reused for other input: reuse_refused', async () => {
    telemetry = startTelemetry();
    const { client, restaurant } = world();
    await client.reservations.create(restaurant.id, input, { idempotencyKey: 'order-2' });
    await client.reservations.create(restaurant.id, input, { idempotencyKey: 'order-2' });
    await client.reservations
      .create(restaurant.id, { ...input, adults: 4 }, { idempotencyKey: 'order-2' })
      .catch(() => undefined);
    const outcomes = named(telemetry.spans(), 'reservations.create').map(
      (span) => span.attributes['restaurant_partner.create.outcome'],
    );
    expect(outcomes).toEqual(['created', 'replayed', 'reuse_refused']);
  });

  it('a 429: the call span has a pause event, the retry is a second CLIENT span with http.request.resend_count 1', async () => {
    telemetry = startTelemetry();
    const { client, fake: service } = world();
    service.injectFault({ operation: 'restaurants.list', status: 429, headers: { 'retry-after': '2' } });
    await client.restaurants.list().toArray();
    const spans = telemetry.spans();
    const call = one(spans, 'restaurants.list');
    expect(call.events.map((event) => [event.name, event.attributes])).toEqual([
      ['restaurant_partner.rate_limit.pause', { 'restaurant_partner.rate_limit.pause_ms': 2000 }],
    ]);
    const requests = childrenOf(spans, call).filter((span) => span.kind === SpanKind.CLIENT);
    expect(requests.map((span) => span.attributes['http.response.status_code'])).toEqual([429, 200]);
    expect(requests.map((span) => span.attributes['http.request.resend_count'])).toEqual([undefined, 1]);
    expect(requests[0]!.attributes['error.type']).toBe('429');
  });

  it('hook events name the operation and the call id', async () => {
    const events: RequestEvent[] = [];
    fake = createFakeService({ clock: { frozen: true } });
    const partner = fake.addPartner();
    const client = new PartnerClient({
      ...fake.clientOptions(partner),
      logger: silentLogger,
      hooks: { onRequest: (event) => events.push(event), onResponse: (event) => events.push(event) },
    });
    await client.profile.retrieve();
    await client.restaurants.list().toArray();
    expect(events.map((event) => event.operation)).toEqual([
      'profile.retrieve',
      'profile.retrieve',
      'restaurants.list',
      'restaurants.list',
    ]);
    expect(events[0]!.callId).toBe(events[1]!.callId);
    expect(events[2]!.callId).not.toBe(events[0]!.callId);
  });

  it("with a global propagator (trace context and baggage), each request carries its attempt's traceparent and the caller's baggage", async () => {
    propagation.setGlobalPropagator(
      new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
    );
    try {
      telemetry = startTelemetry();
      const { client, sent } = world();
      const baggage = propagation.createBaggage({ tenant: { value: 'bistro-42' } });
      await context.with(propagation.setBaggage(context.active(), baggage), () =>
        client.restaurants.list().toArray(),
      );
      const attempts = telemetry.spans().filter((span) => span.kind === SpanKind.CLIENT);
      expect(attempts).toHaveLength(1);
      expect(sent.map((headers) => headers.get('traceparent'))).toEqual(
        attempts.map((span) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`),
      );
      expect(sent.map((headers) => headers.get('baggage'))).toEqual(['tenant=bistro-42']);
    } finally {
      propagation.disable();
    }
  });

  it('stopped, nothing is recorded and requests carry no traceparent', async () => {
    telemetry = startTelemetry();
    await telemetry.stop();
    const stopped = telemetry;
    telemetry = undefined;
    const { client, sent } = world();
    await client.restaurants.list().toArray();
    expect(stopped.spans()).toEqual([]);
    expect(sent.map((headers) => headers.get('traceparent'))).toEqual([null]);
  });
});
