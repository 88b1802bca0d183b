import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDelivery } from 'restaurant-partner-sdk/testing';
import { createWebhookReceiver, type WebhookEvent } from 'restaurant-partner-sdk/webhooks';
import { createRedisDuplicateStore } from '../../src/redis/index.js';
import { CLIENT_KINDS, connectionsOf, type ConnectedClient } from './support/clients.js';
import { startRedisServer, type TestRedis } from './support/redis-server.js';

const TOKEN = 'whsec-duplicate-store-test-token';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

/** A receiver instance, as one of several processes would run it, with its own Redis connection. */
function receiverOn(connection: ConnectedClient, keyPrefix: string, handler: (event: WebhookEvent) => Promise<void>) {
  const receiver = createWebhookReceiver({
    tokens: [TOKEN],
    duplicateStore: createRedisDuplicateStore({ redis: connection.client, keyPrefix }),
    logger: { warn: () => undefined, error: () => undefined },
  });
  receiver.on('TEST', handler);
  return (delivery: { body: string; headers: Record<string, string> }) =>
    receiver.handle(new Request('http://receiver.test/webhooks', { method: 'POST', body: delivery.body, headers: delivery.headers }));
}

describe.each(CLIENT_KINDS)('createRedisDuplicateStore with %s', (kind) => {
  const connect = connectionsOf(kind, () => redis.url);

  it('two receivers given one delivery at the same moment run the handler once', async () => {
    const keyPrefix = `test:${kind}:once:`;
    let runs = 0;
    const slowHandler = async () => {
      runs += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    };
    const [a, b] = await Promise.all([connect(), connect()]);
    const first = receiverOn(a, keyPrefix, slowHandler);
    const second = receiverOn(b, keyPrefix, slowHandler);
    const delivery = buildDelivery({ event: 'TEST' }, TOKEN);
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

  it('a handler that fails releases its claim, so the retry (on any receiver) runs the handler', async () => {
    const keyPrefix = `test:${kind}:retry:`;
    let calls = 0;
    const flaky = async () => {
      calls += 1;
      if (calls === 1) throw new Error('database down');
    };
    const [a, b] = await Promise.all([connect(), connect()]);
    const first = receiverOn(a, keyPrefix, flaky);
    const second = receiverOn(b, keyPrefix, flaky);
    const delivery = buildDelivery({ event: 'TEST' }, TOKEN);
    expect((await first(delivery)).status).toBe(500);
    const retry = await second(delivery);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ received: true });
    expect(calls).toBe(2);
  });

  it('remembers a processed id for ttlMs and claims it for claimTtlMs', async () => {
    const connection = await connect();
    const store = createRedisDuplicateStore({ redis: connection.client, keyPrefix: `test:${kind}:ttl:`, ttlMs: 60_000, claimTtlMs: 5_000 });
    expect(await store.has('evt_1')).toBe(false);
    const claimTtl = Number(await connection.command('PTTL', `test:${kind}:ttl:evt_1`));
    expect(claimTtl).toBeGreaterThan(0);
    expect(claimTtl).toBeLessThanOrEqual(5_000);
    expect(await store.has('evt_1')).toBe(true);
    await store.add('evt_1');
    expect(Number(await connection.command('PTTL', `test:${kind}:ttl:evt_1`))).toBeGreaterThan(5_000);
    // Releasing a processed id does not forget it.
    await store.release('evt_1');
    expect(await store.has('evt_1')).toBe(true);
  });
});
