/**
 * The fake driven through PartnerClient with `fake.clientOptions(partner)`: the way a partner's
 * own suite uses it. The rate limit stays ON (1 req/s) and nothing sleeps in real time.
 */
import { describe, expect, it } from 'vitest';
import { realWaitsDuring } from '../support/real-waits.js';
import {
  AuthenticationError,
  ConflictError,
  NoAvailabilityError,
  NotFoundError,
  PartnerClient,
  ReservationCancelledError,
  TimeoutError,
} from 'restaurant-partner-sdk';
import { createFakeService, type Dialect, type FakeServiceOptions } from 'restaurant-partner-sdk/testing';
import { START } from './helpers.js';

const silent = { warn: () => undefined, error: () => undefined };

function setUp(options: FakeServiceOptions = {}) {
  const fake = createFakeService({ clock: { frozen: true, startAt: START }, ...options });
  const partner = fake.addPartner();
  const brussels = fake.addRestaurant({ partnerIds: [partner.partnerId], timezone: 'Europe/Brussels' }).id;
  const paris = fake.addRestaurant({
    partnerIds: [partner.partnerId],
    timezone: 'Europe/Paris',
    confirmation_mode: 'CONFIRMATION_MODE_ASYNCHRONOUS',
  }).id;
  const statuses: number[] = [];
  const clientOptions = fake.clientOptions(partner);
  const countingFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const response = await clientOptions.fetch(input, init);
    statuses.push(response.status);
    return response;
  }) as typeof fetch;
  const client = new PartnerClient({ ...clientOptions, fetch: countingFetch, logger: silent });
  return { fake, partner, client, brussels, paris, statuses };
}

describe('PartnerClient against the fake (clientOptions)', () => {
  it('runs a suite of 100 calls in well under a second of wall time with the 1 req/s limit on, and never sees a 429', async () => {
    const { fake, client, brussels, statuses } = setUp();
    expect(fake.rateLimit).toBe(1);
    const startedVirtual = fake.clock.now();
    const { waits } = await realWaitsDuring(async () => {
      for (let index = 0; index < 25; index += 1) {
        const minute = String((index % 4) * 15).padStart(2, '0');
        const reservation = await client.reservations.create(brussels, {
          start_time: `2026-12-${String(2 + Math.floor(index / 4)).padStart(2, '0')}T19:${minute}:00`,
          adults: 1,
        });
        await client.reservations.retrieve(brussels, reservation.id);
        await client.restaurants.list();
        await client.reservations.cancel(brussels, reservation.id);
      }
    });
    // 100 calls of ours, plus the client's own restaurant look-up to read times in its zone.
    expect(statuses.length).toBeGreaterThanOrEqual(100);
    expect(statuses.length).toBeLessThanOrEqual(101);
    expect(statuses.filter((status) => status === 429)).toEqual([]);
    // The limiter really spaced the calls, about 100 s on the fake's clock, without one real wait
    // (the wall-time figure is `fake_suite_100_calls_ms` in `npm run bench`).
    expect(fake.clock.now() - startedVirtual).toBeGreaterThanOrEqual(99_000);
    expect(waits).toEqual([]);
  });

  it('retries a 429 after Retry-After on the fake’s clock when the client has no limiter of its own', async () => {
    const fake = createFakeService({ clock: { frozen: true, startAt: START } });
    const partner = fake.addPartner();
    const client = new PartnerClient({ ...fake.clientOptions(partner), rateLimit: false, logger: silent });
    const { waits } = await realWaitsDuring(async () => {
      for (let index = 0; index < 5; index += 1) await client.profile.retrieve();
    });
    expect(waits).toEqual([]);
    expect(fake.clock.now() - Date.parse(START)).toBeGreaterThanOrEqual(4_000);
  });

  it('covers the partner flow: book, read, list, confirm by the restaurant, arrive, no-show, cancel', async () => {
    const { fake, client, brussels, paris } = setUp();
    const booked = await client.reservations.create(brussels, {
      start_time: { date: '2026-12-02', time: '19:00' },
      adults: 2,
      first_name: 'Ada',
    });
    expect(booked).toMatchObject({
      confirmed: true,
      start_time: '2026-12-02T19:00:00+01:00',
      duration: 'PT1H30M',
    });
    expect(booked.metadata).toEqual({
      'restaurant_partner_sdk.idempotency_key': expect.any(String),
      'restaurant_partner_sdk.fingerprint': expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    expect((await client.reservations.list(brussels).toArray()).map((item) => item.id)).toEqual([booked.id]);
    expect(await client.reservations.markArrived(brussels, booked.id)).toMatchObject({ arrived: true });

    const pending = await client.reservations.create(paris, {
      start_time: '2026-12-02T20:00:00+01:00',
      adults: 2,
    });
    expect(pending.confirmed).toBe(false);
    const waiting = client.reservations.waitForConfirmation(paris, pending.id, {
      timeoutMs: 60_000,
      intervalMs: 5_000,
    });
    await fake.asRestaurant.confirm(paris, pending.id);
    expect(await waiting).toMatchObject({ id: pending.id, confirmed: true });
    await expect(client.reservations.markArrived(paris, 999)).rejects.toBeInstanceOf(NotFoundError);

    const unconfirmed = await client.reservations.create(paris, {
      start_time: '2026-12-03T20:00:00',
      adults: 2,
    });
    await expect(
      client.reservations.waitForConfirmation(paris, unconfirmed.id, {
        timeoutMs: 20_000,
        intervalMs: 5_000,
      }),
    ).rejects.toBeInstanceOf(TimeoutError);
    expect(await client.reservations.markNoShow(paris, unconfirmed.id)).toMatchObject({ no_show: true });
    await expect(client.reservations.cancel(paris, unconfirmed.id)).rejects.toBeInstanceOf(ConflictError);

    const cancelledByGuest = await client.reservations.create(paris, {
      start_time: '2026-12-04T20:00:00',
      adults: 2,
    });
    await fake.asCustomer.cancel(paris, cancelledByGuest.id);
    await expect(
      client.reservations.waitForConfirmation(paris, cancelledByGuest.id, { timeoutMs: 20_000 }),
    ).rejects.toBeInstanceOf(ReservationCancelledError);
  });

  it('maps the fake’s refusals to the client’s errors', async () => {
    const { fake, client, partner } = setUp();
    const full = fake.addRestaurant({
      partnerIds: [partner.partnerId],
      availability: { capacityCovers: 2 },
    }).id;
    await client.reservations.create(full, { start_time: '2026-12-02T19:00:00', adults: 2 });
    await expect(
      client.reservations.create(full, { start_time: '2026-12-02T19:00:00', adults: 1 }),
    ).rejects.toBeInstanceOf(NoAvailabilityError);
    const hidden = fake.addRestaurant().id;
    await expect(client.reservations.list(hidden).toArray()).rejects.toBeInstanceOf(NotFoundError);
    const stranger = new PartnerClient({
      ...fake.clientOptions({ partnerId: partner.partnerId, apiToken: 'wrong' }),
      logger: silent,
    });
    await expect(stranger.restaurants.list().toArray()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('never duplicates a booking when the fake fails after committing (5xx or dropped connection)', async () => {
    const { fake, client, brussels } = setUp();
    fake.injectFault({ operation: 'reservations.create', status: 503, phase: 'after' });
    const first = await client.reservations.create(brussels, {
      start_time: '2026-12-02T19:00:00',
      adults: 2,
    });
    fake.injectFault({ operation: 'reservations.create', networkError: true, phase: 'after' });
    const second = await client.reservations.create(brussels, {
      start_time: '2026-12-02T20:00:00',
      adults: 2,
    });
    const all = await client.reservations.list(brussels).toArray();
    expect(all.map((item) => item.id).sort()).toEqual([first.id, second.id].sort());
  });

  it('receives webhook deliveries from restaurant actions through a registered handler', async () => {
    const { fake, client, paris } = setUp();
    const received: { authorization: string | null; event: string }[] = [];
    fake.registerDeliveryHandler('https://partner.example/hooks', async (request) => {
      received.push({
        authorization: request.headers.get('authorization'),
        event: (await request.json()).event,
      });
      return Response.json({ ok: true });
    });
    const webhook = await client.webhooks.create({
      url: 'https://partner.example/hooks',
      subscribed_events: { RESERVATION_CONFIRMED: true },
    });
    const reservation = await client.reservations.create(paris, {
      start_time: '2026-12-02T20:00:00',
      adults: 2,
    });
    await fake.asRestaurant.confirm(paris, reservation.id);
    await fake.asRestaurant.modify(paris, reservation.id, { comment: 'Birthday' });
    expect(received).toEqual([
      { authorization: `Bearer ${webhook.auth_token}`, event: 'RESERVATION_CONFIRMED' },
    ]);
    expect(await client.webhooks.retrieve(webhook.id)).toMatchObject({
      last_response_status_code: 200,
      last_response: { ok: true },
    });
    const tested = await client.webhooks.test(webhook.id);
    expect(tested.last_use_at).toEqual(expect.any(String));
  });
});

const dialects: [string, Partial<Dialect>][] = [
  ['default', {}],
  [
    'every alternative',
    {
      list: 'array',
      profile: 'list',
      duration: 'hms',
      createStatus: 200,
      deleteStatus: 200,
      cancelBody: 'empty',
    },
  ],
  ['relative page links', { pageLinks: 'relative' }],
];

describe.each(dialects)('PartnerClient survives the %s dialect', (_name, dialect) => {
  it('books, pages through the list, reads, cancels, reads the profile and manages a webhook', async () => {
    const { client, brussels, partner } = setUp({ dialect });
    const created = [];
    for (let day = 2; day <= 8; day += 1)
      created.push(
        await client.reservations.create(brussels, { start_time: `2026-12-0${day}T19:00:00`, adults: 2 }),
      );
    const listed = await client.reservations.list(brussels, { page_size: 3 }).toArray();
    expect(listed.map((item) => item.id)).toEqual(created.map((item) => item.id));
    expect(await client.reservations.retrieve(brussels, created[0]!.id)).toMatchObject({
      id: created[0]!.id,
    });
    await client.reservations.cancel(brussels, created[0]!.id);
    expect((await client.reservations.retrieve(brussels, created[0]!.id)).cancelled).toBe(true);
    expect(await client.profile.retrieve()).toMatchObject({ uuid: partner.partnerId });
    const webhook = await client.webhooks.create({ url: 'https://partner.example/hooks' });
    expect(webhook.auth_token).toEqual(expect.any(String));
    await client.webhooks.delete(webhook.id);
    expect(await client.webhooks.list().toArray()).toEqual([]);
  });
});
