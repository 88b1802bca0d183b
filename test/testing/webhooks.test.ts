import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DRIVERS, createDriver } from './helpers.js';
import { basicAuthorization } from '../support/basic-auth.js';
import { RESERVATION_EVENT_TYPES } from '../../src/resources/event-names.js';

type Driver = Awaited<ReturnType<typeof createDriver>>;
const HOOK_URL = 'https://partner.example/hooks/reservations';

describe.each(DRIVERS)('webhook operations through %s', (kind) => {
  let driver: Driver;
  beforeEach(async () => {
    driver = await createDriver(kind);
  });
  afterEach(() => driver.close());

  it('creates (201, auth_token shown once), lists, reads, updates and deletes (204)', async () => {
    const created = await driver.send('POST', '/webhooks/', {
      body: { url: HOOK_URL, name: 'Main', id: 77, last_use_at: '2020-01-01T00:00:00Z', auth_token: 'mine' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: 1,
      created_at: '2026-12-01T08:00:00Z',
      updated_at: '2026-12-01T08:00:00Z',
      url: HOOK_URL,
      name: 'Main',
      is_enabled: true,
      last_use_at: null,
      last_response_status_code: null,
      last_response: null,
      // Every event the service sends, from the one list of names.
      subscribed_events: Object.fromEntries(RESERVATION_EVENT_TYPES.map((name) => [name, true])),
      auth_token: expect.stringMatching(/^whk_[A-Za-z0-9_-]{20,}$/),
    });
    expect(created.body.auth_token).not.toBe('mine');
    const { auth_token: _token, ...shown } = created.body;
    expect((await driver.send('GET', '/webhooks/')).body).toEqual([shown]);
    expect((await driver.send('GET', '/webhooks/1/')).body).toEqual(shown);

    await driver.fake.clock.advance('PT1M');
    const updated = await driver.send('PATCH', '/webhooks/1/', {
      body: { is_enabled: false, subscribed_events: { RESERVATION_CANCELLED: true } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: 'Main',
      is_enabled: false,
      updated_at: '2026-12-01T08:01:00Z',
      subscribed_events: Object.fromEntries(
        RESERVATION_EVENT_TYPES.map((name) => [name, name === 'RESERVATION_CANCELLED']),
      ),
    });
    expect(updated.body.auth_token).toBeUndefined();

    const deleted = await driver.send('DELETE', '/webhooks/1/');
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await driver.send('GET', '/webhooks/1/')).status).toBe(404);
    expect((await driver.send('GET', '/webhooks/')).body).toEqual([]);
  });

  it('regenerates the token (200 with the new auth_token)', async () => {
    const created = await driver.send('POST', '/webhooks/', { body: { url: HOOK_URL } });
    const regenerated = await driver.send('POST', `/webhooks/${created.body.id}/auth-token/`, { body: {} });
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.auth_token).toMatch(/^whk_/);
    expect(regenerated.body.auth_token).not.toBe(created.body.auth_token);
  });

  it("counts the name's 125 characters in code points, as the spec and the client do", async () => {
    const emoji = '\u{1F600}';
    const atLimit = await driver.send('POST', '/webhooks/', {
      body: { url: HOOK_URL, name: emoji.repeat(125) },
    });
    expect(atLimit.status).toBe(201);
    const overLimit = await driver.send('POST', '/webhooks/', {
      body: { url: HOOK_URL, name: emoji.repeat(126) },
    });
    expect(overLimit.status).toBe(400);
    expect(overLimit.body.name).toEqual([expect.any(String)]);
  });

  it('answers 400 with a field map for bad input and changes nothing', async () => {
    for (const [body, field] of [
      [{}, 'url'],
      [{ url: 'ftp://partner.example/hook' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: `https://partner.example/${'a'.repeat(500)}` }, 'url'],
      [{ url: HOOK_URL, name: 'n'.repeat(126) }, 'name'],
      [{ url: HOOK_URL, is_enabled: 'yes' }, 'is_enabled'],
      [
        { url: HOOK_URL, subscribed_events: { RESERVATION_CREATED: true } },
        'subscribed_events.RESERVATION_CREATED',
      ],
      [
        { url: HOOK_URL, subscribed_events: { RESERVATION_CANCELLED: 1 } },
        'subscribed_events.RESERVATION_CANCELLED',
      ],
      [{ url: HOOK_URL, subscribed_events: ['RESERVATION_CANCELLED'] }, 'subscribed_events'],
    ] as const) {
      const answer = await driver.send('POST', '/webhooks/', { body });
      expect(answer.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(answer.body[field]).toEqual([expect.any(String)]);
    }
    expect((await driver.send('GET', '/webhooks/')).body).toEqual([]);
    const created = await driver.send('POST', '/webhooks/', { body: { url: HOOK_URL, name: null } });
    expect(created.body.name).toBeNull();
    const badPatch = await driver.send('PATCH', `/webhooks/${created.body.id}/`, {
      body: { url: 'mailto:a@b.c' },
    });
    expect(badPatch.status).toBe(400);
    expect((await driver.send('GET', `/webhooks/${created.body.id}/`)).body.url).toBe(HOOK_URL);
  });

  it('hides other partners’ webhooks (404)', async () => {
    const stranger = driver.fake.addPartner();
    const theirs = await driver.send('POST', '/webhooks/', {
      body: { url: HOOK_URL },
      auth: basicAuthorization(stranger.partnerId, stranger.apiToken),
    });
    for (const [method, path] of [
      ['GET', `/webhooks/${theirs.body.id}/`],
      ['PATCH', `/webhooks/${theirs.body.id}/`],
      ['DELETE', `/webhooks/${theirs.body.id}/`],
      ['POST', `/webhooks/${theirs.body.id}/auth-token/`],
      ['POST', `/webhooks/${theirs.body.id}/test/`],
    ] as const) {
      expect(
        (await driver.send(method, path, method === 'GET' || method === 'DELETE' ? {} : { body: {} })).status,
        `${method} ${path}`,
      ).toBe(404);
    }
    expect((await driver.send('GET', '/webhooks/')).body).toEqual([]);
  });
});

describe('deliveries', () => {
  let driver: Driver;
  let restaurantId: number;
  let asyncRestaurantId: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the delivery's wire body, read field by field
  let received: { request: Request; body: any; at: number }[];
  let answers: (() => Response)[];

  beforeEach(async () => {
    driver = await createDriver('handle');
    restaurantId = driver.fake.addRestaurant({ partnerIds: [driver.partner.partnerId] }).id;
    asyncRestaurantId = driver.fake.addRestaurant({
      partnerIds: [driver.partner.partnerId],
      confirmation_mode: 'CONFIRMATION_MODE_ASYNCHRONOUS',
    }).id;
    received = [];
    answers = [];
    driver.fake.registerDeliveryHandler(HOOK_URL, async (request) => {
      received.push({ request, body: JSON.parse(await request.clone().text()), at: driver.fake.clock.now() });
      return (answers.shift() ?? (() => Response.json({ received: true })))();
    });
  });
  afterEach(() => driver.close());

  const hook = async (body: Record<string, unknown> = {}) =>
    (await driver.send('POST', '/webhooks/', { body: { url: HOOK_URL, ...body } })).body;
  const book = async (restaurant = restaurantId) =>
    (
      await driver.send('POST', `/restaurants/${restaurant}/reservations/`, {
        body: { start_time: '2026-12-02T19:00:00', adults: 2 },
      })
    ).body;

  it('sends a TEST delivery with the Bearer token and records the answer on the webhook', async () => {
    const webhook = await hook();
    await driver.fake.clock.advance('PT5M');
    const tested = await driver.send('POST', `/webhooks/${webhook.id}/test/`, { body: {} });
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({
      last_use_at: '2026-12-01T08:05:00Z',
      last_response_status_code: 200,
      last_response: { received: true },
    });
    expect(received).toHaveLength(1);
    expect(received[0]!.request.method).toBe('POST');
    expect(received[0]!.request.headers.get('authorization')).toBe(`Bearer ${webhook.auth_token}`);
    expect(received[0]!.request.headers.get('content-type')).toBe('application/json');
    expect(received[0]!.body).toEqual({
      id: expect.stringMatching(/^evt_/),
      event: 'TEST',
      created_at: '2026-12-01T08:05:00Z',
      restaurant_id: null,
      reservation: null,
      webhook_id: webhook.id,
    });
    expect(driver.fake.deliveries).toEqual([
      expect.objectContaining({
        event: 'TEST',
        attempt: 1,
        status: 200,
        ok: true,
        webhookId: webhook.id,
        url: HOOK_URL,
        deliveredAt: '2026-12-01T08:05:00.000Z',
      }),
    ]);
    expect(JSON.stringify(driver.fake.deliveries)).not.toContain(webhook.auth_token);
  });

  it('records a non-JSON error answer as status with last_response null, and no answer as null status', async () => {
    const webhook = await hook();
    answers.push(() => new Response('oops', { status: 500 }));
    const failed = await driver.send('POST', `/webhooks/${webhook.id}/test/`, { body: {} });
    expect(failed.body).toMatchObject({ last_response_status_code: 500, last_response: null });
    answers.push(() => {
      throw new TypeError('connection refused');
    });
    const unreachable = await driver.send('POST', `/webhooks/${webhook.id}/test/`, { body: {} });
    expect(unreachable.body).toMatchObject({
      last_response_status_code: null,
      last_response: null,
      last_use_at: expect.any(String),
    });
    expect(driver.fake.deliveries.at(-1)).toMatchObject({
      status: null,
      ok: false,
      error: expect.stringContaining('connection refused'),
    });
  });

  it('sends RESERVATION_CANCELLED once on partner cancel, only to enabled webhooks subscribed to it', async () => {
    const all = await hook();
    await hook({ subscribed_events: { RESERVATION_CONFIRMED: true } });
    await hook({ is_enabled: false });
    const stranger = driver.fake.addPartner();
    await driver.send('POST', '/webhooks/', {
      body: { url: HOOK_URL },
      auth: basicAuthorization(stranger.partnerId, stranger.apiToken),
    });
    const reservation = await book();
    const cancelled = await driver.send(
      'PATCH',
      `/restaurants/${restaurantId}/reservations/${reservation.id}/?action=cancel`,
      { body: {} },
    );
    await driver.send('PATCH', `/restaurants/${restaurantId}/reservations/${reservation.id}/?action=cancel`, {
      body: {},
    });
    await driver.fake.flush();
    expect(received).toHaveLength(1);
    expect(received[0]!.request.headers.get('authorization')).toBe(`Bearer ${all.auth_token}`);
    expect(received[0]!.body).toEqual({
      id: expect.stringMatching(/^evt_/),
      event: 'RESERVATION_CANCELLED',
      created_at: '2026-12-01T08:00:00Z',
      restaurant_id: restaurantId,
      reservation: cancelled.body,
      webhook_id: all.id,
    });
    expect((await driver.send('GET', `/webhooks/${all.id}/`)).body).toMatchObject({
      last_response_status_code: 200,
      last_use_at: '2026-12-01T08:00:00Z',
    });
  });

  it('sends CONFIRMED, MODIFIED and CANCELLED for restaurant and customer actions, nothing for arrived, no-show or other channels', async () => {
    await hook();
    const pending = await book(asyncRestaurantId);
    const confirmed = await driver.fake.asRestaurant.confirm(asyncRestaurantId, pending.id);
    expect(confirmed).toMatchObject({ id: pending.id, confirmed: true });
    const modified = await driver.fake.asCustomer.modify(asyncRestaurantId, pending.id, {
      start_time: '2026-12-02T20:00:00',
      adults: 4,
      comment: 'Window seat',
    });
    expect(modified).toMatchObject({
      start_time: '2026-12-02T20:00:00+01:00',
      adults: 4,
      duration: 'PT2H',
      comment: 'Window seat',
    });
    await driver.fake.asRestaurant.cancel(asyncRestaurantId, pending.id);
    const second = await book();
    await driver.send('PATCH', `/restaurants/${restaurantId}/reservations/${second.id}/`, {
      body: { arrived: true },
    });
    const third = await book();
    await driver.send('PATCH', `/restaurants/${restaurantId}/reservations/${third.id}/`, {
      body: { no_show: true },
    });
    const other = driver.fake.addOtherChannelBooking(restaurantId, {
      start_time: '2026-12-02T19:00:00',
      adults: 2,
    });
    await driver.fake.asRestaurant.cancel(restaurantId, other.id);
    await driver.fake.flush();
    expect(received.map((item) => [item.body.event, item.body.reservation.id])).toEqual([
      ['RESERVATION_CONFIRMED', pending.id],
      ['RESERVATION_MODIFIED', pending.id],
      ['RESERVATION_CANCELLED', pending.id],
    ]);
    expect(received[1]!.body.reservation).toMatchObject({
      adults: 4,
      start_time: '2026-12-02T20:00:00+01:00',
    });
  });

  it('refuses restaurant-side actions that the state does not allow, with FakeError', async () => {
    const reservation = await book();
    await expect(driver.fake.asRestaurant.confirm(restaurantId, reservation.id)).rejects.toMatchObject({
      name: 'FakeError',
      status: 409,
      code: 'invalid_transition',
    });
    await expect(
      driver.fake.asRestaurant.modify(restaurantId, reservation.id, { adults: 99 }),
    ).rejects.toMatchObject({ status: 400, body: { adults: [expect.any(String)] } });
    await expect(
      driver.fake.asRestaurant.modify(restaurantId, reservation.id, { start_time: '2026-12-02T03:00:00' }),
    ).rejects.toMatchObject({ status: 409, body: { code: 'no_availability' } });
    await expect(driver.fake.asRestaurant.cancel(restaurantId, 999)).rejects.toMatchObject({ status: 404 });
    expect(
      (await driver.send('GET', `/restaurants/${restaurantId}/reservations/${reservation.id}/`)).body,
    ).toMatchObject({ start_time: '2026-12-02T19:00:00+01:00', adults: 2, cancelled: false });
  });

  it('retries a failed delivery with back-off on the fake’s clock (1 min, 5 min, ...), keeping the event id', async () => {
    await hook();
    answers.push(
      () => new Response(null, { status: 503 }),
      () => new Response(null, { status: 502 }),
    );
    const reservation = await book();
    await driver.send('PATCH', `/restaurants/${restaurantId}/reservations/${reservation.id}/?action=cancel`, {
      body: {},
    });
    await driver.fake.flush();
    expect(received).toHaveLength(1);
    expect(driver.fake.deliveries[0]).toMatchObject({
      attempt: 1,
      status: 503,
      ok: false,
      nextAttemptAt: '2026-12-01T08:01:00.000Z',
    });
    await driver.fake.clock.advance('PT59S');
    expect(received).toHaveLength(1);
    await driver.fake.clock.advance('PT1S');
    expect(received).toHaveLength(2);
    await driver.fake.clock.advance('PT5M');
    expect(received).toHaveLength(3);
    expect(driver.fake.deliveries.map((entry) => [entry.attempt, entry.status, entry.deliveredAt])).toEqual([
      [1, 503, '2026-12-01T08:00:00.000Z'],
      [2, 502, '2026-12-01T08:01:00.000Z'],
      [3, 200, '2026-12-01T08:06:00.000Z'],
    ]);
    expect(new Set(received.map((item) => item.body.id)).size).toBe(1);
    await driver.fake.clock.advance('P1D');
    expect(received).toHaveLength(3);
  });

  it('gives up after five attempts', async () => {
    await hook();
    for (let index = 0; index < 10; index += 1) answers.push(() => new Response(null, { status: 500 }));
    const reservation = await book();
    await driver.send('PATCH', `/restaurants/${restaurantId}/reservations/${reservation.id}/?action=cancel`, {
      body: {},
    });
    await driver.fake.clock.advance('P2D');
    expect(driver.fake.deliveries.map((entry) => entry.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(driver.fake.deliveries.at(-1)!.nextAttemptAt).toBeNull();
  });

  it('stops retrying at once when the webhook is deleted or paused', async () => {
    const deletedHook = await hook();
    answers.push(() => new Response(null, { status: 500 }));
    const first = await book();
    await driver.send('PATCH', `/restaurants/${restaurantId}/reservations/${first.id}/?action=cancel`, {
      body: {},
    });
    await driver.fake.flush();
    await driver.send('DELETE', `/webhooks/${deletedHook.id}/`);
    await driver.fake.clock.advance('PT1H');
    expect(received).toHaveLength(1);

    const pausedHook = await hook();
    answers.push(() => new Response(null, { status: 500 }));
    const second = await book();
    await driver.send('PATCH', `/restaurants/${restaurantId}/reservations/${second.id}/?action=cancel`, {
      body: {},
    });
    await driver.fake.flush();
    await driver.send('PATCH', `/webhooks/${pausedHook.id}/`, { body: { is_enabled: false } });
    await driver.fake.clock.advance('PT1H');
    expect(received).toHaveLength(2);
  });

  it('signs the next attempt with the regenerated token: the old one is invalid at once', async () => {
    const webhook = await hook();
    answers.push(() => new Response(null, { status: 500 }));
    const reservation = await book();
    await driver.send('PATCH', `/restaurants/${restaurantId}/reservations/${reservation.id}/?action=cancel`, {
      body: {},
    });
    await driver.fake.flush();
    const regenerated = await driver.send('POST', `/webhooks/${webhook.id}/auth-token/`, { body: {} });
    await driver.fake.clock.advance('PT1M');
    expect(received.map((item) => item.request.headers.get('authorization'))).toEqual([
      `Bearer ${webhook.auth_token}`,
      `Bearer ${regenerated.body.auth_token}`,
    ]);
  });
});

describe('deliveries over real HTTP', () => {
  it('POSTs to a real server at the webhook url, from a fake served over node:http', async () => {
    const requests: { headers: IncomingMessage['headers']; body: string }[] = [];
    const receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        requests.push({ headers: request.headers, body });
        response.writeHead(202, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const driver = await createDriver('node:http');
    try {
      const webhook = (await driver.send('POST', '/webhooks/', { body: { url } })).body;
      const tested = await driver.send('POST', `/webhooks/${webhook.id}/test/`, { body: {} });
      expect(tested.body).toMatchObject({ last_response_status_code: 202, last_response: { ok: true } });
      expect(requests).toHaveLength(1);
      expect(requests[0]!.headers.authorization).toBe(`Bearer ${webhook.auth_token}`);
      expect(JSON.parse(requests[0]!.body)).toMatchObject({ event: 'TEST' });
    } finally {
      await driver.close();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});

describe('deliveries on a clock that follows real time', () => {
  it('retries by itself as real time passes (the standalone server’s mode), with no advance()', async () => {
    const { createFakeService } = await import('restaurant-partner-sdk/testing');
    const fake = createFakeService({ rateLimit: false, deliveries: { retryDelaysMs: [40, 40] } });
    try {
      const partner = fake.addPartner();
      const restaurant = fake.addRestaurant({
        partnerIds: [partner.partnerId],
        availability: {
          minimumLeadTimeMinutes: 0,
          openingPeriods: [{ days: [1, 2, 3, 4, 5, 6, 7], start: '00:00', end: '24:00' }],
          slotIntervalMinutes: 1,
          horizonDays: 2,
        },
      });
      const attempts: number[] = [];
      fake.registerDeliveryHandler(HOOK_URL, () => {
        attempts.push(Date.now());
        return new Response(null, { status: attempts.length < 3 ? 500 : 200 });
      });
      const auth = basicAuthorization(partner.partnerId, partner.apiToken);
      const call = (method: string, path: string, body: unknown) =>
        fake
          .handle(
            new Request(`http://fake/api/v1/partnership${path}`, {
              method,
              headers: { authorization: auth },
              body: JSON.stringify(body),
            }),
          )
          .then((response) => response.json());
      await call('POST', '/webhooks/', { url: HOOK_URL });
      const soon = new Date(fake.clock.now() + 3_600_000);
      soon.setUTCSeconds(0, 0);
      const reservation = await call('POST', `/restaurants/${restaurant.id}/reservations/`, {
        start_time: soon.toISOString(),
        adults: 2,
      });
      await call('PATCH', `/restaurants/${restaurant.id}/reservations/${reservation.id}/?action=cancel`, {});
      await expect.poll(() => attempts.length, { timeout: 2_000, interval: 10 }).toBe(3);
      expect(attempts[1]! - attempts[0]!).toBeGreaterThanOrEqual(30);
      expect(fake.deliveries.map((entry) => entry.status)).toEqual([500, 500, 200]);
    } finally {
      fake.dispose();
    }
  });
});
