/**
 * The request journal, 404s that name the nearest route, `waitForDelivery`, deliveries that have
 * been attempted when the call causing them returns (partner calls and restaurant actions alike),
 * and the typed results of the fake's actions.
 */
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { PartnerClient, type Reservation } from 'restaurant-partner-sdk';
import { createFakeService, type FakeReservation, type FakeService } from 'restaurant-partner-sdk/testing';
import { API, DRIVERS, START, createDriver } from './helpers.js';
import { basicAuthorization } from '../support/basic-auth.js';

type Driver = Awaited<ReturnType<typeof createDriver>>;
const HOOK = 'https://partner.example/hooks';

describe.each(DRIVERS)('journal and nearest routes through %s', (kind) => {
  let driver: Driver;
  afterEach(() => driver.close());

  it('lists what the fake received with the answer status and no credentials; bounded', async () => {
    driver = await createDriver(kind, { journalLimit: 5 });
    const restaurant = driver.fake.addRestaurant({ partnerIds: [driver.partner.partnerId] });
    await driver.send('GET', '/restaurants/');
    await driver.send('POST', `/restaurants/${restaurant.id}/reservations/`, {
      body: { start_time: '2026-12-02T19:00:00', adults: 2 },
    });
    await driver.send('GET', '/profile/', {
      auth: basicAuthorization(driver.partner.partnerId, 'wrong-token'),
    });
    await driver.send('POST', '/_fake/faults', {
      body: { status: 503, operation: 'webhooks.list' },
      auth: null,
    });
    await driver.send('GET', '/webhooks/?token=s3cret&page=2');
    const journal = driver.fake.requests;
    expect(
      journal.map(({ method, path, status, face, operation, partnerId }) => ({
        method,
        path,
        status,
        face,
        operation,
        partnerId,
      })),
    ).toEqual([
      {
        method: 'GET',
        path: `${API}/restaurants/`,
        status: 200,
        face: 'partner',
        operation: 'restaurants.list',
        partnerId: driver.partner.partnerId,
      },
      {
        method: 'POST',
        path: `${API}/restaurants/${restaurant.id}/reservations/`,
        status: 201,
        face: 'partner',
        operation: 'reservations.create',
        partnerId: driver.partner.partnerId,
      },
      {
        method: 'GET',
        path: `${API}/profile/`,
        status: 401,
        face: 'partner',
        operation: null,
        partnerId: null,
      },
      {
        method: 'POST',
        path: '/_fake/faults',
        status: 201,
        face: 'control',
        operation: null,
        partnerId: null,
      },
      {
        method: 'GET',
        path: `${API}/webhooks/?token=%5Bredacted%5D&page=2`,
        status: 503,
        face: 'partner',
        operation: 'webhooks.list',
        partnerId: driver.partner.partnerId,
      },
    ]);
    expect(journal[0]!.at).toBe('2026-12-01T08:00:00.000Z');
    expect(JSON.stringify(journal)).not.toMatch(new RegExp(`${driver.partner.apiToken}|s3cret|wrong-token`));
    // Over HTTP, the same list; bounded to the last five.
    await driver.send('GET', '/restaurants/');
    const listed = await driver.send('GET', '/_fake/requests', { auth: null });
    expect(listed.body).toHaveLength(5);
    expect(listed.body.at(-1)).toMatchObject({ path: `${API}/restaurants/`, status: 200 });
    expect(listed.body[0].sequence).toBe(2);
  });

  it('answers a request no route matches with a 404 naming the nearest route', async () => {
    driver = await createDriver(kind);
    const api = await driver.send('GET', '/restaurant/');
    expect(api.status).toBe(404);
    expect(api.body.detail).toContain(`Nearest: ${API}/restaurants/`);
    const deep = await driver.send('POST', '/restaurants/1/reservation/');
    expect(deep.body.detail).toContain(`Nearest: ${API}/restaurants/:restaurantId/reservations/`);
    const control = await driver.send('POST', '/_fake/clock/advanse', { body: {}, auth: null });
    expect(control.status).toBe(404);
    expect(control.body.detail).toContain('Nearest: /_fake/clock/advance');
    expect((await driver.send('POST', '/_fake/sandbox', { body: {}, auth: null })).body.detail).toContain(
      'Nearest: /_fake/sandboxes',
    );
  });
});

describe('deliveries are attempted before the call that caused them returns', () => {
  let fake: FakeService;
  afterEach(() => fake.dispose());

  async function setUp() {
    fake = createFakeService({ clock: { frozen: true, startAt: START }, rateLimit: false });
    const partner = fake.addPartner();
    const restaurant = fake.addRestaurant({
      partnerIds: [partner.partnerId],
      confirmation_mode: 'CONFIRMATION_MODE_ASYNCHRONOUS',
    });
    const received: string[] = [];
    fake.registerDeliveryHandler(HOOK, async (request) => {
      received.push((await request.json()).event);
      return Response.json({ ok: true });
    });
    const client = new PartnerClient(fake.clientOptions(partner));
    await client.webhooks.create({ url: HOOK });
    return { partner, restaurant, client, received };
  }

  it('a partner cancel and restaurant actions alike, without fake.flush()', async () => {
    const { restaurant, client, received } = await setUp();
    const booking = await client.reservations.create(restaurant.id, {
      start_time: '2026-12-02T19:00:00',
      adults: 2,
    });
    const confirmed = await fake.asRestaurant.confirm(restaurant.id, booking.id);
    expect(received).toEqual(['RESERVATION_CONFIRMED']);
    await client.reservations.cancel(restaurant.id, booking.id);
    expect(received).toEqual(['RESERVATION_CONFIRMED', 'RESERVATION_CANCELLED']);
    expect(confirmed.confirmed).toBe(true);
  });

  it('waitForDelivery resolves with the answered attempt, each once, waits for a later one, and times out naming what it saw', async () => {
    const { restaurant, client } = await setUp();
    const booking = await client.reservations.create(restaurant.id, {
      start_time: '2026-12-02T19:00:00',
      adults: 2,
    });
    await fake.asRestaurant.confirm(restaurant.id, booking.id);
    const confirmed = await fake.waitForDelivery('RESERVATION_CONFIRMED');
    expect(confirmed).toMatchObject({
      event: 'RESERVATION_CONFIRMED',
      status: 200,
      ok: true,
      reservationId: booking.id,
    });
    // Not the same attempt twice: a second wait waits for the next one.
    const pending = fake.waitForDelivery('RESERVATION_CANCELLED', { timeoutMs: 2000 });
    await fake.asCustomer.cancel(restaurant.id, booking.id);
    expect(await pending).toMatchObject({ event: 'RESERVATION_CANCELLED', reservationId: booking.id });
    await expect(fake.waitForDelivery('RESERVATION_CONFIRMED', { timeoutMs: 50 })).rejects.toMatchObject({
      name: 'FakeError',
      status: 408,
      message: expect.stringContaining('RESERVATION_CONFIRMED#1 -> 200, RESERVATION_CANCELLED#1 -> 200'),
    });
  });

  it("types the fake's action results as reservations", () => {
    expectTypeOf<Awaited<ReturnType<FakeService['asRestaurant']['confirm']>>>().toEqualTypeOf<Reservation>();
    expectTypeOf<ReturnType<FakeService['allReservations']>>().toEqualTypeOf<FakeReservation[]>();
    expectTypeOf<FakeReservation['channel']>().toEqualTypeOf<string>();
    expectTypeOf<ReturnType<FakeService['addOtherChannelBooking']>>().toEqualTypeOf<Reservation>();
  });
});
