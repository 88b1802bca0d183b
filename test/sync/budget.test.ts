/**
 * The sync lives within its share of the partner's rate, on the fake's clock: over any 10 s
 * window its reads take at most budgetShare of the rate; an interactive call made while it reads
 * 20 restaurants waits at most two intervals of the limiter; and the schedule costs what the guide
 * says per restaurant per hour.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createReservationSync, type ReservationSync } from 'restaurant-partner-sdk/sync';
import { createWorld, quietLogger, type World } from './support/world.js';

let world: World;
let sync: ReservationSync | undefined;

afterEach(async () => {
  await sync?.stop();
  sync = undefined;
  world?.fake.dispose();
});

/** Times (fake clock, ms) of the partner API requests that read reservation lists. */
const listReads = () =>
  world.fake.requests
    .filter((entry) => entry.operation === 'reservations.list')
    .map((entry) => Date.parse(entry.at));

/** The most requests found in any window of `windowMs` (closed at both ends). */
function mostInAnyWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let start = 0, end = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! > windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

describe('the sync within the budget', () => {
  it.each([
    [0.25, 2],
    [0.5, 5],
  ])(
    'with budgetShare %s of 1 request/s, never more than %s reads in any 10 s window; reads every restaurant once per period',
    async (budgetShare, most) => {
      world = await createWorld({ restaurants: 20, confirmation: 'sync' });
      for (const restaurantId of world.restaurantIds) await world.book(restaurantId, { days: 3 });
      sync = createReservationSync({
        client: world.client,
        onChange: () => undefined,
        restaurantIds: world.restaurantIds,
        clock: world.clock,
        logger: quietLogger,
        reconcile: { intervalMs: 15 * 60_000, budgetShare },
      });
      const startedAt = world.fake.clock.now();
      await sync.start();
      for (let minute = 0; minute < 60; minute++) await world.clock.advance(60_000);
      const reads = listReads();
      expect(mostInAnyWindow(reads, 10_000)).toBe(most);
      // No booking starts within two hours: 5 reads per restaurant per hour (every 12 min), at most a 6th begun on the hour.
      expect(reads.length / 20).toBeGreaterThanOrEqual(5);
      expect(reads.length / 20).toBeLessThanOrEqual(6);
      // Every restaurant read within each intervalMs.
      for (const restaurantId of world.restaurantIds) {
        const times = world.fake.requests
          .filter(
            (entry) =>
              entry.path.includes(`/restaurants/${restaurantId}/reservations/`) && entry.method === 'GET',
          )
          .map((entry) => Date.parse(entry.at));
        const gaps = [times[0]! - startedAt, ...times.slice(1).map((at, index) => at - times[index]!)];
        expect(Math.max(...gaps)).toBeLessThanOrEqual(15 * 60_000);
      }
    },
  );

  it('reads a restaurant three times as often while a booking starts within two hours', async () => {
    world = await createWorld({ restaurants: 2, confirmation: 'sync' });
    const [soon, later] = world.restaurantIds as [number, number];
    // The clock starts at 08:00 UTC (09:00 in Brussels); lunch opens at 12:00 local.
    await world.book(soon, { days: 0, time: '12:00' });
    await world.book(later, { days: 3 });
    sync = createReservationSync({
      client: world.client,
      onChange: () => undefined,
      restaurantIds: world.restaurantIds,
      clock: world.clock,
      logger: quietLogger,
    });
    await sync.start();
    // 09:00 to 11:00 local: the booking at 12:00 starts within two hours from 10:00 on.
    for (let minute = 0; minute < 120; minute++) await world.clock.advance(60_000);
    const count = (restaurantId: number, from: number) =>
      world.fake.requests.filter(
        (entry) =>
          entry.operation === 'reservations.list' &&
          entry.path.includes(`/restaurants/${restaurantId}/`) &&
          Date.parse(entry.at) >= from,
      ).length;
    const busyFrom = Date.parse('2026-12-01T09:00:00Z');
    expect(count(soon, busyFrom)).toBeGreaterThanOrEqual(14);
    expect(count(later, busyFrom)).toBeLessThanOrEqual(6);
  });

  it('an interactive call made while the sync reads 20 restaurants waits at most two intervals of the limiter', async () => {
    world = await createWorld({ restaurants: 20, confirmation: 'sync' });
    sync = createReservationSync({
      client: world.client,
      onChange: () => undefined,
      restaurantIds: world.restaurantIds,
      clock: world.clock,
      logger: quietLogger,
      reconcile: { budgetShare: 1 },
    });
    await sync.start();
    const waits: number[] = [];
    for (let call = 0; call < 10; call++) {
      await world.clock.advance(700);
      const before = world.fake.clock.now();
      const answered = world.client.restaurants.list().toArray();
      await world.clock.quiet();
      await answered;
      waits.push(world.fake.clock.now() - before);
    }
    // Even with the whole rate given to the sync, an interactive call finds at most one read ahead of it.
    expect(Math.max(...waits)).toBeLessThanOrEqual(2 * 1020);
    expect(listReads().length).toBeGreaterThan(5);
  });
});
