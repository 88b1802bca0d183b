/**
 * Your bookings in your own PostgreSQL, exactly once: the reservation sync with `db.mirror()`.
 *
 * Every change lands in `restaurant_partner.reservations` (one row per booking, a column per
 * field) and `restaurant_partner.reservation_changes` (every change, once, numbered per booking),
 * in the same transaction as the sync's own state, and as your own write: here an `orders` row
 * of yours (`example_orders`) follows its booking's status through `tx`. A crash at any point leaves all of it
 * written or none of it, and a restart goes on from there.
 *
 *   DATABASE_URL=postgres://user@localhost/db npx tsx examples/sync-to-postgres.ts
 *   npx tsx examples/sync-to-postgres.ts        # no DATABASE_URL: PGlite, Postgres in memory
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';
import { PartnerClient } from 'restaurant-partner-sdk';
import { createPostgres, type SqlSource } from 'restaurant-partner-sdk/postgres';
import { createReservationSync } from 'restaurant-partner-sdk/sync';
import { createFakeService } from 'restaurant-partner-sdk/testing';
import { createWebhookReceiver } from 'restaurant-partner-sdk/webhooks';

/** Your database: a node-postgres pool on DATABASE_URL, or PGlite in memory when there is none. */
async function openDatabase(): Promise<{ sql: SqlSource; close: () => Promise<void> }> {
  if (process.env.DATABASE_URL) {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
    return { sql: pool, close: () => pool.end() };
  }
  console.log('No DATABASE_URL: using PGlite (PostgreSQL in memory).');
  const { PGlite } = await import('@electric-sql/pglite');
  const lite = new PGlite();
  return { sql: lite, close: () => lite.close() };
}

const database = await openDatabase();
const db = createPostgres({ sql: database.sql }); // schema: 'restaurant_partner' by default
await db.migrate();
// A table of your own, kept in step with the sync's transaction.
await db.executor.query(
  'create table if not exists example_orders (reservation_id bigint primary key, status text not null)',
);

const fake = createFakeService({ seed: 'demo' });
const client = new PartnerClient(fake.clientOptions(fake.describeSeed().partners[0]!));
const restaurant = (await client.restaurants.list().toArray()).find(
  (r) => r.display_name === 'Bistro des Vosges',
)!;

const tokens: string[] = [];
const receiver = createWebhookReceiver({ tokens: () => tokens });
const sync = createReservationSync({
  client,
  ...db.mirror({
    // Runs after the mirror's writes, in the same transaction: all commit together or not at all.
    onChange: async (change, { tx }) => {
      const status = change.reservation.cancelled ? 'refund' : change.reservation.confirmed ? 'paid' : 'held';
      await tx.query(
        `insert into example_orders (reservation_id, status) values ($1, $2)
         on conflict (reservation_id) do update set status = excluded.status`,
        [change.reservation.id, status],
      );
    },
  }),
  restaurantIds: [restaurant.id],
});
sync.attach(receiver);

const server = createServer(receiver.nodeHandler());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/reservations`;

try {
  const webhook = await client.webhooks.create({ url, name: 'reservations' });
  tokens.push(webhook.auth_token!);
  await sync.start();

  const date = DateTime.now().setZone(restaurant.timezone!).plus({ days: 2 }).toISODate()!;
  const kept = await client.reservations.create(restaurant.id, {
    start_time: { date, time: '19:00' },
    adults: 2,
  });
  const cancelled = await client.reservations.create(restaurant.id, {
    start_time: { date, time: '21:00' },
    adults: 4,
  });
  await fake.asRestaurant.confirm(restaurant.id, kept.id);
  await fake.asCustomer.modify(restaurant.id, kept.id, { adults: 3 });
  await fake.asCustomer.cancel(restaurant.id, cancelled.id);
  await sync.settled();

  const ids = [kept.id, cancelled.id];
  const { rows: mirrored } = await db.executor.query<Record<string, unknown>>(
    `select id::text, adults, confirmed, cancelled, revision from restaurant_partner.reservations
     where id = any($1::bigint[]) order by id`,
    [ids],
  );
  console.log('restaurant_partner.reservations:');
  console.table(mirrored);
  const { rows: changes } = await db.executor.query<Record<string, unknown>>(
    `select id::text, reservation_id::text, revision, kind, source
     from restaurant_partner.reservation_changes where reservation_id = any($1::bigint[]) order by id`,
    [ids],
  );
  console.log('restaurant_partner.reservation_changes:');
  console.table(changes);
  const { rows: orders } = await db.executor.query<{ reservation_id: string; status: string }>(
    'select reservation_id::text, status from example_orders where reservation_id = any($1::bigint[]) order by 1',
    [ids],
  );
  console.log('example_orders (yours):');
  console.table(orders);

  const statusOf = (id: number) => orders.find((row) => Number(row.reservation_id) === id)?.status;
  if (statusOf(kept.id) !== 'paid' || statusOf(cancelled.id) !== 'refund')
    throw new Error('the orders did not follow their bookings');
  if (mirrored.length !== 2 || changes.length < 5)
    throw new Error(
      `expected 2 mirrored reservations and 5 changes, found ${mirrored.length} and ${changes.length}`,
    );
} finally {
  await sync.stop();
  server.close();
  fake.dispose();
  await database.close();
}
