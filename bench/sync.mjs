/**
 * sync_requests_per_restaurant_hour, sync_naive_requests_per_restaurant_hour and sync_convergence_ms,
 * on the fake's clock (the built package, in-process, frozen clock: no real waiting).
 *
 * - Requests: 20 restaurants with a booking each (three days ahead), the sync with default settings
 *   (15 min, a quarter of 1 request/s), requests counted in the fake's journal over the second hour
 *   (the first holds the start-up read of every restaurant), per restaurant; beside it, the naive
 *   loop (every restaurant's list every minute) over one hour, in the same run.
 * - Convergence: with every delivery dropped (the fake's delivery chaos), a change made at a random
 *   moment is seen only by the schedule's reads; the worst time from the change to `sync.get`
 *   showing it, over 20 changes, on the fake's clock. With deliveries working it is the delivery's.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { followerClock } from '../test/sync/support/follower-clock.mjs';

const RESTAURANTS = 20;
const HOUR = 60 * 60_000;

export async function benchSync({ root, record }) {
  const load = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
  const [{ PartnerClient }, { createFakeService }, { createReservationSync }] = await Promise.all([
    load('index.js'),
    load('testing/index.js'),
    load('sync/index.js'),
  ]);
  process.stderr.write(
    `reservation sync on the fake's clock: ${RESTAURANTS} restaurants, default settings\n`,
  );

  const world = () => {
    const fake = createFakeService({
      clock: { frozen: true, startAt: '2026-12-01T08:00:00Z' },
      journalLimit: 10_000,
    });
    const partner = fake.addPartner();
    const restaurantIds = Array.from(
      { length: RESTAURANTS },
      () =>
        fake.addRestaurant({
          partnerIds: [partner.partnerId],
          confirmation_mode: 'CONFIRMATION_MODE_ASYNCHRONOUS',
        }).id,
    );
    const client = new PartnerClient({
      ...fake.clientOptions(partner),
      logLevel: 'off',
      restaurantTimezones: Object.fromEntries(restaurantIds.map((id) => [id, 'Europe/Brussels'])),
    });
    return { fake, client, restaurantIds, clock: followerClock(fake) };
  };
  const reads = (fake, from, to) =>
    fake.requests.filter(
      (entry) => entry.face === 'partner' && Date.parse(entry.at) >= from && Date.parse(entry.at) < to,
    ).length;
  const quiet = { warn: () => undefined, error: () => undefined };

  // The sync with its defaults, two hours.
  {
    const { fake, client, restaurantIds, clock } = world();
    const booked = [];
    for (const restaurantId of restaurantIds)
      booked.push(
        await client.reservations.create(restaurantId, {
          start_time: { date: '2026-12-04', time: '19:00' },
          adults: 2,
        }),
      );
    const sync = createReservationSync({ client, onChange: () => undefined, clock, logger: quiet });
    await sync.start();
    const startedAt = fake.clock.now();
    for (let minute = 0; minute < 120; minute++) await clock.advance(60_000);
    await sync.stop();
    record(
      'sync_requests_per_restaurant_hour',
      reads(fake, startedAt + HOUR, startedAt + 2 * HOUR) / RESTAURANTS,
      'requests',
      '<= 6',
    );
    fake.dispose();
  }

  // The naive loop: every restaurant's list every minute, one hour.
  {
    const { fake, client, restaurantIds, clock } = world();
    const startedAt = fake.clock.now();
    for (let minute = 0; minute < 60; minute++) {
      for (const restaurantId of restaurantIds) await client.reservations.list(restaurantId).toArray();
      await clock.advance(startedAt + (minute + 1) * 60_000 - fake.clock.now());
    }
    record(
      'sync_naive_requests_per_restaurant_hour',
      reads(fake, startedAt, startedAt + HOUR) / RESTAURANTS,
      'requests',
    );
    fake.dispose();
  }

  // Convergence with every delivery lost.
  {
    const { fake, client, restaurantIds, clock } = world();
    fake.setDeliveryChaos({ dropRate: 1, seed: 1 });
    const booked = [];
    for (const restaurantId of restaurantIds)
      booked.push({
        restaurantId,
        id: (
          await client.reservations.create(restaurantId, {
            start_time: { date: '2026-12-04', time: '19:00' },
            adults: 2,
          })
        ).id,
      });
    const sync = createReservationSync({ client, onChange: () => undefined, clock, logger: quiet });
    await sync.start();
    await clock.advance(10 * 60_000);
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let worst = 0;
    for (const { restaurantId, id } of booked) {
      await clock.advance(Math.floor(next() * 5 * 60_000));
      await fake.asRestaurant.confirm(restaurantId, id);
      const changedAt = fake.clock.now();
      while (
        (await sync.get(restaurantId, id))?.confirmed !== true &&
        fake.clock.now() - changedAt < 2 * 15 * 60_000
      )
        await clock.advance(5000);
      worst = Math.max(worst, fake.clock.now() - changedAt);
    }
    await sync.stop();
    record('sync_convergence_ms', worst, 'ms', '<= 900000');
    fake.dispose();
  }
}
