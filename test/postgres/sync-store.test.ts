/**
 * `db.syncStore()` holds the SyncStore contract on node-postgres, postgres.js (against a real
 * PostgreSQL server) and PGlite: compare-and-set writes, copies, leases that exclude another holder
 * until they end (on the caller's clock, a clock set back included). And it is transactional:
 * `putWith` writes the record and runs the partner's work in one transaction, so they commit
 * together; a work that throws leaves neither; a record taken meanwhile runs no work at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncRecord } from 'restaurant-partner-sdk/sync';
import { createPostgres, isSchemaNotMigratedError } from 'restaurant-partner-sdk/postgres';
import { usePostgresServer } from './support/postgres-server.js';
import { open, SYNC_DRIVERS, type Opened } from './support/sync-databases.js';

const server = usePostgresServer();

const NOW = Date.UTC(2026, 11, 1, 8);
const record = (revision: number, adults = 2): SyncRecord => ({
  restaurantId: 12,
  reservation: {
    id: 7,
    start_time: '2026-12-04T19:30:00+01:00',
    adults,
    cancelled: false,
    metadata: { order: 'A-1' },
  },
  observedAt: NOW + 0.5,
  revision,
  expiresAt: NOW + 7 * 24 * 3600_000,
});

for (const driver of SYNC_DRIVERS) {
  describe(`db.syncStore() on ${driver}`, () => {
    let opened: Opened;
    beforeAll(async () => {
      opened = await open(driver, server.url);
    }, 180_000);
    afterAll(async () => {
      await opened?.close();
    });

    it('writes by compare-and-set on the revision, and answers copies', async () => {
      const store = opened.db.syncStore();
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

    it('a lease excludes another holder until released or ended, is extended by its own holder, and a clock set back does not stretch it', async () => {
      const store = opened.db.syncStore();
      expect(await store.claim('restaurant:1', 'a', NOW, 60_000)).toBe(true);
      expect(await store.claim('restaurant:1', 'b', NOW, 60_000)).toBe(false);
      expect(await store.claim('restaurant:1', 'a', NOW, 60_000)).toBe(true);
      await store.release('restaurant:1', 'b');
      expect(await store.claim('restaurant:1', 'b', NOW, 60_000)).toBe(false);
      await store.release('restaurant:1', 'a');
      expect(await store.claim('restaurant:1', 'b', NOW, 60_000)).toBe(true);

      expect(await store.claim('k', 'a', 1000, 500)).toBe(true);
      expect(await store.claim('k', 'b', 1499, 500)).toBe(false);
      expect(await store.claim('k', 'b', 1500, 500)).toBe(true);

      const hour = 3600_000;
      expect(await store.claim('back', 'a', 10 * hour, 500)).toBe(true);
      expect(await store.claim('back', 'b', 9 * hour, 500)).toBe(false);
      expect(await store.claim('back', 'b', 9 * hour + 499, 500)).toBe(false);
      expect(await store.claim('back', 'b', 9 * hour + 500, 500)).toBe(true);
    });

    it("putWith commits the record and the partner's writes together; a throwing work leaves neither; a taken revision runs no work", async () => {
      const store = opened.db.syncStore();
      const table = `${opened.schema}.orders`;
      await opened.query(`create table ${table} (reservation_id bigint, status text)`);
      const first = { ...record(1), reservation: { ...record(1).reservation, id: 70 } };
      const write =
        (status: string) => async (tx: { query: (text: string, params: unknown[]) => unknown }) => {
          await tx.query(`insert into ${table} values ($1, $2)`, [70, status]);
        };

      await expect(
        store.putWith(first, NOW, async (tx) => {
          await write('doomed')(tx);
          throw new Error('the partner refuses');
        }),
      ).rejects.toThrow('the partner refuses');
      expect(await store.get(12, 70)).toBeUndefined();
      expect(await opened.query(`select * from ${table}`)).toEqual([]);

      expect(await store.putWith(first, NOW, write('created'))).toBe(true);
      let ran = false;
      expect(await store.putWith(first, NOW, async () => void (ran = true))).toBe(false);
      expect(ran).toBe(false);
      expect(await store.get(12, 70)).toMatchObject({ revision: 1 });
      expect(await opened.query(`select status from ${table}`)).toEqual([{ status: 'created' }]);
    });
  });
}

it('an unmigrated schema fails with the one line that names the migrate step', async () => {
  const store = createPostgres({ sql: server.admin, schema: 'never_migrated' }).syncStore();
  const failure = await store.get(1, 1).catch((error: unknown) => error);
  expect(isSchemaNotMigratedError(failure)).toBe(true);
  expect(String((failure as Error).message)).toMatch(/migrate\(\)/);
});
