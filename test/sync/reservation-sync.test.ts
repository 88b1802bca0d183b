/**
 * The reservation sync's promises to a partner, on the in-process fake's clock: each change once,
 * in order, as a chain, never backwards; onChange retried; a restart on the same store announces
 * only what changed meanwhile; creates through the client followed by themselves.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { InputValidationError } from 'restaurant-partner-sdk';
import {
  createMemorySyncStore,
  createReservationSync,
  type ReservationChange,
  type ReservationSync,
  type SyncStore,
} from 'restaurant-partner-sdk/sync';
import { createWorld, quietLogger, truthOf, type World } from './support/world.js';

let world: World;
let syncs: ReservationSync[] = [];

afterEach(async () => {
  for (const sync of syncs) await sync.stop();
  syncs = [];
  world?.fake.dispose();
});

/** Waits for `sync.settled()`, moving the clock so the budget's waits pass. */
async function settle(sync: ReservationSync): Promise<void> {
  let done = false;
  const reading = sync.settled().finally(() => (done = true));
  while (!done) await world.clock.advance(1000);
  await reading;
}

function startSync(
  options: {
    store?: SyncStore;
    onChange?: (change: ReservationChange) => void | Promise<void>;
    trackClientCreates?: boolean;
  } = {},
) {
  const changes: ReservationChange[] = [];
  const sync = createReservationSync({
    client: world.client,
    onChange: async (change) => {
      await options.onChange?.(change);
      changes.push(change);
    },
    store: options.store,
    restaurantIds: world.restaurantIds,
    clock: world.clock,
    logger: quietLogger,
    trackClientCreates: options.trackClientCreates,
  });
  syncs.push(sync);
  return { sync, changes };
}

describe('createReservationSync', () => {
  it('announces a booking, its confirmation, a modification and a cancellation once each, as a chain', async () => {
    world = await createWorld();
    const [restaurantId] = world.restaurantIds as [number];
    const { sync, changes } = startSync({ trackClientCreates: false });
    sync.attach(world.receiver);
    const booking = await world.book(restaurantId);
    await settle(sync);
    await world.clock.advance(5000);
    await world.fake.asRestaurant.confirm(restaurantId, booking.id);
    await world.clock.advance(5000);
    await world.fake.asCustomer.modify(restaurantId, booking.id, { adults: 4 });
    await world.clock.advance(5000);
    await world.fake.asCustomer.cancel(restaurantId, booking.id);
    await world.clock.quiet();
    // A read after the deliveries finds nothing new.
    await settle(sync);
    expect(changes.map((change) => [change.kind, change.source])).toEqual([
      ['created', 'reconcile'],
      ['confirmed', 'webhook'],
      ['modified', 'webhook'],
      ['cancelled', 'webhook'],
    ]);
    for (let index = 1; index < changes.length; index++)
      expect(changes[index]!.previous).toEqual(changes[index - 1]!.reservation);
    expect(changes[0]!.previous).toBeNull();
    expect(await sync.get(restaurantId, booking.id)).toEqual(
      truthOf(world).get(`${restaurantId}:${booking.id}`),
    );
  });

  it('collapses a duplicate delivery, and a delivery and a read of the same change, into one announcement', async () => {
    world = await createWorld();
    const [restaurantId] = world.restaurantIds as [number];
    const { sync, changes } = startSync();
    const booking = await world.book(restaurantId);
    await world.clock.quiet();
    await world.fake.asRestaurant.confirm(restaurantId, booking.id);
    const [delivery] = world.fake.deliveries.filter((entry) => entry.event === 'RESERVATION_CONFIRMED');
    // Fed twice by hand (the receiver was not attached), then read.
    const event = {
      type: 'RESERVATION_CONFIRMED' as const,
      created_at: new Date(world.fake.clock.now()).toISOString(),
      restaurant_id: restaurantId,
      reservation: await world.client.reservations.retrieve(restaurantId, booking.id),
    };
    expect(delivery).toBeDefined();
    await sync.ingest(event);
    await sync.ingest(event);
    await settle(sync);
    expect(changes.map((change) => change.kind)).toEqual(['created', 'confirmed']);
    expect(changes[0]!.source).toBe('client');
  });

  it('never goes backwards: a late delivery of an older state does not undo a cancellation or a confirmation', async () => {
    world = await createWorld();
    const [restaurantId] = world.restaurantIds as [number];
    const { sync, changes } = startSync();
    const booking = await world.book(restaurantId);
    await world.clock.quiet();
    const early = {
      type: 'RESERVATION_MODIFIED' as const,
      created_at: new Date(world.fake.clock.now()).toISOString(),
      restaurant_id: restaurantId,
      reservation: { ...booking, comment: 'window seat' },
    };
    await world.fake.clock.advance(60_000);
    await world.fake.asRestaurant.confirm(restaurantId, booking.id);
    await world.fake.asCustomer.cancel(restaurantId, booking.id);
    await settle(sync);
    const before = changes.length;
    // The older modification arrives last: its fields are older than the read, its flags say less.
    await sync.ingest(early);
    expect(changes.length).toBe(before);
    const view = await sync.get(restaurantId, booking.id);
    expect(view).toMatchObject({ cancelled: true, confirmed: true });
    expect(view?.comment).not.toBe('window seat');
    // A partial delivery claiming the booking is not cancelled cannot revive it either.
    await world.fake.clock.advance(60_000);
    await sync.ingest({
      type: 'RESERVATION_MODIFIED' as const,
      created_at: new Date(world.fake.clock.now()).toISOString(),
      restaurant_id: restaurantId,
      reservation: { id: booking.id, cancelled: false, confirmed: false, adults: 3 },
    });
    expect(await sync.get(restaurantId, booking.id)).toMatchObject({
      cancelled: true,
      confirmed: true,
      adults: 3,
    });
    expect(changes.at(-1)!.kind).toBe('modified');
  });

  it('the kind of a change that moves several fields is the most significant one', async () => {
    world = await createWorld();
    const [restaurantId] = world.restaurantIds as [number];
    const { sync, changes } = startSync();
    const booking = await world.book(restaurantId);
    await world.clock.quiet();
    await world.fake.asCustomer.modify(restaurantId, booking.id, { adults: 5 });
    await world.fake.asRestaurant.confirm(restaurantId, booking.id);
    await world.fake.asCustomer.cancel(restaurantId, booking.id);
    // Nothing delivered: one read sees all three moves at once.
    await settle(sync);
    expect(changes.map((change) => change.kind)).toEqual(['created', 'cancelled']);
    expect(changes[1]!.reservation).toMatchObject({ adults: 5, confirmed: true, cancelled: true });
  });

  it('retries onChange while it throws, and records the change only once it resolved', async () => {
    world = await createWorld();
    const [restaurantId] = world.restaurantIds as [number];
    let failures = 2;
    const store = createMemorySyncStore();
    const { sync, changes } = startSync({
      store,
      trackClientCreates: false,
      onChange: () => {
        if (failures-- > 0) throw new Error('database unavailable');
      },
    });
    const booking = await world.book(restaurantId);
    const reading = sync.settled();
    await world.clock.quiet();
    expect(await sync.get(restaurantId, booking.id)).toBeUndefined();
    await world.clock.advance(1000);
    expect(await sync.get(restaurantId, booking.id)).toBeUndefined();
    await world.clock.advance(2000);
    await reading;
    expect(changes.map((change) => change.kind)).toEqual(['created']);
    expect(await sync.get(restaurantId, booking.id)).toEqual(booking);
  });

  it('a sync started on the store another one used announces only what changed while none ran, once', async () => {
    world = await createWorld();
    const [restaurantId] = world.restaurantIds as [number];
    const store = createMemorySyncStore();
    const first = startSync({ store });
    const kept = await world.book(restaurantId);
    const cancelled = await world.book(restaurantId, { days: 3 });
    await settle(first.sync);
    expect(first.changes).toHaveLength(2);
    await first.sync.stop();
    await world.fake.asCustomer.cancel(restaurantId, cancelled.id);
    const later = await world.book(restaurantId, { days: 4 });
    const second = startSync({ store });
    await settle(second.sync);
    await settle(second.sync);
    // Revisions go on from the store: the cancellation is the second change of its reservation.
    expect(second.changes.map((change) => [change.reservation.id, change.kind, change.revision])).toEqual([
      [cancelled.id, 'cancelled', 2],
      [later.id, 'created', 1],
    ]);
    expect(await second.sync.get(restaurantId, kept.id)).toEqual(kept);
  });

  it('a process restarted under the same holder takes back at once the lease its dead run held; another holder waits for it to lapse', async () => {
    world = await createWorld();
    const [restaurantId] = world.restaurantIds as [number];
    const store = createMemorySyncStore();
    const booking = await world.book(restaurantId);
    const startOn = (holder: string, onChange: () => Promise<void>) => {
      const sync = createReservationSync({
        client: world.client,
        onChange,
        store,
        holder,
        restaurantIds: world.restaurantIds,
        clock: world.clock,
        logger: quietLogger,
        trackClientCreates: false,
      });
      syncs.push(sync);
      return sync;
    };
    // A run that stops answering mid-announcement (as a process killed there): its lease stays.
    let release!: (error: Error) => void;
    const dead = startOn('pod-a', () => new Promise<void>((_, reject) => (release = reject)));
    const stuck = dead.track(restaurantId, booking).catch(() => undefined);
    await world.clock.quiet();
    const handed: string[] = [];
    const other = startOn('pod-b', async () => void handed.push('pod-b'));
    let otherIn = false;
    const otherDone = other.track(restaurantId, booking).then(() => (otherIn = true));
    const restarted = startOn('pod-a', async () => void handed.push('pod-a'));
    // No time passes: only the same holder gets in.
    await restarted.track(restaurantId, booking);
    await world.clock.quiet();
    expect(handed).toEqual(['pod-a']);
    expect(otherIn).toBe(false);
    release(new Error('killed'));
    await stuck;
    await world.clock.advance(3000);
    await otherDone;
    // pod-b, once in, finds the change already recorded: nothing to hand over again.
    expect(handed).toEqual(['pod-a']);
    expect(await store.get(restaurantId, booking.id)).toMatchObject({ revision: 1 });
  });

  it('rejects ingest after stop (so the receiver answers 5xx and the service delivers again), and sends nothing more', async () => {
    world = await createWorld();
    const [restaurantId] = world.restaurantIds as [number];
    const { sync } = startSync();
    sync.attach(world.receiver);
    await sync.start();
    await world.clock.quiet();
    await sync.stop();
    const requests = world.fake.requests.length;
    const booking = await world.book(restaurantId);
    await world.fake.asRestaurant.confirm(restaurantId, booking.id);
    const delivery = world.fake.deliveries.find((entry) => entry.event === 'RESERVATION_CONFIRMED');
    expect(delivery?.status).toBe(500);
    await world.clock.advance(60 * 60_000);
    expect(world.fake.requests.length).toBe(requests + 1);
    await expect(
      sync.ingest({ type: 'RESERVATION_MODIFIED', restaurant_id: restaurantId, reservation: booking }),
    ).rejects.toThrow(/stopped/);
  });

  it('refuses bad options with an InputValidationError naming the field, before any request', async () => {
    world = await createWorld();
    const base = { client: world.client, onChange: () => undefined };
    const refusal = (options: object) => {
      try {
        createReservationSync({ ...base, ...options });
      } catch (error) {
        return error instanceof InputValidationError ? error.issues.map((issue) => issue.field) : error;
      }
      return 'accepted';
    };
    expect(refusal({ reconcile: { budgetShare: 0 } })).toEqual(['reconcile.budgetShare']);
    expect(refusal({ reconcile: { budgetShare: 1.5 } })).toEqual(['reconcile.budgetShare']);
    expect(refusal({ reconcile: { intervalMs: 10 } })).toEqual(['reconcile.intervalMs']);
    expect(refusal({ restaurantIds: [12, 'x'] })).toEqual(['restaurantIds']);
    expect(refusal({ store: { get: () => undefined } })).toEqual(['store']);
    expect(refusal({ onChange: 'save' })).toEqual(['onChange']);
    expect(refusal({ holder: '' })).toEqual(['holder']);
    expect(refusal({ reconcile: { intervalMs: 60_000, budgetShare: 1 } })).toBe('accepted');
    expect(world.fake.requests.filter((entry) => entry.operation?.startsWith('reservations'))).toEqual([]);
  });

  it('a store that fails is tried again later, not hammered, and the view catches up once it answers', async () => {
    world = await createWorld();
    const [restaurantId] = world.restaurantIds as [number];
    const memory = createMemorySyncStore();
    let down = true;
    let claims = 0;
    const store: SyncStore = {
      ...memory,
      claim: async (...args) => {
        claims += 1;
        if (down) throw new Error('store unreachable');
        return memory.claim(...args);
      },
    };
    const warnings: string[] = [];
    const changes: ReservationChange[] = [];
    const sync = createReservationSync({
      client: world.client,
      onChange: (change) => void changes.push(change),
      store,
      restaurantIds: world.restaurantIds,
      clock: world.clock,
      logger: { warn: (message) => void warnings.push(message), error: () => undefined },
      trackClientCreates: false,
    });
    syncs.push(sync);
    const booking = await world.book(restaurantId);
    await sync.start();
    for (let minute = 0; minute < 10; minute++) await world.clock.advance(60_000);
    // Once a minute at most (period / 8), with a warning each time.
    expect(claims).toBeGreaterThan(0);
    expect(claims).toBeLessThanOrEqual(11);
    expect(warnings.some((line) => line.includes(`restaurant ${restaurantId} failed`))).toBe(true);
    down = false;
    for (let minute = 0; minute < 2; minute++) await world.clock.advance(60_000);
    expect(changes.map((change) => [change.kind, change.reservation.id])).toEqual([['created', booking.id]]);
  });
});
