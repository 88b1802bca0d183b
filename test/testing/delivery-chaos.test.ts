/**
 * Delivery chaos: seeded drops, duplicates, delays and reordering of webhook deliveries, the
 * same through `fake.setDeliveryChaos` and `PUT /_fake/delivery-chaos`, in a sandbox too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FakeError, type DeliveryChaosInput } from 'restaurant-partner-sdk/testing';
import { startFakeServer } from 'restaurant-partner-sdk/testing/node';
import { DRIVERS, createDriver } from './helpers.js';

type Driver = Awaited<ReturnType<typeof createDriver>>;
const HOOK = 'https://partner.example/hooks';

/** What the receiver saw: event id, event and reservation, in order of arrival. */
interface Received {
  id: string;
  event: string;
  reservationId: number | null;
}

/** A fake with one webhook fed in-process, `count` bookings, then one cancel per booking. */
async function run(
  chaos: DeliveryChaosInput | null,
  count = 20,
): Promise<{ received: Received[]; emitted: number[]; driver: Driver }> {
  const driver = await createDriver('handle');
  const restaurant = driver.fake.addRestaurant({ partnerIds: [driver.partner.partnerId] });
  const received: Received[] = [];
  driver.fake.registerDeliveryHandler(HOOK, async (request) => {
    const body = await request.json();
    received.push({ id: body.id, event: body.event, reservationId: body.reservation?.id ?? null });
    return Response.json({ ok: true });
  });
  await driver.send('POST', '/webhooks/', { body: { url: HOOK } });
  driver.fake.setDeliveryChaos(chaos);
  const emitted: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const booking = await driver.send('POST', `/restaurants/${restaurant.id}/reservations/`, {
      body: { start_time: '2026-12-03T19:00:00', adults: 1 },
    });
    await driver.send(
      'PATCH',
      `/restaurants/${restaurant.id}/reservations/${booking.body.id}/?action=cancel`,
    );
    emitted.push(booking.body.id);
  }
  // Every delay and every retry falls due within a day.
  await driver.fake.clock.advance('P1D');
  return { received, emitted, driver };
}

describe('delivery chaos', () => {
  const drivers: Driver[] = [];
  afterEach(async () => {
    for (const driver of drivers.splice(0)) await driver.close();
  });
  const keep = <T extends { driver: Driver }>(result: T): T => (drivers.push(result.driver), result);

  it('is off by default: every delivery arrives once, in order', async () => {
    const { received, emitted } = keep(await run(null));
    expect(received.map((item) => item.reservationId)).toEqual(emitted);
    expect(new Set(received.map((item) => item.id)).size).toBe(emitted.length);
  });

  it('replays exactly for the same seed, and differs for another', async () => {
    const chaos = { dropRate: 0.3, duplicateRate: 0.3, reorder: true, maxDelayMs: 60_000, seed: 42 };
    const first = keep(await run(chaos));
    const second = keep(await run(chaos));
    const other = keep(await run({ ...chaos, seed: 43 }));
    const shape = (result: { received: Received[] }) => result.received.map((item) => item.reservationId);
    expect(shape(first)).toEqual(shape(second));
    expect(shape(first)).not.toEqual(shape(other));
    // Some lost, some twice, some overtaken: the draws did something.
    const ids = shape(first);
    expect(new Set(ids).size).toBeLessThan(first.emitted.length);
    expect(ids.length).toBeGreaterThan(new Set(ids).size);
    expect(ids).not.toEqual([...ids].sort((a, b) => a! - b!));
  });

  it('dropRate 1 loses every delivery for good: never sent, never retried, logged as dropped', async () => {
    const { received, driver } = keep(await run({ dropRate: 1, seed: 1 }, 3));
    expect(received).toEqual([]);
    const log = driver.fake.deliveries;
    expect(log).toHaveLength(3);
    for (const entry of log)
      expect(entry).toMatchObject({
        status: null,
        ok: false,
        nextAttemptAt: null,
        error: expect.stringContaining('dropped by delivery chaos'),
      });
    const webhook = (await driver.send('GET', '/webhooks/')).body[0];
    expect(webhook.last_use_at).toBeNull();
  });

  it('duplicateRate 1 sends each delivery twice with the same event id', async () => {
    const { received, emitted } = keep(await run({ duplicateRate: 1, seed: 1 }, 4));
    expect(received).toHaveLength(8);
    for (const id of new Set(received.map((item) => item.id)))
      expect(received.filter((item) => item.id === id)).toHaveLength(2);
    // Without reorder, a copy never overtakes a later delivery's original.
    expect(received.map((item) => item.reservationId)).toEqual(emitted.flatMap((id) => [id, id]));
  });

  it('maxDelayMs delays on the fake clock: the call answers first, the clock delivers; without reorder the order holds', async () => {
    const driver = await createDriver('handle');
    drivers.push(driver);
    const restaurant = driver.fake.addRestaurant({ partnerIds: [driver.partner.partnerId] });
    const received: number[] = [];
    driver.fake.registerDeliveryHandler(
      HOOK,
      async (request) => (
        received.push((await request.json()).reservation.id),
        new Response(null, { status: 204 })
      ),
    );
    await driver.send('POST', '/webhooks/', { body: { url: HOOK } });
    expect(driver.fake.setDeliveryChaos({ maxDelayMs: 30_000, seed: 9 })).toEqual({
      dropRate: 0,
      duplicateRate: 0,
      reorder: false,
      maxDelayMs: 30_000,
      seed: 9,
    });
    const ids: number[] = [];
    for (let index = 0; index < 10; index += 1) {
      const booking = await driver.send('POST', `/restaurants/${restaurant.id}/reservations/`, {
        body: { start_time: '2026-12-03T19:00:00', adults: 1 },
      });
      await driver.send(
        'PATCH',
        `/restaurants/${restaurant.id}/reservations/${booking.body.id}/?action=cancel`,
      );
      ids.push(booking.body.id);
    }
    expect(received.length).toBeLessThan(10);
    await driver.fake.clock.advance(30_000);
    expect(received).toEqual(ids);
  });

  it('applies to test deliveries too', async () => {
    const driver = await createDriver('handle');
    drivers.push(driver);
    let calls = 0;
    driver.fake.registerDeliveryHandler(HOOK, () => (calls++, Response.json({})));
    const webhook = (await driver.send('POST', '/webhooks/', { body: { url: HOOK } })).body;
    driver.fake.setDeliveryChaos({ dropRate: 1 });
    expect((await driver.send('POST', `/webhooks/${webhook.id}/test/`)).body.last_use_at).toBeNull();
    driver.fake.setDeliveryChaos({ duplicateRate: 1 });
    await driver.send('POST', `/webhooks/${webhook.id}/test/`);
    expect(calls).toBe(2);
    driver.fake.setDeliveryChaos(null);
    await driver.send('POST', `/webhooks/${webhook.id}/test/`);
    expect(calls).toBe(3);
  });

  it('refuses values out of range naming the field; reset turns it off', async () => {
    const driver = await createDriver('handle');
    drivers.push(driver);
    const refusal = (() => {
      try {
        driver.fake.setDeliveryChaos({ dropRate: 1.5, maxDelayMs: -1, seed: 0.5 });
      } catch (error) {
        return error;
      }
    })();
    expect(refusal instanceof FakeError && refusal.status).toBe(400);
    expect(refusal instanceof FakeError && Object.keys(refusal.fields).sort()).toEqual([
      'dropRate',
      'maxDelayMs',
      'seed',
    ]);
    expect(driver.fake.deliveryChaos).toBeNull();
    const settings = driver.fake.setDeliveryChaos({ duplicateRate: 0.5 })!;
    expect(Number.isInteger(settings.seed)).toBe(true);
    driver.fake.reset();
    expect(driver.fake.deliveryChaos).toBeNull();
  });
});

describe.each(DRIVERS)('PUT /_fake/delivery-chaos through %s', (kind) => {
  let driver: Driver;
  afterEach(() => driver.close());

  it('answers 200 with the settings, 400 naming a field out of range or unknown, DELETE turns it off; listed in GET /_fake/', async () => {
    driver = await createDriver(kind);
    const put = await driver.send('PUT', '/_fake/delivery-chaos', {
      body: { drop_rate: 0.25, reorder: true, maxDelayMs: 5000, seed: 7 },
      auth: null,
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ dropRate: 0.25, duplicateRate: 0, reorder: true, maxDelayMs: 5000, seed: 7 });
    expect(driver.fake.deliveryChaos).toEqual(put.body);
    expect((await driver.send('GET', '/_fake/delivery-chaos', { auth: null })).body).toEqual(put.body);
    const bad = await driver.send('PUT', '/_fake/delivery-chaos', {
      body: { duplicateRate: 2, maxDelayMs: 1e12 },
      auth: null,
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body)).toEqual(expect.arrayContaining(['duplicateRate', 'maxDelayMs']));
    const misspelt = await driver.send('PUT', '/_fake/delivery-chaos', {
      body: { dropRat: 0.1 },
      auth: null,
    });
    expect(misspelt.status).toBe(400);
    expect(Object.keys(misspelt.body)).toContain('dropRat');
    expect(driver.fake.deliveryChaos).toEqual(put.body);
    expect((await driver.send('DELETE', '/_fake/delivery-chaos', { auth: null })).status).toBe(204);
    expect(driver.fake.deliveryChaos).toBeNull();
    const listed = (await driver.send('GET', '/_fake/', { auth: null })).body.routes as string[];
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^PUT \/_fake\/delivery-chaos/),
        'DELETE /_fake/delivery-chaos',
      ]),
    );
  });
});

describe('delivery chaos in a sandbox', () => {
  it("is the sandbox's own", async () => {
    const server = await startFakeServer({ seed: 'none', rateLimit: false });
    try {
      const sandbox = await (
        await fetch(`${server.url}/_fake/sandboxes`, { method: 'POST', body: '{}' })
      ).json();
      const put = await fetch(`${sandbox.controlUrl}/delivery-chaos`, {
        method: 'PUT',
        body: JSON.stringify({ dropRate: 1, seed: 3 }),
      });
      expect(put.status).toBe(200);
      expect(await (await fetch(`${sandbox.controlUrl}/delivery-chaos`)).json()).toMatchObject({
        dropRate: 1,
        seed: 3,
      });
      expect(server.fake.deliveryChaos).toBeNull();
      expect(await (await fetch(`${server.url}/_fake/delivery-chaos`)).json()).toBeNull();
    } finally {
      await server.close();
    }
  });
});
