/**
 * postgres_mirror_changes_per_second: a burst of 10,000 changes into `db.mirror()` on a real
 * PostgreSQL (a throwaway cluster, node-postgres Pool of 10), on the fake's frozen clock (the
 * built package in-process, deliveries in-process: no real waiting but the database's).
 *
 * 2,500 bookings, each followed by the sync (`created`), then confirmed by the restaurant,
 * modified by the customer and cancelled by the customer, each event delivered by webhook to the
 * receiver and handed over in its own transaction: 10,000 changes, 16 reservations at a time,
 * each reservation's changes in order. Timed from the first hand-over to the last commit; the
 * figure is changes per wall-clock second, with both tables checked complete at the end.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { startPostgresServer } from '../scripts/postgres-server.mjs';
import { followerClock } from '../test/sync/support/follower-clock.mjs';

const BOOKINGS = 2500;
const RESTAURANTS = 25;
const AT_ONCE = 16;
const HOOK_URL = 'https://partner.example/hooks/reservations';

export async function benchPostgresMirror({ root, record }) {
  const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
  const [{ PartnerClient }, { createFakeService }, { createReservationSync }, { createPostgres }, webhooks] =
    await Promise.all([
      load('index.js'),
      load('testing/index.js'),
      load('sync/index.js'),
      load('postgres/index.js'),
      load('webhooks/index.js'),
    ]);
  process.stderr.write(`mirror into PostgreSQL: ${BOOKINGS * 4} changes\n`);
  const server = await startPostgresServer();
  const pool = new pg.Pool({ connectionString: server.url, max: 10 });
  pool.on('error', () => undefined);
  const fake = createFakeService({
    clock: { frozen: true, startAt: '2026-12-01T08:00:00Z' },
    rateLimit: false,
    journalLimit: 100,
  });
  try {
    const db = createPostgres({ sql: pool });
    await db.migrate();
    const partner = fake.addPartner();
    const restaurantIds = Array.from(
      { length: RESTAURANTS },
      () =>
        fake.addRestaurant({
          partnerIds: [partner.partnerId],
          confirmation_mode: 'CONFIRMATION_MODE_ASYNCHRONOUS',
          timezone: 'Europe/Brussels',
        }).id,
    );
    const client = new PartnerClient({
      ...fake.clientOptions(partner),
      logLevel: 'off',
      restaurantTimezones: Object.fromEntries(restaurantIds.map((id) => [id, 'Europe/Brussels'])),
    });
    const clock = followerClock(fake);
    const booked = [];
    for (let index = 0; index < BOOKINGS; index++) {
      const restaurantId = restaurantIds[index % RESTAURANTS];
      const slot = Math.floor(index / RESTAURANTS);
      const reservation = await client.reservations.create(restaurantId, {
        start_time: {
          date: `2026-12-${String(2 + (slot % 25)).padStart(2, '0')}`,
          time: ['18:00', '18:30', '19:00', '19:30'][Math.floor(slot / 25) % 4],
        },
        adults: 2,
      });
      booked.push({ restaurantId, reservation });
    }
    const { auth_token: token } = await client.webhooks.create({ url: HOOK_URL, name: 'bench' });
    const receiver = webhooks.createWebhookReceiver({ tokens: [token], logger: false });
    fake.registerDeliveryHandler(HOOK_URL, (request) => receiver.handle(request));
    const sync = createReservationSync({
      client,
      ...db.mirror(),
      restaurantIds,
      trackClientCreates: false,
      // Its sleeps (lease renewals) end only when the bench moves time, as in the sync's tests.
      clock,
      logger: { warn: () => undefined, error: () => undefined },
    });
    sync.attach(receiver);

    // Each phase one second after the one before on the fake's clock: a modification is applied
    // only when clearly newer than what the sync knows (event times have whole seconds).
    const phases = [
      ({ restaurantId, reservation }) => sync.track(restaurantId, reservation),
      ({ restaurantId, reservation }) => fake.asRestaurant.confirm(restaurantId, reservation.id),
      ({ restaurantId, reservation }) =>
        fake.asCustomer.modify(restaurantId, reservation.id, { adults: 3, comment: 'a high chair' }),
      ({ restaurantId, reservation }) => fake.asCustomer.cancel(restaurantId, reservation.id),
    ];
    const started = performance.now();
    for (const phase of phases) {
      let next = 0;
      await Promise.all(
        Array.from({ length: AT_ONCE }, async () => {
          while (next < booked.length) await phase(booked[next++]);
        }),
      );
      await clock.advance(1000);
    }
    const seconds = (performance.now() - started) / 1000;
    await sync.stop();
    const [{ changes, reservations }] = (
      await pool.query(
        `select (select count(*) from restaurant_partner.reservation_changes)::int as changes,
                (select count(*) from restaurant_partner.reservations where cancelled and adults = 3)::int as reservations`,
      )
    ).rows;
    if (changes !== BOOKINGS * 4 || reservations !== BOOKINGS)
      throw new Error(
        `the mirror holds ${changes} changes and ${reservations} final rows, not ${BOOKINGS * 4} and ${BOOKINGS}`,
      );
    record('postgres_mirror_changes_per_second', changes / seconds, 'changes/s');
  } finally {
    fake.dispose();
    await pool.end();
    await server.stop();
  }
}
