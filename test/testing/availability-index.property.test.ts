/**
 * The availability check reads only the reservations around the asked time (an index by
 * restaurant and hour, so a create costs the same at 100 and 100,000 bookings). Against a plain
 * reading of the rule over every reservation, on random bookings, cancellations, no-shows and
 * modifications, it must give the same verdict.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFakeService } from 'restaurant-partner-sdk/testing';

const DAY = '2026-12-02';
const SLOTS = Array.from({ length: 18 }, (_unused, index) => {
  const minutes = 18 * 60 + index * 15;
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
});

/** The rule over every reservation: seats free at every instant of the new one's stay. */
function fitsByHand(
  held: { start: number; end: number; covers: number }[],
  start: number,
  end: number,
  covers: number,
  capacity: number,
): boolean {
  const instants = [start, ...held.map((other) => other.start).filter((at) => at > start && at < end)];
  return instants.every(
    (at) =>
      held
        .filter((other) => other.start <= at && other.end > at)
        .reduce((sum, other) => sum + other.covers, covers) <= capacity,
  );
}

describe('availability through the index', () => {
  it('agrees with the rule read over every reservation', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            slot: fc.integer({ min: 0, max: 17 }),
            adults: fc.integer({ min: 1, max: 8 }),
            fate: fc.constantFrom('keep', 'keep', 'cancel', 'no_show', 'move'),
            moveTo: fc.integer({ min: 0, max: 17 }),
          }),
          { maxLength: 25 },
        ),
        fc.integer({ min: 0, max: 17 }),
        fc.integer({ min: 1, max: 8 }),
        (bookings, slot, adults) => {
          const fake = createFakeService({
            rateLimit: false,
            clock: { frozen: true, startAt: '2026-12-01T08:00:00Z' },
          });
          try {
            const restaurant = fake.addRestaurant({ availability: { capacityCovers: 12 } });
            for (const booking of bookings) {
              let made;
              try {
                made = fake.addOtherChannelBooking(restaurant.id, {
                  start_time: `${DAY}T${SLOTS[booking.slot]}:00`,
                  adults: booking.adults,
                });
              } catch {
                continue;
              }
              if (booking.fate === 'cancel') void fake.asRestaurant.cancel(restaurant.id, made.id);
              if (booking.fate === 'move')
                void fake.asRestaurant
                  .modify(restaurant.id, made.id, { start_time: `${DAY}T${SLOTS[booking.moveTo]}:00` })
                  .catch(() => undefined);
            }
            const held = fake
              .allReservations(restaurant.id)
              .filter((reservation) => !reservation.cancelled && !reservation.no_show)
              .map((reservation) => {
                const start = Date.parse(reservation.start_time);
                const covers = (reservation.adults ?? 0) + (reservation.children ?? 0);
                const minutes = covers <= 2 ? 90 : covers <= 6 ? 120 : 150;
                return { start, end: start + minutes * 60_000, covers };
              });
            const start = Date.parse(`${DAY}T${SLOTS[slot]}:00+01:00`);
            const minutes = adults <= 2 ? 90 : adults <= 6 ? 120 : 150;
            const expected = fitsByHand(held, start, start + minutes * 60_000, adults, 12);
            let booked: boolean;
            try {
              fake.addOtherChannelBooking(restaurant.id, { start_time: `${DAY}T${SLOTS[slot]}:00`, adults });
              booked = true;
            } catch {
              booked = false;
            }
            expect(booked).toBe(expected);
          } finally {
            fake.dispose();
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
