/**
 * The sync into Postgres, through `db.mirror()`, on node-postgres, postgres.js (a real server) and
 * PGlite, driven on the in-process fake's clock: the two tables equal the service, each change
 * once in order per reservation (same-second changes included); a read that finds nothing new
 * writes no row; an onChange that throws leaves neither its writes, the mirror's nor the sync's
 * record, and the change applies once when tried again; a connection lost mid-transaction leaves
 * nothing half-written.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createReservationSync,
  type ReservationChange,
  type ReservationSync,
} from 'restaurant-partner-sdk/sync';
import { usePostgresServer } from './support/postgres-server.js';
import { createWorld, quietLogger, truthOf, type World } from '../sync/support/world.js';
import { open, SYNC_DRIVERS, type Opened } from './support/sync-databases.js';
import { changeRows, expectMirrorEquals } from './support/mirror-tables.js';

const server = usePostgresServer();

/** Waits for `promise`, moving the world's clock a second at a time so the sync's waits pass. */
async function along<T>(world: World, promise: Promise<T>): Promise<T> {
  let done = false;
  const watched = promise.finally(() => (done = true));
  watched.catch(() => undefined);
  while (!done) await world.clock.advance(1000);
  return watched;
}

for (const driver of SYNC_DRIVERS) {
  describe(`the mirror on ${driver}`, () => {
    let opened: Opened;
    let world: World | undefined;
    let sync: ReservationSync | undefined;
    beforeAll(async () => {
      opened = await open(driver, server.url);
      await opened.query(`create table ${opened.schema}.orders (reservation_id bigint, revision integer)`);
    }, 180_000);
    afterEach(async () => {
      await sync?.stop();
      world?.fake.dispose();
      sync = undefined;
      world = undefined;
      for (const table of ['reservations', 'reservation_changes', 'sync_records', 'sync_leases', 'orders'])
        await opened.query(`delete from ${opened.schema}.${table}`);
    });
    afterAll(async () => {
      await opened?.close();
    });

    it('equals the service, each change once and in order per reservation (same-second changes included); a read that finds nothing new writes no row', async () => {
      world = await createWorld({ restaurants: 2, rateLimit: false });
      const [first, second] = world.restaurantIds as [number, number];
      sync = createReservationSync({
        client: world.client,
        ...opened.db.mirror(),
        restaurantIds: world.restaurantIds,
        clock: world.clock,
        logger: quietLogger,
      });
      sync.attach(world.receiver);
      const a = await world.book(first);
      const b = await world.book(first, { days: 3 });
      const c = await world.book(second);
      await along(world, sync.settled());
      // Within one instant of the fake's (frozen) clock: b confirmed, then cancelled.
      await world.fake.asRestaurant.confirm(first, b.id);
      await world.fake.asCustomer.cancel(first, b.id);
      await world.fake.asCustomer.modify(first, a.id, { adults: 5, comment: 'window seat' });
      await world.fake.asRestaurant.modify(second, c.id, { adults: 3 });
      await along(world, sync.settled());

      const changes = await expectMirrorEquals(opened.query, opened.schema, truthOf(world));
      expect(changes).toBeGreaterThanOrEqual(6);
      const ofB = (await changeRows(opened.query, opened.schema)).filter(
        (row) => row.reservation_id === b.id,
      );
      expect(ofB.map((row) => row.kind)).toEqual(['created', 'confirmed', 'cancelled']);
      // Confirmed and cancelled within the same instant: told apart by revision, not by time.
      const at = (row: { detected_at: unknown }) => new Date(row.detected_at as string).toISOString();
      expect(at(ofB[1]!)).toBe(at(ofB[2]!));

      const look = async () => ({
        reservations: await opened.query(
          `select xmin::text, id from ${opened.schema}.reservations order by id`,
        ),
        changes: await opened.query(
          `select count(*)::int as n, max(id)::text as last from ${opened.schema}.reservation_changes`,
        ),
        records: await opened.query(
          `select xmin::text, reservation_id from ${opened.schema}.sync_records order by 2`,
        ),
      });
      const before = await look();
      await world.clock.advance(60_000);
      await along(world, sync.settled());
      expect(await look()).toEqual(before);
    });

    it("a throwing onChange leaves neither its writes, the mirror's rows nor the sync's record; tried again, the change applies once", async () => {
      world = await createWorld({ rateLimit: false });
      const [restaurantId] = world.restaurantIds as [number];
      let failures = 1;
      const handed: ReservationChange[] = [];
      sync = createReservationSync({
        client: world.client,
        ...opened.db.mirror({
          onChange: async (change, { tx }) => {
            await tx.query(`insert into ${opened.schema}.orders values ($1, $2)`, [
              change.reservation.id,
              change.revision,
            ]);
            if (failures-- > 0) throw new Error('the partner refuses, once');
            handed.push(change);
          },
        }),
        restaurantIds: world.restaurantIds,
        clock: world.clock,
        logger: quietLogger,
        trackClientCreates: false,
      });
      const booking = await world.book(restaurantId);
      await expect(sync.track(restaurantId, booking)).rejects.toThrow(/tries it again/);
      const count = async (table: string) =>
        (await opened.query<{ n: number }>(`select count(*)::int as n from ${opened.schema}.${table}`))[0]!.n;
      expect([
        await count('orders'),
        await count('reservations'),
        await count('reservation_changes'),
      ]).toEqual([0, 0, 0]);
      expect(await opened.db.syncStore().get(restaurantId, booking.id)).toBeUndefined();

      // Tried again a second later, on its own. onChange hands the change over inside the
      // transaction, before its COMMIT: the rows show on the test's own connection once it commits.
      while (handed.length === 0) await world.clock.advance(500);
      await expect
        .poll(async () => [
          await count('orders'),
          await count('reservations'),
          await count('reservation_changes'),
        ])
        .toEqual([1, 1, 1]);
      expect(handed.map((change) => [change.kind, change.revision])).toEqual([['created', 1]]);
      expect(await opened.db.syncStore().get(restaurantId, booking.id)).toMatchObject({ revision: 1 });
    });

    // PGlite has no connection to lose. postgres.js 3.4 crashes its process when the server ends
    // a connection mid-transaction (an uncaught TypeError in its write timer: porsager/postgres
    // issues 1154 and 1208), so this runs on a node-postgres Pool.
    if (driver !== 'pg Pool') return;

    it('a connection lost mid-transaction leaves nothing half-written, and the change applies on retry', async () => {
      world = await createWorld({ rateLimit: false });
      const [restaurantId] = world.restaurantIds as [number];
      let cut = 1;
      sync = createReservationSync({
        client: world.client,
        ...opened.db.mirror({
          onChange: async (change, { tx }) => {
            await tx.query(`insert into ${opened.schema}.orders values ($1, $2)`, [
              change.reservation.id,
              change.revision,
            ]);
            // The server ends this very connection, mid-transaction, after the mirror's writes.
            if (cut-- > 0) await tx.query('select pg_terminate_backend(pg_backend_pid())');
          },
        }),
        restaurantIds: world.restaurantIds,
        clock: world.clock,
        logger: quietLogger,
        trackClientCreates: false,
      });
      const booking = await world.book(restaurantId);
      await expect(sync.track(restaurantId, booking)).rejects.toThrow(/tries it again/);
      expect(await opened.query(`select * from ${opened.schema}.orders`)).toEqual([]);
      expect(await opened.query(`select * from ${opened.schema}.reservation_changes`)).toEqual([]);
      for (let step = 0; step < 20; step++) {
        await world.clock.advance(500);
        if ((await opened.query(`select 1 from ${opened.schema}.orders`)).length > 0) break;
      }
      await expectMirrorEquals(opened.query, opened.schema, truthOf(world));
      expect(
        await opened.query(`select reservation_id::float8 as id, revision from ${opened.schema}.orders`),
      ).toEqual([{ id: booking.id, revision: 1 }]);
    });
  });
}
