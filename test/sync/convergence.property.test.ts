/**
 * Convergence, as a property: after any sequence of partner, restaurant and customer actions, with
 * deliveries dropped, duplicated, delayed and reordered (a seeded chaos between the fake and the
 * receiver), `sync.get` equals the fake's truth for every reservation within one intervalMs after
 * the last action or late delivery; every reservation's changes form a chain that never goes
 * backwards and never repeats itself. All on the fake's clock.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Reservation } from 'restaurant-partner-sdk';
import { createReservationSync, type ReservationChange } from 'restaurant-partner-sdk/sync';
import { createWorld, HOOK_URL, truthOf, type World } from './support/world.js';

const INTERVAL_MS = 5 * 60_000;
const MAX_DELAY_MS = 90_000;

type Action =
  | { kind: 'book'; restaurant: number; days: number; time: string }
  | { kind: 'confirm' | 'modify' | 'customerCancel' | 'partnerCancel' | 'arrived' | 'noShow'; target: number; adults: number }
  | { kind: 'wait'; ms: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('book' as const), restaurant: fc.nat(2), days: fc.integer({ min: 1, max: 5 }), time: fc.constantFrom('12:00', '13:00', '19:00', '20:30') }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constantFrom('confirm' as const, 'modify' as const, 'customerCancel' as const, 'partnerCancel' as const, 'arrived' as const, 'noShow' as const), target: fc.nat(30), adults: fc.integer({ min: 1, max: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 120_000 }) }) },
);

/** A small seeded generator (mulberry32), so a chaos seed replays exactly. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Chaos {
  dropRate: number;
  duplicateRate: number;
  seed: number;
}

/**
 * Deliveries pass through chaos on their way to the receiver: dropped for good (answered 200, as if
 * lost after the service's last try), sent twice, or held up to MAX_DELAY_MS on the fake's clock
 * (so they overtake each other). Returns the time the last held delivery lands.
 */
function chaosBetween(world: World, chaos: Chaos): { lastLandingAt: () => number } {
  const next = random(chaos.seed);
  let lastLandingAt = 0;
  const unregister = world.fake.registerDeliveryHandler(HOOK_URL, async (request) => {
    if (next() < chaos.dropRate) return new Response(null, { status: 200 });
    const copies = next() < chaos.duplicateRate ? 2 : 1;
    for (let copy = 0; copy < copies; copy++) {
      const delay = Math.floor(next() * MAX_DELAY_MS);
      const held = request.clone();
      lastLandingAt = Math.max(lastLandingAt, world.fake.clock.now() + delay);
      void world.clock.sleep(delay).then(() => world.receiver.handle(held));
    }
    return new Response(null, { status: 200 });
  });
  void unregister;
  return { lastLandingAt: () => lastLandingAt };
}

async function perform(world: World, step: Action, booked: Array<{ restaurantId: number; id: number }>): Promise<void> {
  if (step.kind === 'wait') return world.clock.advance(step.ms);
  if (step.kind === 'book') {
    const restaurantId = world.restaurantIds[step.restaurant]!;
    const reservation = await world.book(restaurantId, { days: step.days, time: step.time }).catch(() => undefined);
    if (reservation) booked.push({ restaurantId, id: reservation.id });
    return world.clock.quiet();
  }
  const target = booked[step.target % Math.max(1, booked.length)];
  if (!target) return;
  const { restaurantId, id } = target;
  const acts: Record<typeof step.kind, () => Promise<unknown>> = {
    confirm: () => world.fake.asRestaurant.confirm(restaurantId, id),
    modify: () => world.fake.asCustomer.modify(restaurantId, id, { adults: step.adults, comment: `party of ${step.adults}` }),
    customerCancel: () => world.fake.asCustomer.cancel(restaurantId, id),
    partnerCancel: () => world.client.reservations.cancel(restaurantId, id),
    arrived: () => world.client.reservations.markArrived(restaurantId, id),
    noShow: () => world.client.reservations.markNoShow(restaurantId, id),
  };
  // Refused moves (a 409: arrived after a cancellation, ...) are part of the game.
  await acts[step.kind]().catch(() => undefined);
  await world.clock.quiet();
}

const FLAGS = ['cancelled', 'confirmed', 'arrived', 'no_show'] as const;

/** The chain of one reservation's changes: linked, never backwards, never a repeat. */
function checkChain(changes: ReservationChange[]): void {
  let last: Reservation | null = null;
  for (const change of changes) {
    expect(change.previous).toEqual(last);
    if (last) {
      expect(change.reservation).not.toEqual(last);
      for (const flag of FLAGS) if (last[flag] === true) expect(change.reservation[flag], `${flag} reverted`).toBe(true);
    } else {
      expect(change.kind).toBe('created');
    }
    last = change.reservation;
  }
}

describe('the sync converges (property, on the fake\'s clock)', () => {
  it('after any actions under delivery chaos, the view equals the truth within one intervalMs, each reservation a clean chain', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(action, { minLength: 4, maxLength: 18 }),
        fc.record({ dropRate: fc.constantFrom(0, 0.3, 0.8), duplicateRate: fc.constantFrom(0, 0.3), seed: fc.nat() }),
        async (actions, chaos) => {
          const world = await createWorld({ restaurants: 3 });
          const landing = chaosBetween(world, chaos);
          const changes: ReservationChange[] = [];
          const sync = createReservationSync({
            client: world.client,
            onChange: (change) => void changes.push(change),
            restaurantIds: world.restaurantIds,
            clock: world.clock,
            logger: { warn: () => undefined, error: () => undefined },
            reconcile: { intervalMs: INTERVAL_MS, budgetShare: 0.25 },
          });
          sync.attach(world.receiver);
          try {
            await sync.start();
            const booked: Array<{ restaurantId: number; id: number }> = [];
            for (const step of actions) await perform(world, step, booked);
            const settledBy = Math.max(world.fake.clock.now(), landing.lastLandingAt()) + INTERVAL_MS;
            await world.clock.advance(settledBy - world.fake.clock.now());
            const truth = truthOf(world);
            for (const [key, reservation] of truth) {
              const [restaurantId, id] = key.split(':').map(Number) as [number, number];
              expect(await sync.get(restaurantId, id), `reservation ${key}`).toEqual(reservation);
            }
            const byReservation = new Map<string, ReservationChange[]>();
            for (const change of changes) {
              const key = `${change.restaurantId}:${change.reservation.id}`;
              byReservation.set(key, [...(byReservation.get(key) ?? []), change]);
            }
            expect(new Set(byReservation.keys())).toEqual(new Set(truth.keys()));
            for (const chain of byReservation.values()) checkChain(chain);
          } finally {
            await sync.stop();
            world.fake.dispose();
          }
        },
      ),
      { numRuns: 12, seed: Number(process.env.SYNC_PROPERTY_SEED ?? 20261125), endOnFailure: true },
    );
  }, 240_000);
});
