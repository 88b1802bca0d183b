import { DateTime } from 'luxon';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFakeService } from 'restaurant-partner-sdk/testing';
import { API, DRIVERS, createDriver } from './helpers.js';
import { basicAuthorization } from '../support/basic-auth.js';

type Driver = Awaited<ReturnType<typeof createDriver>>;

describe('commitDelayMs on the default clock, which follows real time', () => {
  it('commits by itself once that much real time has passed', async () => {
    const fake = createFakeService({ rateLimit: false });
    const partner = fake.addPartner();
    const restaurant = fake.addRestaurant({
      partnerIds: [partner.partnerId],
      availability: { minimumLeadTimeMinutes: 0 },
    });
    fake.injectFault({ operation: 'reservations.create', status: 502, commitDelayMs: 50 });
    const start = DateTime.fromMillis(fake.clock.now(), { zone: restaurant.timezone })
      .plus({ days: 1 })
      .set({ hour: 19, minute: 0, second: 0, millisecond: 0 });
    const answer = await fake.handle(
      new Request(`http://fake.test${API}/restaurants/${restaurant.id}/reservations/`, {
        method: 'POST',
        headers: { authorization: basicAuthorization(partner.partnerId, partner.apiToken) },
        body: JSON.stringify({
          start_time: start.toISO({ includeOffset: false, suppressMilliseconds: true }),
          adults: 2,
        }),
      }),
    );
    expect(answer.status).toBe(502);
    expect(fake.allReservations(restaurant.id)).toHaveLength(0);
    // Nothing advances this clock but real time.
    await vi.waitFor(() => expect(fake.allReservations(restaurant.id)).toHaveLength(1), {
      timeout: 5000,
      interval: 20,
    });
    fake.dispose();
  });
});

describe.each(DRIVERS)('fault injection through %s', (kind) => {
  let driver: Driver;
  let restaurantId: number;
  beforeEach(async () => {
    driver = await createDriver(kind);
    restaurantId = driver.fake.addRestaurant({ partnerIds: [driver.partner.partnerId] }).id;
  });
  afterEach(() => driver.close());

  const book = () =>
    driver.send('POST', `/restaurants/${restaurantId}/reservations/`, {
      body: { start_time: '2026-12-02T19:00:00', adults: 2 },
    });
  const count = async () =>
    (await driver.send('GET', `/restaurants/${restaurantId}/reservations/`)).body.count;

  it('answers a status n times for one operation only, without doing it', async () => {
    driver.fake.injectFault({
      operation: 'reservations.create',
      status: 503,
      times: 2,
      headers: { 'retry-after': '3' },
    });
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

  it('commitDelayMs: answers the gateway error at once, and the booking commits when the fake clock passes the delay', async () => {
    const added = await driver.send('POST', '/_fake/faults', {
      body: { operation: 'reservations.create', status: 504, commitDelayMs: 3000 },
    });
    expect(added.status).toBe(201);
    expect(added.body).toEqual(
      expect.objectContaining({ id: expect.any(Number), phase: 'after', commitDelayMs: 3000, status: 504 }),
    );
    expect((await book()).status).toBe(504);
    expect(await count()).toBe(0);
    await driver.send('POST', '/_fake/clock/advance', { body: { duration: 'PT2.999S' } });
    expect(await count()).toBe(0);
    await driver.fake.clock.advance(1);
    expect(await count()).toBe(1);
    // Committed at its own time: two seconds and 999 ms are not enough, three are.
    const [booking] = driver.fake.allReservations(restaurantId);
    expect(booking).toMatchObject({ confirmed: true, confirmed_at: '2026-12-01T09:00:03+01:00' });
  });

  it.each(['honoured', 'ignored'] as const)(
    'commitDelayMs with a repeat of the same key before the commit, idempotencyKey %s',
    async (idempotencyKey) => {
      await driver.close();
      driver = await createDriver(kind, { dialect: { idempotencyKey } });
      restaurantId = driver.fake.addRestaurant({ partnerIds: [driver.partner.partnerId] }).id;
      driver.fake.injectFault({ operation: 'reservations.create', networkError: true, commitDelayMs: 2000 });
      const send = () =>
        driver.send('POST', `/restaurants/${restaurantId}/reservations/`, {
          body: { start_time: '2026-12-02T19:00:00', adults: 2 },
          headers: { 'idempotency-key': 'k-1' },
        });
      if (kind === 'handle') await send().catch(() => undefined);
      else await expect(send()).rejects.toThrow(TypeError);
      expect((await send()).status).toBe(201);
      await driver.fake.clock.advance('PT2S');
      // A service honouring the key replays the first answer for the late commit; one ignoring it books twice.
      expect(await count()).toBe(idempotencyKey === 'honoured' ? 1 : 2);
    },
  );

  it('commitDelayMs needs phase after and an answer to give meanwhile', () => {
    expect(() => driver.fake.injectFault({ status: 504, phase: 'before', commitDelayMs: 10 })).toThrow(
      /commitDelayMs: Only with phase "after"/,
    );
    expect(() => driver.fake.injectFault({ latencyMs: 5, commitDelayMs: 10 })).toThrow(
      /commitDelayMs: Needs a status or networkError/,
    );
    expect(() => driver.fake.injectFault({ status: 504, commitDelayMs: -1 })).toThrow(/commitDelayMs/);
  });

  it('matches PATCH operations by what they do (cancel, markArrived, markNoShow)', async () => {
    const reservation = (await book()).body;
    driver.fake.injectFault({ operation: 'reservations.markArrived', status: 502 });
    expect(
      (
        await driver.send(
          'PATCH',
          `/restaurants/${restaurantId}/reservations/${reservation.id}/?action=cancel`,
          { body: {} },
        )
      ).status,
    ).toBe(200);
    const other = (
      await driver.send('POST', `/restaurants/${restaurantId}/reservations/`, {
        body: { start_time: '2026-12-02T20:00:00', adults: 2 },
      })
    ).body;
    expect(
      (
        await driver.send('PATCH', `/restaurants/${restaurantId}/reservations/${other.id}/`, {
          body: { arrived: true },
        })
      ).status,
    ).toBe(502);
  });

  it('adds real-time latency that ends early when the caller gives up', async () => {
    driver.fake.injectFault({ operation: 'restaurants.list', latencyMs: 150 });
    const started = performance.now();
    const slow = await driver.send('GET', '/restaurants/');
    expect(slow.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);

    // A minute of latency: only the caller giving up can end this before the test's own timeout.
    driver.fake.injectFault({ operation: 'restaurants.list', latencyMs: 60_000, status: 500 });
    const request = new Request(`${driver.baseUrl}/api/v1/partnership/restaurants/`, {
      headers: { authorization: driver.auth },
      signal: AbortSignal.timeout(100),
    });
    await expect(
      kind === 'handle'
        ? driver.fake.handle(request).then((response) => {
            request.signal.throwIfAborted();
            return response;
          })
        : fetch(request),
    ).rejects.toThrow();
  });

  it('drops the connection (networkError), before or after committing', async () => {
    driver.fake.injectFault({ operation: 'reservations.create', networkError: true, phase: 'after' });
    if (kind === 'handle') {
      const response = await driver.fake.handle(
        new Request(`${driver.baseUrl}/api/v1/partnership/restaurants/${restaurantId}/reservations/`, {
          method: 'POST',
          headers: { authorization: driver.auth },
          body: JSON.stringify({ start_time: '2026-12-02T19:00:00', adults: 2 }),
        }),
      );
      expect(response.type).toBe('error');
    } else {
      await expect(book()).rejects.toThrow(TypeError);
    }
    expect(await count()).toBe(1);
    driver.fake.injectFault({ networkError: true });
    if (kind === 'node:http') await expect(driver.send('GET', '/profile/')).rejects.toThrow(TypeError);
    else
      expect(
        (
          await driver.fake.handle(
            new Request(`${driver.baseUrl}/api/v1/partnership/profile/`, {
              headers: { authorization: driver.auth },
            }),
          )
        ).type,
      ).toBe('error');
    expect((await driver.send('GET', '/profile/')).status).toBe(200);
  });

  it('is served as POST /_fake/faults, refusing a bad fault with a field map', async () => {
    const added = await driver.send('POST', '/_fake/faults', {
      body: { operation: 'webhooks.list', status: 418 },
    });
    expect(added.status).toBe(201);
    expect((await driver.send('GET', '/webhooks/')).status).toBe(418);
    const bad = await driver.send('POST', '/_fake/faults', {
      body: { operation: 'reservations.destroy', status: 99, times: 0 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      operation: [expect.any(String)],
      status: [expect.any(String)],
      times: [expect.any(String)],
    });
    expect((await driver.send('POST', '/_fake/faults', { body: {} })).body.non_field_errors).toEqual([
      expect.any(String),
    ]);
    await driver.send('POST', '/_fake/faults', { body: { status: 500, times: 5 } });
    expect((await driver.send('DELETE', '/_fake/faults')).status).toBe(204);
    expect((await driver.send('GET', '/webhooks/')).status).toBe(200);
    expect(() => driver.fake.injectFault({ operation: 'nope' as never, status: 500 })).toThrow(/operation/);
  });
});
