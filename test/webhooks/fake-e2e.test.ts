/**
 * The end-to-end checks: the fake service delivers over real HTTP to a receiver hosted in
 * an Express 5 app and in a fetch-style handler on node:http; restaurant and customer actions
 * arrive as typed events; the webhook's `last_response_status_code` shows what the receiver
 * answered; a token rotation through `client.webhooks.regenerateToken` is followed by the receiver.
 */
import { DateTime } from 'luxon';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PartnerClient } from 'restaurant-partner-sdk';
import { createFakeService } from 'restaurant-partner-sdk/testing';
import { startFakeServer } from 'restaurant-partner-sdk/testing/node';
import {
  buildDelivery,
  createWebhookReceiver,
  type WebhookEvent,
  type WebhookReceiver,
} from 'restaurant-partner-sdk/webhooks';
import { captureLogger } from './helpers.js';
import { type RunningServer, startExpressApp, startFetchStyleServer } from './servers.js';

const PATH = '/webhooks/reservations';
const ZONE = 'Europe/Brussels';

/** A receiver whose accepted tokens live in a list the test edits, read on every delivery. */
function hostedReceiver() {
  const accepted: string[] = [];
  const events: WebhookEvent[] = [];
  const logger = captureLogger();
  let failures = 0;
  const record = (event: WebhookEvent) => {
    if (failures > 0) {
      failures -= 1;
      throw new Error('partner database unavailable');
    }
    events.push(event);
  };
  const receiver: WebhookReceiver = createWebhookReceiver({ tokens: async () => [...accepted], logger })
    .on('RESERVATION_CONFIRMED', record)
    .on('RESERVATION_MODIFIED', record)
    .on('RESERVATION_CANCELLED', record)
    .on('TEST', record);
  return { receiver, accepted, events, logger, failNext: (count = 1) => (failures = count) };
}

/** A start time the fake's default availability accepts: 19:00 local, two days ahead on the fake's clock. */
const eveningInTwoDays = (now: number) => ({
  date: DateTime.fromMillis(now, { zone: ZONE }).plus({ days: 2 }).toISODate()!,
  time: '19:00',
});

const hosts = [
  ['an Express 5 app (nodeHandler)', startExpressApp],
  [
    'a fetch-style handler on node:http (handle)',
    (receiver: WebhookReceiver) => startFetchStyleServer(receiver, PATH),
  ],
] as const;

describe.each(hosts)('the in-process fake delivers over HTTP to %s', (_name, start) => {
  let server: RunningServer;
  let hosted: ReturnType<typeof hostedReceiver>;
  let fake: ReturnType<typeof createFakeService>;
  let client: PartnerClient;
  let restaurantId: number;

  beforeAll(async () => {
    hosted = hostedReceiver();
    server = await start(hosted.receiver);
  });
  afterAll(() => server.close());

  beforeEach(() => {
    fake = createFakeService({ rateLimit: false, clock: { frozen: true } });
    const partner = fake.addPartner({ name: 'Receiver E2E' });
    restaurantId = fake.addRestaurant({
      confirmation_mode: 'CONFIRMATION_MODE_ASYNCHRONOUS',
      partnerIds: [partner.partnerId],
      timezone: ZONE,
    }).id;
    client = new PartnerClient(fake.clientOptions(partner));
    hosted.accepted.length = 0;
    hosted.events.length = 0;
  });
  afterEach(() => fake.dispose());

  const book = async () =>
    client.reservations.create(restaurantId, {
      start_time: eveningInTwoDays(fake.clock.now()),
      adults: 2,
      first_name: 'Ada',
      last_name: 'Lovelace',
    });

  it('restaurant confirm, restaurant modify and customer cancel each arrive as typed events, answered 200', async () => {
    const webhook = await client.webhooks.create({ url: `${server.url}${PATH}`, name: 'reservations' });
    expect(webhook.auth_token).toEqual(expect.any(String));
    hosted.accepted.push(webhook.auth_token!);
    const booking = await book();
    expect(booking.confirmed).toBe(false);

    await fake.asRestaurant.confirm(restaurantId, booking.id);
    await fake.asRestaurant.modify(restaurantId, booking.id, { adults: 4 });
    await fake.asCustomer.cancel(restaurantId, booking.id);

    expect(hosted.events.map((event) => event.type)).toEqual([
      'RESERVATION_CONFIRMED',
      'RESERVATION_MODIFIED',
      'RESERVATION_CANCELLED',
    ]);
    const [confirmed, modified, cancelled] = hosted.events;
    if (
      confirmed?.type !== 'RESERVATION_CONFIRMED' ||
      modified?.type !== 'RESERVATION_MODIFIED' ||
      cancelled?.type !== 'RESERVATION_CANCELLED'
    ) {
      throw new Error('events did not narrow');
    }
    expect(confirmed).toMatchObject({
      restaurant_id: restaurantId,
      reservation: { id: booking.id, confirmed: true, adults: 2 },
    });
    expect(modified.reservation).toMatchObject({ id: booking.id, adults: 4 });
    expect(cancelled.reservation).toMatchObject({ id: booking.id, cancelled: true });
    expect(new Set(hosted.events.map((event) => event.id)).size).toBe(3);

    const after = await client.webhooks.retrieve(webhook.id);
    expect(after.last_response_status_code).toBe(200);
    expect(after.last_response).toEqual({ received: true });
    expect(fake.deliveries.map((delivery) => delivery.status)).toEqual([200, 200, 200]);
  });

  it('a test delivery is answered 2xx and recorded on the webhook', async () => {
    const webhook = await client.webhooks.create({ url: `${server.url}${PATH}` });
    hosted.accepted.push(webhook.auth_token!);
    const tested = await client.webhooks.test(webhook.id);
    expect(tested.last_response_status_code).toBe(200);
    expect(hosted.events.map((event) => event.type)).toEqual(['TEST']);
  });

  it('a handler that throws is answered 500, the fake retries on its clock, and the event is processed once', async () => {
    const webhook = await client.webhooks.create({ url: `${server.url}${PATH}` });
    hosted.accepted.push(webhook.auth_token!);
    const booking = await book();
    hosted.failNext();
    await fake.asRestaurant.confirm(restaurantId, booking.id);
    expect((await client.webhooks.retrieve(webhook.id)).last_response_status_code).toBe(500);
    expect(hosted.events).toHaveLength(0);

    await fake.clock.advance('PT2M');
    expect((await client.webhooks.retrieve(webhook.id)).last_response_status_code).toBe(200);
    expect(hosted.events.map((event) => [event.type, event.id])).toEqual([
      ['RESERVATION_CONFIRMED', fake.deliveries[0]!.eventId],
    ]);
    expect(fake.deliveries.map((delivery) => delivery.status)).toEqual([500, 200]);
  });

  it('a receiver that does not know the token answers 401, and nothing reaches the handler', async () => {
    const webhook = await client.webhooks.create({ url: `${server.url}${PATH}` });
    hosted.accepted.push('a-token-of-another-webhook');
    await fake.asRestaurant.confirm(restaurantId, (await book()).id);
    expect((await client.webhooks.retrieve(webhook.id)).last_response_status_code).toBe(401);
    expect(hosted.events).toHaveLength(0);
    expect(hosted.logger.text()).not.toContain(webhook.auth_token!);
  });
});

describe('token rotation end to end (in-process fake, Express receiver)', () => {
  let server: RunningServer;
  let hosted: ReturnType<typeof hostedReceiver>;
  beforeAll(async () => {
    hosted = hostedReceiver();
    server = await startExpressApp(hosted.receiver);
  });
  afterAll(() => server.close());

  it('regenerateToken: the new token is accepted once added, the old one still verifies during the roll-out and fails once removed', async () => {
    const fake = createFakeService({ rateLimit: false, clock: { frozen: true } });
    try {
      const partner = fake.addPartner();
      const restaurantId = fake.addRestaurant({
        confirmation_mode: 'CONFIRMATION_MODE_ASYNCHRONOUS',
        partnerIds: [partner.partnerId],
        timezone: ZONE,
      }).id;
      const client = new PartnerClient(fake.clientOptions(partner));
      const url = `${server.url}${PATH}`;
      const webhook = await client.webhooks.create({ url });
      const oldToken = webhook.auth_token!;
      hosted.accepted.splice(0, Infinity, oldToken);

      const regenerated = await client.webhooks.regenerateToken(webhook.id);
      const newToken = regenerated.auth_token!;
      expect(newToken).toEqual(expect.any(String));
      expect(newToken).not.toBe(oldToken);

      // The service switched at once ("the old token stops being valid at regeneration"); the
      // receiver does not know the new token yet, so the delivery is refused and will be retried.
      const booking = await client.reservations.create(restaurantId, {
        start_time: eveningInTwoDays(fake.clock.now()),
        adults: 2,
      });
      await fake.asRestaurant.confirm(restaurantId, booking.id);
      expect((await client.webhooks.retrieve(webhook.id)).last_response_status_code).toBe(401);

      // Roll-out: both tokens accepted. The fake's retry (with the new token) now goes through.
      hosted.accepted.splice(0, Infinity, oldToken, newToken);
      await fake.clock.advance('PT2M');
      expect((await client.webhooks.retrieve(webhook.id)).last_response_status_code).toBe(200);
      expect(hosted.events.map((event) => event.type)).toEqual(['RESERVATION_CONFIRMED']);
      const oldSigned = buildDelivery({ event: 'TEST' }, oldToken);
      expect(
        (await fetch(url, { method: 'POST', headers: oldSigned.headers, body: oldSigned.body })).status,
      ).toBe(200);

      // The old token removed: refused at once, while the service's deliveries keep arriving.
      hosted.accepted.splice(0, Infinity, newToken);
      const stale = buildDelivery({ event: 'TEST' }, oldToken);
      expect((await fetch(url, { method: 'POST', headers: stale.headers, body: stale.body })).status).toBe(
        401,
      );
      await fake.asRestaurant.modify(restaurantId, booking.id, { adults: 3 });
      expect((await client.webhooks.retrieve(webhook.id)).last_response_status_code).toBe(200);
      expect(hosted.events.at(-1)).toMatchObject({
        type: 'RESERVATION_MODIFIED',
        reservation: { adults: 3 },
      });
      expect(hosted.logger.text()).not.toContain(oldToken);
      expect(hosted.logger.text()).not.toContain(newToken);
    } finally {
      fake.dispose();
    }
  });
});

describe('the standalone fake server delivers to a fetch-style receiver', () => {
  let receiverServer: RunningServer;
  let hosted: ReturnType<typeof hostedReceiver>;
  let fakeServer: Awaited<ReturnType<typeof startFakeServer>>;
  beforeAll(async () => {
    hosted = hostedReceiver();
    receiverServer = await startFetchStyleServer(hosted.receiver, PATH);
    fakeServer = await startFakeServer({ port: 0, rateLimit: false });
  });
  afterAll(async () => {
    await receiverServer.close();
    await fakeServer.close();
  });

  const control = async (path: string, body: unknown = {}) => {
    const response = await fetch(`${fakeServer.url}/_fake/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status, `${path}: ${await response.clone().text()}`).toBeLessThan(300);
    return response.json() as Promise<Record<string, unknown>>;
  };

  it('confirm, modify and cancel driven through the control API arrive as typed events; the webhook shows 200', async () => {
    const partner = (await control('partners', { name: 'Standalone E2E' })) as {
      partnerId: string;
      apiToken: string;
    };
    const restaurant = (await control('restaurants', {
      confirmation_mode: 'CONFIRMATION_MODE_ASYNCHRONOUS',
      timezone: ZONE,
    })) as { id: number };
    await control('links', { partnerId: partner.partnerId, restaurantId: restaurant.id });
    const client = new PartnerClient({
      baseUrl: fakeServer.url,
      partnerId: partner.partnerId,
      apiToken: partner.apiToken,
      rateLimit: false,
    });

    const webhook = await client.webhooks.create({ url: `${receiverServer.url}${PATH}` });
    hosted.accepted.push(webhook.auth_token!);
    const booking = await client.reservations.create(restaurant.id, {
      start_time: eveningInTwoDays(fakeServer.fake.clock.now()),
      adults: 2,
    });
    const reservationPath = `restaurants/${restaurant.id}/reservations/${booking.id}`;
    await control(`${reservationPath}/confirm`);
    await control(`${reservationPath}/modify`, { adults: 5 });
    await control(`${reservationPath}/cancel`, { by: 'restaurant' });

    await expect.poll(() => hosted.events.length).toBe(3);
    expect(hosted.events.map((event) => event.type)).toEqual([
      'RESERVATION_CONFIRMED',
      'RESERVATION_MODIFIED',
      'RESERVATION_CANCELLED',
    ]);
    expect(hosted.events[1]).toMatchObject({
      restaurant_id: restaurant.id,
      reservation: { id: booking.id, adults: 5 },
    });
    const log = (await (await fetch(`${fakeServer.url}/_fake/deliveries`)).json()) as
      { status: number }[] | { deliveries: { status: number }[] };
    const entries = Array.isArray(log) ? log : log.deliveries;
    expect(entries.map((entry) => entry.status)).toEqual([200, 200, 200]);
    expect((await client.webhooks.retrieve(webhook.id)).last_response_status_code).toBe(200);
  });
});
