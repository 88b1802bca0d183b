import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DRIVERS, createDriver } from './helpers.js';

type Driver = Awaited<ReturnType<typeof createDriver>>;

describe.each(DRIVERS)('fault injection through %s', (kind) => {
  let driver: Driver;
  let restaurantId: number;
  beforeEach(async () => {
    driver = await createDriver(kind);
    restaurantId = driver.fake.addRestaurant({ partnerIds: [driver.partner.partnerId] }).id;
  });
  afterEach(() => driver.close());

  const book = () => driver.send('POST', `/restaurants/${restaurantId}/reservations/`, { body: { start_time: '2026-12-02T19:00:00', adults: 2 } });
  const count = async () => (await driver.send('GET', `/restaurants/${restaurantId}/reservations/`)).body.count;

  it('answers a status n times for one operation only, without doing it', async () => {
    driver.fake.injectFault({ operation: 'reservations.create', status: 503, times: 2, headers: { 'retry-after': '3' } });
    expect((await driver.send('GET', '/restaurants/')).status).toBe(200);
    const first = await book();
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('3');
    expect(first.body).toEqual({ detail: 'Injected fault.' });
    expect((await book()).status).toBe(503);
    expect(await count()).toBe(0);
    expect((await book()).status).toBe(201);
    expect(driver.fake.faults).toEqual([]);
  });

  it('phase after: the booking is committed, then the answer is a 5xx', async () => {
    driver.fake.injectFault({ operation: 'reservations.create', status: 500, phase: 'after' });
    expect((await book()).status).toBe(500);
    expect(await count()).toBe(1);
  });

  it('matches PATCH operations by what they do (cancel, markArrived, markNoShow)', async () => {
    const reservation = (await book()).body;
    driver.fake.injectFault({ operation: 'reservations.markArrived', status: 502 });
    expect((await driver.send('PATCH', `/restaurants/${restaurantId}/reservations/${reservation.id}/?action=cancel`, { body: {} })).status).toBe(200);
    const other = (await driver.send('POST', `/restaurants/${restaurantId}/reservations/`, { body: { start_time: '2026-12-02T20:00:00', adults: 2 } })).body;
    expect((await driver.send('PATCH', `/restaurants/${restaurantId}/reservations/${other.id}/`, { body: { arrived: true } })).status).toBe(502);
  });

  it('adds real-time latency that ends early when the caller gives up', async () => {
    driver.fake.injectFault({ operation: 'restaurants.list', latencyMs: 150 });
    const started = performance.now();
    const slow = await driver.send('GET', '/restaurants/');
    expect(slow.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);

    // A minute of latency: only the caller giving up can end this before the test's own timeout.
    driver.fake.injectFault({ operation: 'restaurants.list', latencyMs: 60_000, status: 500 });
    const request = new Request(`${driver.baseUrl}/api/v1/partnership/restaurants/`, { headers: { authorization: driver.auth }, signal: AbortSignal.timeout(100) });
    await expect(kind === 'handle' ? driver.fake.handle(request).then((response) => { request.signal.throwIfAborted(); return response; }) : fetch(request)).rejects.toThrow();
  });

  it('drops the connection (networkError), before or after committing', async () => {
    driver.fake.injectFault({ operation: 'reservations.create', networkError: true, phase: 'after' });
    if (kind === 'handle') {
      const response = await driver.fake.handle(new Request(`${driver.baseUrl}/api/v1/partnership/restaurants/${restaurantId}/reservations/`, { method: 'POST', headers: { authorization: driver.auth }, body: JSON.stringify({ start_time: '2026-12-02T19:00:00', adults: 2 }) }));
      expect(response.type).toBe('error');
    } else {
      await expect(book()).rejects.toThrow(TypeError);
    }
    expect(await count()).toBe(1);
    driver.fake.injectFault({ networkError: true });
    if (kind === 'node:http') await expect(driver.send('GET', '/profile/')).rejects.toThrow(TypeError);
    else expect((await driver.fake.handle(new Request(`${driver.baseUrl}/api/v1/partnership/profile/`, { headers: { authorization: driver.auth } }))).type).toBe('error');
    expect((await driver.send('GET', '/profile/')).status).toBe(200);
  });

  it('is served as POST /_fake/faults, refusing a bad fault with a field map', async () => {
    const added = await driver.send('POST', '/_fake/faults', { body: { operation: 'webhooks.list', status: 418 } });
    expect(added.status).toBe(201);
    expect((await driver.send('GET', '/webhooks/')).status).toBe(418);
    const bad = await driver.send('POST', '/_fake/faults', { body: { operation: 'reservations.destroy', status: 99, times: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ operation: [expect.any(String)], status: [expect.any(String)], times: [expect.any(String)] });
    expect((await driver.send('POST', '/_fake/faults', { body: {} })).body.non_field_errors).toEqual([expect.any(String)]);
    await driver.send('POST', '/_fake/faults', { body: { status: 500, times: 5 } });
    expect((await driver.send('DELETE', '/_fake/faults')).status).toBe(204);
    expect((await driver.send('GET', '/webhooks/')).status).toBe(200);
    expect(() => driver.fake.injectFault({ operation: 'nope' as never, status: 500 })).toThrow(/operation/);
  });
});
