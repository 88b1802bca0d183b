/**
 * The metrics of `instrument()`, read with a MetricReader and held against the fake's journal:
 * waits for a budget shared by four callers (and their warning past `slowWaitWarnMs`), requests,
 * 429s, create outcomes, webhook deliveries and the sync's lag.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PartnerClient } from 'restaurant-partner-sdk';
import { createFakeService, type FakeService } from 'restaurant-partner-sdk/testing';
import { buildDelivery, createWebhookReceiver } from 'restaurant-partner-sdk/webhooks';
import { createReservationSync } from 'restaurant-partner-sdk/sync';
import { keepingLogger, startTelemetry, type Point, type Telemetry } from './support.js';

let telemetry: Telemetry | undefined;
let fake: FakeService | undefined;
afterEach(async () => {
  await telemetry?.stop();
  telemetry = undefined;
  fake?.dispose();
  fake = undefined;
});

function world(options: { slowWaitWarnMs?: number; ignoreKey?: boolean } = {}) {
  fake = createFakeService({
    clock: { frozen: true },
    ...(options.ignoreKey ? { dialect: { idempotencyKey: 'ignored' as const } } : {}),
  });
  const partner = fake.addPartner();
  const restaurant = fake.addRestaurant({ partnerIds: [partner.partnerId], timezone: 'Europe/Brussels' });
  const logger = keepingLogger();
  const client = new PartnerClient({
    ...fake.clientOptions(partner),
    logger,
    ...(options.slowWaitWarnMs === undefined ? {} : { slowWaitWarnMs: options.slowWaitWarnMs }),
  });
  return { fake, client, restaurant, partner, logger };
}

const total = (points: Point[]) => points.reduce((sum, point) => sum + point.value, 0);
const by = (points: Point[], key: string) =>
  Object.fromEntries(points.map((point) => [String(point.attributes[key]), point.count ?? point.value]));

describe('metrics against the journal', () => {
  it('four reads at once on a budget of 1/s: a wait per request, in turns, and one warning for each wait past slowWaitWarnMs', async () => {
    telemetry = startTelemetry();
    const { client, logger, fake: service } = world({ slowWaitWarnMs: 1500 });
    await Promise.all(Array.from({ length: 4 }, () => client.restaurants.list().toArray()));
    const waits = telemetry.spans().filter((span) => span.name === 'restaurant_partner.rate_limit.wait');
    const waited = waits.map((span) => span.attributes['restaurant_partner.rate_limit.waited_ms'] as number);
    // Every request waited its turn: one wait per request the fake received, a second apart.
    expect(waits).toHaveLength(service.requests.length);
    // The first went at once; the others waited their turns, a second apart on the fake's clock.
    const sorted = [...waited].sort((a, b) => a - b);
    expect(sorted[0]).toBe(0);
    expect(sorted.at(-1)).toBeGreaterThanOrEqual(2000);
    const positions = waits.map((span) => span.attributes['restaurant_partner.rate_limit.queue_position']);
    expect(positions).toEqual(expect.arrayContaining([0, 1]));
    const duration = await telemetry.metric('restaurant_partner.rate_limit.wait.duration');
    expect(duration).toHaveLength(1);
    expect(duration[0]!.attributes).toEqual({
      'restaurant_partner.priority': 'interactive',
      'restaurant_partner.rate_limit.limiter': 'process',
    });
    expect(duration[0]!.count).toBe(waits.length);
    expect(duration[0]!.value).toBeCloseTo(waited.reduce((sum, ms) => sum + ms, 0) / 1000, 6);
    expect(total(await telemetry.metric('restaurant_partner.rate_limit.queue_depth'))).toBe(0);
    const attempts = await telemetry.metric('restaurant_partner.client.call.attempts');
    expect(by(attempts, 'restaurant_partner.operation')).toEqual({
      'restaurants.list': service.requests.length,
    });
    const calls = await telemetry.metric('restaurant_partner.client.call.duration');
    expect(by(calls, 'restaurant_partner.operation')).toEqual({ 'restaurants.list': 4 });
    const warnings = logger.lines.filter((line) => line.level === 'warn');
    expect(warnings).toHaveLength(waited.filter((ms) => ms > 1500).length);
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    const ids = new Set(waits.map((span) => span.attributes['restaurant_partner.call.id']));
    for (const warning of warnings) {
      expect(warning.message).toMatch(
        /^restaurants\.list waited \d+ ms for the rate-limit budget \(call \S+, interactive\)/,
      );
      const details = warning.details as { operation: string; callId: string; waitedMs: number };
      expect(details.operation).toBe('restaurants.list');
      expect(ids).toContain(details.callId);
      expect(details.waitedMs).toBeGreaterThan(1500);
    }
  });

  it('the default slowWaitWarnMs (10 s) stays quiet for waits of a few seconds', async () => {
    const { client, logger } = world();
    await Promise.all(Array.from({ length: 4 }, () => client.restaurants.list().toArray()));
    expect(logger.lines.filter((line) => line.level === 'warn')).toEqual([]);
    expect(
      () => new PartnerClient({ ...fake!.clientOptions(fake!.addPartner()), slowWaitWarnMs: -1 }),
    ).toThrow(/slowWaitWarnMs/);
  });

  it('429s counted as throttled by operation; create outcomes by outcome; attempts equal the journal', async () => {
    telemetry = startTelemetry();
    const { client, restaurant, fake: service } = world({ ignoreKey: true });
    service.injectFault({ operation: 'restaurants.list', status: 429, headers: { 'retry-after': '1' } });
    const input = { start_time: { date: '2026-12-06', time: '20:00' }, adults: 2 };
    await client.reservations.create(restaurant.id, input);
    service.injectFault({ operation: 'reservations.create', status: 504, commitDelayMs: 2000 });
    await client.reservations.create(restaurant.id, input);
    await client.reservations.create(restaurant.id, input, { idempotencyKey: 'a' });
    await client.reservations.create(restaurant.id, input, { idempotencyKey: 'a' });
    expect(
      by(await telemetry.metric('restaurant_partner.rate_limit.throttled'), 'restaurant_partner.operation'),
    ).toEqual({
      'reservations.create': 1,
    });
    expect(
      by(await telemetry.metric('restaurant_partner.create.outcomes'), 'restaurant_partner.create.outcome'),
    ).toEqual({
      created: 2,
      recovered_by_lookup: 1,
      replayed: 1,
    });
    const attempts = await telemetry.metric('restaurant_partner.client.call.attempts');
    expect(total(attempts)).toBe(service.requests.filter((entry) => entry.face === 'partner').length);
    const http = await telemetry.metric('http.client.request.duration');
    const statuses = http.flatMap((point) =>
      Array(point.count).fill(point.attributes['http.response.status_code']),
    );
    expect(statuses.sort()).toEqual(service.requests.map((entry) => entry.status).sort());
  });

  it('webhook deliveries by result and duplicate', async () => {
    telemetry = startTelemetry();
    const token = 'whk_metrics_token';
    const receiver = createWebhookReceiver({ tokens: [token], logger: false }).on('*', () => undefined);
    const delivery = buildDelivery(
      {
        event: 'RESERVATION_CONFIRMED',
        reservation: { id: 9, start_time: '2026-12-06T20:00:00+01:00' },
        restaurantId: 7,
      },
      token,
    );
    const send = (authorization: string) =>
      receiver.receive({
        method: 'POST',
        headers: { ...delivery.headers, authorization },
        body: delivery.body,
      });
    await send(`Bearer ${token}`);
    await send(`Bearer ${token}`);
    await send('Bearer wrong');
    const points = await telemetry.metric('restaurant_partner.webhook.deliveries');
    const seen = points.map((point) => [point.attributes, point.value]);
    expect(seen).toEqual(
      expect.arrayContaining([
        [
          {
            'restaurant_partner.webhook.result': 'accepted',
            'restaurant_partner.webhook.duplicate': false,
            'restaurant_partner.webhook.event_type': 'RESERVATION_CONFIRMED',
          },
          1,
        ],
        [
          {
            'restaurant_partner.webhook.result': 'accepted',
            'restaurant_partner.webhook.duplicate': true,
            'restaurant_partner.webhook.event_type': 'RESERVATION_CONFIRMED',
          },
          1,
        ],
        [
          { 'restaurant_partner.webhook.result': 'refused', 'restaurant_partner.webhook.duplicate': false },
          1,
        ],
      ]),
    );
    expect(seen).toHaveLength(3);
  });

  it("the sync's lag of a webhook-delivered change: from the event's created_at, else from its delivery", async () => {
    telemetry = startTelemetry();
    const { client, restaurant, partner, fake: service } = world();
    const elsewhere = new PartnerClient({ ...service.clientOptions(partner), logger: keepingLogger() });
    const booking = await elsewhere.reservations.create(restaurant.id, {
      start_time: { date: '2026-12-06', time: '20:00' },
      adults: 2,
    });
    const sync = createReservationSync({
      client,
      restaurantIds: [restaurant.id],
      onChange: () => undefined,
      clock: service.clock,
      logger: keepingLogger(),
      reconcile: { intervalMs: 600_000 },
    });
    await sync.settled();
    // The first read found the booking: no previous read, so no lag is known for it.
    expect(await telemetry.metric('restaurant_partner.sync.lag')).toEqual([]);
    // A modification the service sent 5 s after that read, delivered 20 s after it.
    const readAt = service.clock.now();
    await service.clock.advance(20_000);
    await sync.ingest({
      type: 'RESERVATION_MODIFIED',
      created_at: new Date(readAt + 5_000).toISOString(),
      restaurant_id: restaurant.id,
      reservation: { ...booking, adults: 3 },
    });
    let lag = await telemetry.metric('restaurant_partner.sync.lag');
    expect(lag.map((point) => point.attributes)).toEqual([
      {
        'restaurant_partner.sync.change.kind': 'modified',
        'restaurant_partner.sync.change.source': 'webhook',
      },
    ]);
    expect(lag[0]!.count).toBe(1);
    expect(lag[0]!.value).toBeCloseTo(15, 3);
    // An event without created_at counts from its delivery: handed over at once, a lag of 0.
    await service.clock.advance(1_000);
    await sync.ingest({
      type: 'RESERVATION_CANCELLED',
      created_at: undefined,
      restaurant_id: restaurant.id,
      reservation: { ...booking, adults: 3, cancelled: true },
    });
    lag = await telemetry.metric('restaurant_partner.sync.lag');
    const cancelled = lag.find(
      (point) => point.attributes['restaurant_partner.sync.change.kind'] === 'cancelled',
    );
    expect(cancelled).toMatchObject({ count: 1, value: 0 });
    await sync.stop();
  });

  it("the sync's lag: a change a read found counts from the restaurant's previous read; reads later than the interval warn once", async () => {
    telemetry = startTelemetry();
    const { client, restaurant, partner, fake: service } = world();
    const logger = keepingLogger();
    const sync = createReservationSync({
      client,
      restaurantIds: [restaurant.id],
      onChange: () => undefined,
      clock: service.clock,
      logger,
      reconcile: { intervalMs: 60_000 },
    });
    await sync.settled();
    // Booked by another process (its own client): the sync learns of it from its next read.
    const elsewhere = new PartnerClient({ ...service.clientOptions(partner), logger: keepingLogger() });
    await elsewhere.reservations.create(restaurant.id, {
      start_time: { date: '2026-12-06', time: '20:00' },
      adults: 2,
    });
    await service.clock.advance(30_000);
    await sync.settled();
    const lag = await telemetry.metric('restaurant_partner.sync.lag');
    expect(lag.map((point) => point.attributes)).toEqual([
      {
        'restaurant_partner.sync.change.kind': 'created',
        'restaurant_partner.sync.change.source': 'reconcile',
      },
    ]);
    expect(lag[0]!.count).toBe(1);
    expect(lag[0]!.value).toBeGreaterThanOrEqual(30);
    expect(logger.lines).toEqual([]);
    // Two reads each two minutes apart with an interval of one: one warning, not two.
    for (let i = 0; i < 2; i += 1) {
      await service.clock.advance(120_000);
      await sync.settled();
    }
    await sync.stop();
    expect(logger.lines.map((line) => line.message)).toEqual([
      expect.stringMatching(/^sync\.read is behind: restaurant \d+ was read \d+ ms after it was due/),
    ]);
    expect(logger.lines[0]!.details).toMatchObject({ operation: 'sync.read', restaurantId: restaurant.id });
    // The line leads to the late read: its call id is the late list call's, as its spans record it.
    const late = telemetry
      .spans()
      .filter(
        (span) =>
          span.attributes['restaurant_partner.call.id'] ===
          (logger.lines[0]!.details as { callId?: string }).callId,
      );
    expect(late.map((span) => span.name)).toContain('reservations.list');
  });
});
