import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_PARTNER, createFakeService } from 'restaurant-partner-sdk/testing';
import { API, DRIVERS, START, createDriver } from './helpers.js';
import { basicAuthorization } from '../support/basic-auth.js';

type Driver = Awaited<ReturnType<typeof createDriver>>;

describe.each(DRIVERS)('control routes under /_fake/ through %s', (kind) => {
  let driver: Driver;
  beforeEach(async () => {
    driver = await createDriver(kind);
  });
  afterEach(() => driver.close());

  const control = (method: string, path: string, body?: unknown) =>
    driver.send(method, `/_fake${path}`, { body, auth: null });

  it('adds a partner, a restaurant with availability, and a link; the partner then uses the API', async () => {
    const partner = await control('POST', '/partners', { name: 'From Python' });
    expect(partner.status).toBe(201);
    expect(partner.body).toEqual({
      partnerId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      apiToken: expect.any(String),
      name: 'From Python',
    });
    const restaurant = await control('POST', '/restaurants', {
      display_name: 'Tiny',
      timezone: 'America/New_York',
      confirmation_mode: 'CONFIRMATION_MODE_ASYNCHRONOUS',
      availability: { capacityCovers: 2 },
    });
    expect(restaurant.status).toBe(201);
    expect(restaurant.body).toMatchObject({
      display_name: 'Tiny',
      timezone: 'America/New_York',
      availability: { capacityCovers: 2, slotIntervalMinutes: 15 },
      partnerIds: [],
    });
    expect(
      (
        await control('POST', '/links', {
          partnerId: partner.body.partnerId,
          restaurantId: restaurant.body.id,
        })
      ).status,
    ).toBe(201);
    const auth = basicAuthorization(partner.body.partnerId, partner.body.apiToken);
    expect((await driver.send('GET', '/restaurants/', { auth })).body).toEqual([
      expect.objectContaining({ id: restaurant.body.id, display_name: 'Tiny' }),
    ]);
  });

  it('accepts the snake_case spelling of control keys', async () => {
    const restaurant = await control('POST', '/restaurants', {
      availability: { capacity_covers: 6, opening_periods: [{ days: [1], start: '18:00', end: '20:00' }] },
    });
    expect(restaurant.body.availability).toMatchObject({
      capacityCovers: 6,
      openingPeriods: [{ days: [1], start: '18:00', end: '20:00' }],
    });
    expect(
      (
        await control('POST', '/links', {
          partner_id: driver.partner.partnerId,
          restaurant_id: restaurant.body.id,
        })
      ).status,
    ).toBe(201);
    expect((await driver.send('GET', '/restaurants/')).body).toHaveLength(1);
  });

  it('refuses bad control input with a field map', async () => {
    const restaurant = await control('POST', '/restaurants', {
      timezone: 'Mars/Olympus',
      confirmation_mode: 'SOMETIMES',
      availability: {
        capacityCovers: -1,
        openingPeriods: [{ days: [8], start: '25:00', end: '10:00' }],
        wat: 1,
      },
    });
    expect(restaurant.status).toBe(400);
    expect(Object.keys(restaurant.body)).toEqual(
      expect.arrayContaining([
        'timezone',
        'confirmation_mode',
        'availability.capacityCovers',
        'availability.openingPeriods.0.days',
        'availability.openingPeriods.0.start',
        'availability.wat',
      ]),
    );
    expect((await control('POST', '/links', { partnerId: 'x' })).body.restaurantId).toEqual([
      expect.any(String),
    ]);
    expect(
      (await control('POST', '/links', { partnerId: driver.partner.partnerId, restaurantId: 42 })).status,
    ).toBe(404);
    expect((await control('POST', '/partners', { partnerId: 'not-a-uuid' })).body.partnerId).toEqual([
      expect.any(String),
    ]);
    expect((await control('POST', '/clock/advance', { duration: 'soon' })).status).toBe(400);
    expect((await control('POST', '/clock/set', { now: '2020-01-01T00:00:00Z' })).status).toBe(400);
    expect((await driver.send('POST', '/_fake/partners', { raw: '{nope', auth: null })).status).toBe(400);
    expect((await control('GET', '/partners')).status).toBe(405);
    expect((await control('GET', '/unknown')).status).toBe(404);
    expect((await control('GET', '/')).body.routes).toEqual(
      expect.arrayContaining([expect.stringContaining('POST /_fake/faults')]),
    );
  });

  it('plays the restaurant and the customer, books from other channels, moves the clock and shows deliveries', async () => {
    const restaurantId = driver.fake.addRestaurant({
      partnerIds: [driver.partner.partnerId],
      confirmation_mode: 'CONFIRMATION_MODE_ASYNCHRONOUS',
    }).id;
    const received: string[] = [];
    driver.fake.registerDeliveryHandler('https://partner.example/hook', async (request) => {
      received.push((await request.json()).event);
      return new Response(null, { status: 204 });
    });
    await driver.send('POST', '/webhooks/', { body: { url: 'https://partner.example/hook' } });
    const reservation = (
      await driver.send('POST', `/restaurants/${restaurantId}/reservations/`, {
        body: { start_time: '2026-12-02T19:00:00', adults: 2 },
      })
    ).body;
    const advanced = await control('POST', '/clock/advance', { duration: 'PT2H' });
    expect(advanced.body).toEqual({ now: '2026-12-01T10:00:00.000Z', frozen: true });
    const confirmed = await control(
      'POST',
      `/restaurants/${restaurantId}/reservations/${reservation.id}/confirm`,
    );
    expect(confirmed.body).toMatchObject({ confirmed: true, confirmed_at: '2026-12-01T11:00:00+01:00' });
    expect(
      (await control('POST', `/restaurants/${restaurantId}/reservations/${reservation.id}/confirm`)).status,
    ).toBe(409);
    const modified = await control(
      'POST',
      `/restaurants/${restaurantId}/reservations/${reservation.id}/modify`,
      { by: 'customer', adults: 3 },
    );
    expect(modified.body).toMatchObject({ adults: 3, duration: 'PT2H' });
    expect(
      (
        await control('POST', `/restaurants/${restaurantId}/reservations/${reservation.id}/modify`, {
          by: 'waiter',
        })
      ).body.by,
    ).toEqual([expect.any(String)]);
    const other = await control('POST', `/restaurants/${restaurantId}/reservations`, {
      start_time: '2026-12-02T19:00:00',
      adults: 4,
      channel: 'google',
    });
    expect(other.status).toBe(201);
    const everything = await control('GET', `/restaurants/${restaurantId}/reservations`);
    expect(everything.body.map((item: { channel: string }) => item.channel)).toEqual(['partner', 'google']);
    expect((await driver.send('GET', `/restaurants/${restaurantId}/reservations/`)).body.count).toBe(1);
    const cancelled = await control(
      'POST',
      `/restaurants/${restaurantId}/reservations/${reservation.id}/cancel`,
      { by: 'restaurant' },
    );
    expect(cancelled.body.cancelled).toBe(true);
    expect(received).toEqual(['RESERVATION_CONFIRMED', 'RESERVATION_MODIFIED', 'RESERVATION_CANCELLED']);
    const deliveries = await control('GET', '/deliveries');
    expect(
      deliveries.body.map((entry: { event: string; status: number }) => [entry.event, entry.status]),
    ).toEqual([
      ['RESERVATION_CONFIRMED', 204],
      ['RESERVATION_MODIFIED', 204],
      ['RESERVATION_CANCELLED', 204],
    ]);
  });

  it('snapshots, restores and resets', async () => {
    const restaurantId = driver.fake.addRestaurant({ partnerIds: [driver.partner.partnerId] }).id;
    await driver.send('POST', `/restaurants/${restaurantId}/reservations/`, {
      body: { start_time: '2026-12-02T19:00:00', adults: 2 },
    });
    expect((await control('POST', '/snapshots', { name: 'one booking' })).status).toBe(201);
    await driver.send('POST', `/restaurants/${restaurantId}/reservations/`, {
      body: { start_time: '2026-12-02T20:00:00', adults: 2 },
    });
    expect((await driver.send('GET', `/restaurants/${restaurantId}/reservations/`)).body.count).toBe(2);
    expect((await control('POST', `/snapshots/${encodeURIComponent('one booking')}/restore`)).status).toBe(
      200,
    );
    expect((await driver.send('GET', `/restaurants/${restaurantId}/reservations/`)).body.count).toBe(1);
    expect((await control('POST', '/snapshots/missing/restore')).status).toBe(404);
    const reset = await control('POST', '/reset');
    expect(reset.body).toEqual({ partners: [], restaurants: [] });
    expect((await driver.send('GET', '/restaurants/')).status).toBe(401);
  });

  it('changes the rate limit', async () => {
    expect((await control('POST', '/rate-limit', { requestsPerSecond: 1 })).body).toEqual({
      requestsPerSecond: 1,
    });
    expect((await driver.send('GET', '/restaurants/')).status).toBe(200);
    expect((await driver.send('GET', '/restaurants/')).status).toBe(429);
    expect((await control('POST', '/rate-limit', { requestsPerSecond: 0 })).status).toBe(400);
    await control('POST', '/rate-limit', { requestsPerSecond: false });
    expect((await driver.send('GET', '/restaurants/')).status).toBe(200);
  });
});

describe('snapshot, restore, reset and seeds (JS)', () => {
  it('restore brings back data and pending delivery retries; reset goes back to the seed', async () => {
    const fake = createFakeService({
      seed: 'demo',
      rateLimit: false,
      clock: { frozen: true, startAt: START },
    });
    const auth = basicAuthorization(DEMO_PARTNER.partnerId, DEMO_PARTNER.apiToken);
    const call = (method: string, path: string, body?: unknown) =>
      fake
        .handle(
          new Request(`http://x${API}${path}`, {
            method,
            headers: { authorization: auth },
            body: body === undefined ? undefined : JSON.stringify(body),
          }),
        )
        .then(async (response) => ({
          status: response.status,
          body: response.status === 204 ? undefined : await response.json(),
        }));
    expect(
      (await call('GET', '/restaurants/')).body.map((item: { timezone: string }) => item.timezone),
    ).toEqual(['Europe/Brussels', 'Europe/Paris', 'America/New_York']);
    expect((await call('GET', '/restaurants/4/reservations/')).status).toBe(404);

    const attempts: number[] = [];
    fake.registerDeliveryHandler('https://partner.example/h', () => {
      attempts.push(fake.clock.now());
      return new Response(null, { status: 500 });
    });
    await call('POST', '/webhooks/', { url: 'https://partner.example/h' });
    const reservation = (
      await call('POST', '/restaurants/1/reservations/', { start_time: '2026-12-02T19:00:00', adults: 2 })
    ).body;
    await call('PATCH', `/restaurants/1/reservations/${reservation.id}/?action=cancel`, {});
    await fake.flush();
    const snapshot = fake.snapshot();
    await fake.clock.advance('P1D');
    expect(attempts).toHaveLength(5);
    fake.restore(snapshot);
    expect(fake.deliveries).toHaveLength(1);
    expect((await call('GET', `/restaurants/1/reservations/${reservation.id}/`)).body.cancelled).toBe(true);
    // The restored retry is due in the past of the moved clock, so it runs at once.
    await fake.flush();
    expect(attempts).toHaveLength(6);

    fake.reset();
    expect(fake.deliveries).toEqual([]);
    expect((await call('GET', `/restaurants/1/reservations/`)).body.count).toBe(0);
    expect(fake.describeSeed().partners).toEqual([DEMO_PARTNER]);
    expect(() => fake.restore({} as never)).toThrow(TypeError);
  });

  it('a snapshot is a copy: later changes do not leak into it', async () => {
    const fake = createFakeService({ rateLimit: false });
    const snapshot = fake.snapshot();
    fake.addPartner();
    fake.restore(snapshot);
    expect(fake.describeSeed().partners).toEqual([]);
    fake.addPartner();
    fake.restore(snapshot);
    expect(fake.describeSeed().partners).toEqual([]);
  });

  it('a custom seed function runs again on reset', () => {
    const fake = createFakeService({ seed: (self) => void self.addRestaurant({ display_name: 'Seeded' }) });
    fake.addRestaurant({ display_name: 'Extra' });
    fake.reset();
    expect(fake.describeSeed().restaurants.map((item) => item.display_name)).toEqual(['Seeded']);
  });
});
