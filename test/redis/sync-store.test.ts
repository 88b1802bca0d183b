/**
 * The SyncStore contract, held by the memory store and by the Redis store on both clients
 * (ioredis and node-redis) against a real redis-server: compare-and-set writes, leases that
 * exclude another holder until they end, and copies that the caller cannot change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemorySyncStore, type SyncRecord, type SyncStore } from 'restaurant-partner-sdk/sync';
import { createRedisSyncStore } from '../../src/redis/index.js';
import { CLIENT_KINDS, connectionsOf } from './support/clients.js';
import { startRedisServer, type TestRedis } from './support/redis-server.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

const NOW = Date.now();
const record = (revision: number, adults = 2): SyncRecord => ({
  restaurantId: 12,
  reservation: { id: 7, start_time: '2026-12-04T19:30:00+01:00', adults, cancelled: false },
  observedAt: NOW,
  revision,
  expiresAt: NOW + 7 * 24 * 3600_000,
});

function contract(name: string, makeStore: () => Promise<SyncStore>) {
  describe(name, () => {
    it('writes by compare-and-set on the revision, and answers copies', async () => {
      const store = await makeStore();
      expect(await store.get(12, 7)).toBeUndefined();
      expect(await store.put(record(2), NOW)).toBe(false);
      expect(await store.put(record(1), NOW)).toBe(true);
      expect(await store.put(record(1, 3), NOW)).toBe(false);
      expect(await store.put(record(2, 4), NOW)).toBe(true);
      const read = await store.get(12, 7);
      expect(read).toEqual(record(2, 4));
      read!.reservation.adults = 9;
      expect((await store.get(12, 7))?.reservation.adults).toBe(4);
      expect(await store.get(12, 8)).toBeUndefined();
    });

    it('a lease excludes another holder until released, and is extended by its own holder', async () => {
      const store = await makeStore();
      const key = `restaurant:${Math.random()}`;
      expect(await store.claim(key, 'a', NOW, 60_000)).toBe(true);
      expect(await store.claim(key, 'b', NOW, 60_000)).toBe(false);
      expect(await store.claim(key, 'a', NOW, 60_000)).toBe(true);
      await store.release(key, 'b');
      expect(await store.claim(key, 'b', NOW, 60_000)).toBe(false);
      await store.release(key, 'a');
      expect(await store.claim(key, 'b', NOW, 60_000)).toBe(true);
    });
  });
}

contract('createMemorySyncStore', async () => createMemorySyncStore());
for (const kind of CLIENT_KINDS) {
  const connect = connectionsOf(kind, () => redis.url);
  let prefix = 0;
  contract(`createRedisSyncStore on ${kind}`, async () =>
    createRedisSyncStore({
      redis: (await connect()).client,
      keyPrefix: `sync-store-test:${kind}:${prefix++}:`,
    }),
  );
}

it("a memory lease ends at its time on the caller's clock", async () => {
  const store = createMemorySyncStore();
  expect(await store.claim('k', 'a', 1000, 500)).toBe(true);
  expect(await store.claim('k', 'b', 1499, 500)).toBe(false);
  expect(await store.claim('k', 'b', 1500, 500)).toBe(true);
});

it('a memory lease granted before the clock was set back lasts its length, not until the clock catches up', async () => {
  const store = createMemorySyncStore();
  const hour = 3600_000;
  expect(await store.claim('k', 'a', 10 * hour, 500)).toBe(true);
  expect(await store.claim('k', 'b', 9 * hour, 500)).toBe(false);
  expect(await store.claim('k', 'b', 9 * hour + 499, 500)).toBe(false);
  expect(await store.claim('k', 'b', 9 * hour + 500, 500)).toBe(true);
});
