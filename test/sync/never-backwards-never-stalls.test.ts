/**
 * The sync never hands a change backwards and never stalls, on the in-process fake's clock: a read
 * whose pages straddle a delivery, a store that fails after onChange, an onChange that keeps
 * throwing for one reservation, and the sync's clock set back an hour.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/transport/clock.js';
import {
  createMemorySyncStore,
  createReservationSync,
  type ReservationChange,
  type ReservationSync,
  type SyncStore,
} from 'restaurant-partner-sdk/sync';
import { createWorld, quietLogger, truthOf, type World } from './support/world.js';

let world: World;
let sync: ReservationSync | undefined;

afterEach(async () => {
  await sync?.stop();
  sync = undefined;
  world?.fake.dispose();
});

const changesOf = <Change extends ReservationChange>(changes: Change[], id: number) =>
  changes.filter((change) => change.reservation.id === id);

/** Each change's `previous` is the one before's `reservation`, the first one's null; revisions 1, 2, 3 ... */
function expectChain(chain: ReservationChange[]): void {
  expect(chain[0]?.previous).toBeNull();
  expect(chain.map((change) => change.revision)).toEqual(chain.map((_, index) => index + 1));
  for (let index = 1; index < chain.length; index++)
    expect(chain[index]!.previous).toEqual(chain[index - 1]!.reservation);
}

describe('the sync never hands a change backwards', () => {
  it('a two-page read that straddles a modification delivery does not undo it', async () => {
    world = await createWorld({ rateLimit: false });
    const [restaurantId] = world.restaurantIds as [number];
    // The first of 101 by start time: on the first page of 100.
    const target = await world.book(restaurantId, { days: 1, time: '12:00', adults: 2 });
    for (let index = 0; index < 100; index++)
      await world.book(restaurantId, { days: 2 + (index % 20), time: index % 2 ? '19:00' : '20:00' });
    const changes: ReservationChange[] = [];
    sync = createReservationSync({
      client: world.client,
      onChange: (change) => void changes.push(change),
      restaurantIds: world.restaurantIds,
      clock: world.clock,
      logger: quietLogger,
      trackClientCreates: false,
    });
    sync.attach(world.receiver);
    let done = false;
    let reading = sync.settled().finally(() => (done = true));
    while (!done) await world.clock.advance(1000);
    await reading;
    expect(changes).toHaveLength(101);

    // The next read: its first page arrives, then (before the second) the guest makes it 5.
    const pages = () => world.fake.requests.filter((entry) => entry.operation === 'reservations.list').length;
    const pagesBefore = pages();
    done = false;
    reading = sync.settled().finally(() => (done = true));
    while (pages() === pagesBefore) await world.clock.advance(100);
    await world.clock.advance(1000);
    expect(pages()).toBe(pagesBefore + 1);
    await world.fake.asCustomer.modify(restaurantId, target.id, { adults: 5 });
    await world.clock.quiet();
    expect(changesOf(changes, target.id).at(-1)).toMatchObject({
      source: 'webhook',
      reservation: { adults: 5 },
    });
    while (!done) await world.clock.advance(1000);
    await reading;

    const chain = changesOf(changes, target.id);
    expect(chain.map((change) => [change.kind, change.reservation.adults])).toEqual([
      ['created', 2],
      ['modified', 5],
    ]);
    expectChain(chain);
    expect(await sync.get(restaurantId, target.id)).toEqual(
      truthOf(world).get(`${restaurantId}:${target.id}`),
    );
  });

  it('store writes that fail after onChange: the change is not handed over again, and the next one follows it at the next revision', async () => {
    world = await createWorld();
    const [restaurantId] = world.restaurantIds as [number];
    const memory = createMemorySyncStore();
    // The first change's write, and its second try at the next change, fail.
    let failingWrites = 2;
    const store: SyncStore = {
      ...memory,
      put: async (record, now) => {
        if (failingWrites-- > 0) throw new Error('store unreachable');
        return memory.put(record, now);
      },
    };
    const changes: ReservationChange[] = [];
    sync = createReservationSync({
      client: world.client,
      onChange: (change) => void changes.push(change),
      store,
      restaurantIds: world.restaurantIds,
      clock: world.clock,
      logger: quietLogger,
    });
    sync.attach(world.receiver);
    // Followed as it is made (source client); its record's write fails.
    const booking = await world.book(restaurantId);
    await world.clock.quiet();
    expect(changes.map((change) => change.kind)).toEqual(['created']);
    expect(await sync.get(restaurantId, booking.id)).toEqual(booking);
    // The confirmation arrives by webhook, then a read finds nothing more.
    await world.clock.advance(5000);
    await world.fake.asRestaurant.confirm(restaurantId, booking.id);
    await world.clock.quiet();
    let done = false;
    const reading = sync.settled().finally(() => (done = true));
    while (!done) await world.clock.advance(1000);
    await reading;

    expect(changes.map((change) => [change.kind, change.source])).toEqual([
      ['created', 'client'],
      ['confirmed', 'webhook'],
    ]);
    expectChain(changes);
    const truth = truthOf(world).get(`${restaurantId}:${booking.id}`);
    expect(await sync.get(restaurantId, booking.id)).toEqual(truth);
    // Written once the store answered, at the second change's revision (the store held none).
    expect(await memory.get(restaurantId, booking.id)).toMatchObject({ revision: 2, reservation: truth });
  });
});

describe('the sync never stalls', () => {
  it("an onChange that keeps throwing for one reservation delays no other's change; it is retried with backoff and reported", async () => {
    world = await createWorld({ restaurants: 2 });
    const [poisoned, other] = world.restaurantIds as [number, number];
    // The poison one starts first, so it comes first in its restaurant's list.
    const poison = await world.book(poisoned, { days: 1 });
    const neighbour = await world.book(poisoned, { days: 3 });
    const elsewhere = await world.book(other, { days: 3 });
    const attempts: number[] = [];
    const changes: Array<ReservationChange & { at: number }> = [];
    const warnings: string[] = [];
    sync = createReservationSync({
      client: world.client,
      onChange: (change) => {
        if (change.reservation.id === poison.id) {
          attempts.push(world.fake.clock.now());
          throw new Error('cannot save this one');
        }
        changes.push({ ...change, at: world.fake.clock.now() });
      },
      restaurantIds: world.restaurantIds,
      clock: world.clock,
      logger: {
        warn: (message) => void warnings.push(message),
        error: (message) => void warnings.push(message),
      },
      reconcile: { intervalMs: 5000, budgetShare: 0.5 },
      trackClientCreates: false,
    });
    const startedAt = world.fake.clock.now();
    await sync.start();
    for (let second = 0; second < 10; second++) await world.clock.advance(1000);
    expect(new Set(changes.map((change) => change.reservation.id))).toEqual(
      new Set([neighbour.id, elsewhere.id]),
    );
    expect(Math.max(...changes.map((change) => change.at - startedAt))).toBeLessThanOrEqual(5000);

    // Changes elsewhere, and beside the poison one, are announced within the interval.
    const modifiedAt = world.fake.clock.now();
    await world.fake.asCustomer.modify(other, elsewhere.id, { adults: 6 });
    await world.fake.asCustomer.modify(poisoned, neighbour.id, { adults: 4 });
    for (let second = 0; second < 30; second++) await world.clock.advance(1000);
    for (const id of [elsewhere.id, neighbour.id]) {
      const modified = changesOf(changes, id).find((change) => change.kind === 'modified');
      expect(modified, `reservation ${id}`).toBeDefined();
      expect(modified!.at - modifiedAt).toBeLessThanOrEqual(5000);
    }

    // The poison one: tried again and again, each wait longer than the one before, and reported.
    const gaps = attempts.slice(1).map((at, index) => at - attempts[index]!);
    expect(attempts.length).toBeGreaterThanOrEqual(4);
    expect(gaps[0]).toBeGreaterThanOrEqual(1000);
    for (let index = 1; index < gaps.length; index++)
      expect(gaps[index]).toBeGreaterThanOrEqual(gaps[index - 1]!);
    expect(warnings.some((line) => line.includes(`reservation ${poison.id}`))).toBe(true);
  });

  it('converges after its clock is set back an hour', async () => {
    world = await createWorld();
    const [restaurantId] = world.restaurantIds as [number];
    const booking = await world.book(restaurantId);
    // The partner's machine's clock, set back by an hour mid-run; its timers still run their length.
    let offset = 0;
    const clock: Clock = {
      now: () => world.fake.clock.now() + offset,
      sleep: (ms, signal) => world.clock.sleep(ms, signal),
    };
    const changes: ReservationChange[] = [];
    const intervalMs = 5 * 60_000;
    sync = createReservationSync({
      client: world.client,
      onChange: (change) => void changes.push(change),
      restaurantIds: world.restaurantIds,
      clock,
      logger: quietLogger,
      reconcile: { intervalMs },
    });
    await sync.start();
    await world.clock.advance(60_000);
    expect(changes.map((change) => change.kind)).toEqual(['created']);

    offset = -60 * 60_000;
    await world.fake.asCustomer.modify(restaurantId, booking.id, { adults: 4 });
    await world.fake.asRestaurant.confirm(restaurantId, booking.id);
    for (let step = 0; step < intervalMs / 10_000; step++) await world.clock.advance(10_000);
    expect(await sync.get(restaurantId, booking.id)).toEqual(
      truthOf(world).get(`${restaurantId}:${booking.id}`),
    );
    expect(changes.map((change) => change.kind)).toEqual(['created', 'confirmed']);
    expectChain(changes);
  });
});
