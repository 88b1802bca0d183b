import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDelivery } from 'restaurant-partner-sdk/testing';
import { type DeliveryContent } from '../../src/webhooks/delivery.js';
import { createWebhookReceiver, type WebhookEvent } from 'restaurant-partner-sdk/webhooks';
import { createRedisDuplicateStore, type RedisDuplicateStoreOptions } from '../../src/redis/index.js';
import { CLIENT_KINDS, connectionsOf, type ConnectedClient } from './support/clients.js';
import { startRedisServer, type TestRedis } from './support/redis-server.js';
import { reservation } from '../support/reservation.js';

const TOKEN = 'whsec-duplicate-store-test-token';
const OTHER_PARTNER_TOKEN = 'whsec-another-partner-test-token';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A receiver instance, as one of several processes would run it, with its own Redis connection. */
function receiverOn(
  connection: ConnectedClient,
  handler: (event: WebhookEvent) => Promise<void>,
  storeOptions: Omit<RedisDuplicateStoreOptions, 'redis'> = {},
  token = TOKEN,
) {
  const receiver = createWebhookReceiver({
    tokens: [token],
    duplicateStore: createRedisDuplicateStore({ redis: connection.client, ...storeOptions }),
    logger: false,
  });
  receiver.on('*', handler);
  return (delivery: { body: string; headers: Record<string, string> }) =>
    receiver.handle(
      new Request('http://receiver.test/webhooks', {
        method: 'POST',
        body: delivery.body,
        headers: delivery.headers,
      }),
    );
}

/** A reservation delivery with a reservation id unique to this test, so tests sharing the default key prefix never meet. */
let nextReservationId = 1000;
const reservationDelivery = (overrides: Partial<DeliveryContent> = {}, token = TOKEN) =>
  buildDelivery(
    {
      event: 'RESERVATION_CONFIRMED',
      reservation: reservation({ id: (nextReservationId += 1) }),
      restaurantId: 1,
      ...overrides,
    },
    token,
  );

describe.each(CLIENT_KINDS)('createRedisDuplicateStore with %s', (kind) => {
  const connect = connectionsOf(kind, () => redis.url);

  it('two receivers given one delivery at the same moment run the handler once; the second waits for the first', async () => {
    let runs = 0;
    const slowHandler = async () => {
      runs += 1;
      await sleep(100);
    };
    const [a, b] = await Promise.all([connect(), connect()]);
    const first = receiverOn(a, slowHandler);
    const second = receiverOn(b, slowHandler);
    const delivery = reservationDelivery();
    const answers = await Promise.all([first(delivery), second(delivery)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(runs).toBe(1);
    const bodies = await Promise.all(answers.map((answer) => answer.json()));
    expect(bodies).toContainEqual({ received: true });
    expect(bodies).toContainEqual({ received: true, duplicate: true });
    // A later repeat, on either receiver, is a duplicate too.
    expect(await (await second(delivery)).json()).toEqual({ received: true, duplicate: true });
    expect(runs).toBe(1);
  });

  it('a handler that fails while another receiver waits on it: the waiting one runs it (never answers 200 for an event nobody processed)', async () => {
    let calls = 0;
    const failsFirst = async () => {
      calls += 1;
      await sleep(100);
      if (calls === 1) throw new Error('database down');
    };
    const [a, b] = await Promise.all([connect(), connect()]);
    const first = receiverOn(a, failsFirst);
    const second = receiverOn(b, failsFirst);
    const delivery = reservationDelivery();
    const firstAnswer = first(delivery);
    await sleep(30);
    const answers = await Promise.all([firstAnswer, second(delivery)]);
    expect(answers.map((answer) => answer.status)).toEqual([500, 200]);
    expect(await answers[1].json()).toEqual({ received: true });
    expect(calls).toBe(2);
  });

  it('a handler that fails releases its claim, so the retry (on any receiver) runs the handler', async () => {
    let calls = 0;
    const flaky = async () => {
      calls += 1;
      if (calls === 1) throw new Error('database down');
    };
    const [a, b] = await Promise.all([connect(), connect()]);
    const first = receiverOn(a, flaky);
    const second = receiverOn(b, flaky);
    const delivery = reservationDelivery();
    expect((await first(delivery)).status).toBe(500);
    const retry = await second(delivery);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ received: true });
    expect(calls).toBe(2);
  });

  it("with default options, two partners' delivery `1` both run, while a second instance of one partner's receiver sees it as a duplicate", async () => {
    const runs: string[] = [];
    const [a, a2, b] = await Promise.all([connect(), connect(), connect()]);
    const partnerA = receiverOn(a, async () => void runs.push('A'));
    const partnerA2 = receiverOn(a2, async () => void runs.push('A2'));
    const partnerB = receiverOn(b, async () => void runs.push('B'), {}, OTHER_PARTNER_TOKEN);
    // Each partner's own reservation, and a test delivery each (no reservation), all with delivery id `1`.
    const testId = `1-${kind}`;
    const deliveriesA = [
      reservationDelivery({ id: '1' }),
      buildDelivery({ event: 'TEST', id: testId }, TOKEN),
    ];
    const deliveriesB = [
      reservationDelivery({ id: '1' }, OTHER_PARTNER_TOKEN),
      buildDelivery({ event: 'TEST', id: testId }, OTHER_PARTNER_TOKEN),
    ];
    for (const delivery of deliveriesA)
      expect(await (await partnerA(delivery)).json()).toEqual({ received: true });
    for (const delivery of deliveriesB)
      expect(await (await partnerB(delivery)).json()).toEqual({ received: true });
    for (const delivery of deliveriesA)
      expect(await (await partnerA2(delivery)).json()).toEqual({ received: true, duplicate: true });
    expect(runs).toEqual(['A', 'A', 'B', 'B']);
  });

  it('a lease: only its owner renews, completes or releases it; its claim lasts claimTtlMs unless renewed, a processed delivery ttlMs', async () => {
    const connection = await connect();
    const keyPrefix = `test:${kind}:lease:`;
    const store = createRedisDuplicateStore({
      redis: connection.client,
      keyPrefix,
      ttlMs: 60_000,
      claimTtlMs: 300,
    });
    expect(store.claimTtlMs).toBe(300);
    const first = await store.claim('evt_1');
    if (first.status !== 'claimed') throw new Error(`expected a claim, got ${first.status}`);
    const claimTtl = Number(await connection.command('PTTL', `${keyPrefix}evt_1`));
    expect(claimTtl).toBeGreaterThan(0);
    expect(claimTtl).toBeLessThanOrEqual(300);
    expect((await store.claim('evt_1')).status).toBe('busy');
    expect(await store.has('evt_1')).toBe(false);
    // The first lease runs out; a second receiver claims the delivery.
    await sleep(400);
    const second = await store.claim('evt_1');
    if (second.status !== 'claimed') throw new Error(`expected a claim, got ${second.status}`);
    // The first owner cannot renew it any more (nor take it back); the second can.
    expect(await first.renew!()).toBe(false);
    expect(await second.renew!()).toBe(true);
    expect(Number(await connection.command('PTTL', `${keyPrefix}evt_1`))).toBeGreaterThan(200);
    // The first owner's late release or completion does not touch the second lease.
    await first.release();
    expect((await store.claim('evt_1')).status).toBe('busy');
    await first.complete();
    expect(await store.has('evt_1')).toBe(false);
    await second.complete();
    expect(await store.has('evt_1')).toBe(true);
    expect((await store.claim('evt_1')).status).toBe('processed');
    expect(Number(await connection.command('PTTL', `${keyPrefix}evt_1`))).toBeGreaterThan(50_000);
    // Releasing a processed delivery does not forget it.
    await second.release();
    expect(await store.has('evt_1')).toBe(true);
  });

  it('the receiver takes the short claims (it renews them) whatever its handler time limit; claimTtlMs below 100 ms is refused by name', async () => {
    const connection = await connect();
    const store = createRedisDuplicateStore({ redis: connection.client });
    expect(store).toMatchObject({ claimTtlMs: 600, renewsClaims: true });
    for (const handlerTimeoutMs of [1_000, 30_000, 600_000])
      expect(() =>
        createWebhookReceiver({ tokens: [TOKEN], handlerTimeoutMs, duplicateStore: store }),
      ).not.toThrow();
    expect(() => createRedisDuplicateStore({ redis: connection.client, claimTtlMs: 50 })).toThrow(
      /claimTtlMs must be at least 100 ms/,
    );
  });
});
