/**
 * Several syncs on one database (each on a connection pool of its own, as separate processes
 * are) share the reading and hand each change over once: over four periods each restaurant is
 * read about once per period in all, not once per period per sync, and the partner's own rows,
 * written in the sync's transaction, hold each change once although both syncs see every
 * booking (both follow the client that makes them). On the in-process fake's clock.
 */
import { expect, it } from 'vitest';
import { createPostgres } from 'restaurant-partner-sdk/postgres';
import { createReservationSync, type ReservationSync } from 'restaurant-partner-sdk/sync';
import { usePostgresServer } from './support/postgres-server.js';
import { createWorld, quietLogger, truthOf } from '../sync/support/world.js';
import { expectMirrorEquals } from './support/mirror-tables.js';

const SCHEMA = 'shared';
const INTERVAL_MS = 20_000;

const server = usePostgresServer();
const poolOf = () => server.pool(3);

it('two syncs on one database read each restaurant about once per period in all, and hand each change over once', async () => {
  const world = await createWorld({ restaurants: 3, rateLimit: false });
  const setup = poolOf();
  await createPostgres({ sql: setup, schema: SCHEMA }).migrate();
  await setup.query(`create table ${SCHEMA}.applied (reservation_id bigint, revision integer)`);
  const syncs: ReservationSync[] = [];
  for (let index = 0; index < 2; index++) {
    const db = createPostgres({ sql: poolOf(), schema: SCHEMA });
    syncs.push(
      createReservationSync({
        client: world.client,
        ...db.mirror({
          onChange: async (change, { tx }) => {
            await tx.query(`insert into ${SCHEMA}.applied values ($1, $2)`, [
              change.reservation.id,
              change.revision,
            ]);
          },
        }),
        restaurantIds: world.restaurantIds,
        clock: world.clock,
        logger: quietLogger,
        reconcile: { intervalMs: INTERVAL_MS, budgetShare: 1 },
      }),
    );
  }
  try {
    for (const sync of syncs) sync.attach(world.receiver);
    await Promise.all(syncs.map((sync) => sync.start()));
    const readsBefore = world.fake.requests.length;
    for (const [index, restaurantId] of world.restaurantIds.entries()) {
      const booking = await world.book(restaurantId, { days: 2 + index });
      await world.fake.asRestaurant.confirm(restaurantId, booking.id);
    }
    // Four periods (80 % of intervalMs each), two seconds at a time (each sleep ends at its own time).
    const periods = 4;
    for (let step = 0; step < (periods * 0.8 * INTERVAL_MS) / 2000; step++) await world.clock.advance(2000);

    const reads = world.fake.requests
      .slice(readsBefore)
      .filter((entry) => entry.operation === 'reservations.list');
    for (const restaurantId of world.restaurantIds) {
      const ofRestaurant = reads.filter((entry) =>
        entry.path.includes(`/restaurants/${restaurantId}/`),
      ).length;
      // One sync alone reads it once per period; two that did not share would read it twice as often.
      if (process.env.SHOW_READS) console.log(`reads ${restaurantId}: ${ofRestaurant}`);
      expect(ofRestaurant, `reads of restaurant ${restaurantId}`).toBeLessThanOrEqual(periods + 1);
      expect(ofRestaurant, `reads of restaurant ${restaurantId}`).toBeGreaterThanOrEqual(periods - 1);
    }
    const query = async <Row>(text: string, params?: unknown[]) =>
      (await setup.query(text, params)).rows as Row[];
    const changes = await expectMirrorEquals(query, SCHEMA, truthOf(world));
    const applied = await query<{ n: number; distinct: number }>(
      `select count(*)::int as n, count(distinct (reservation_id, revision))::int as distinct from ${SCHEMA}.applied`,
    );
    expect(applied).toEqual([{ n: changes, distinct: changes }]);
  } finally {
    for (const sync of syncs) await sync.stop();
    world.fake.dispose();
  }
}, 120_000);
