/**
 * The recovery recipe of docs/exactly-once.md, proven against the fake ignoring Idempotency-Key:
 * a gateway answers 504 while the origin commits 15 s or 30 s later (on the fake's clock). The
 * job repeats the create with the same key every 10 s; with the default (memory) ledger of one
 * process, the repeats send nothing until a look-up finds the booking: one booking in the end.
 * The recipe the README used to give (look the key up, and book again when it answers null)
 * would book twice here: a create that repeats the key is held instead.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { AmbiguousCreateError, PartnerClient } from 'restaurant-partner-sdk';
import { createFakeService } from 'restaurant-partner-sdk/testing';

const report: string[] = [];
afterAll(() =>
  console.info(`recovery recipe, bookings on the fake vs what the client reported:\n${report.join('\n')}`),
);

function gatewayScenario(commitDelayMs: number) {
  const fake = createFakeService({ clock: { frozen: true }, dialect: { idempotencyKey: 'ignored' } });
  const partner = fake.addPartner();
  const restaurant = fake.addRestaurant({ partnerIds: [partner.partnerId] });
  const client = new PartnerClient(fake.clientOptions(partner));
  fake.injectFault({ operation: 'reservations.create', status: 504, commitDelayMs });
  const creates = () => fake.requests.filter((entry) => entry.operation === 'reservations.create').length;
  return { fake, restaurant, client, creates };
}

describe.each([15_000, 30_000])('504, the origin commits %i ms later', (commitDelayMs) => {
  it('repeating the create with the same key every 10 s: AmbiguousCreateError until the booking is found, one POST, one booking', async () => {
    const { fake, restaurant, client, creates } = gatewayScenario(commitDelayMs);
    const input = { start_time: { date: '2026-12-06', time: '20:00' }, adults: 2 };
    const told: string[] = [];
    let booking: { id: number } | undefined;
    for (let attempt = 1; booking === undefined && attempt <= 10; attempt += 1) {
      try {
        booking = await client.reservations.create(restaurant.id, input, { idempotencyKey: 'order-77' });
        told.push(`success #${booking.id}`);
      } catch (error) {
        expect(error).toBeInstanceOf(AmbiguousCreateError);
        told.push('ambiguous');
        await fake.clock.advance(10_000);
      }
    }
    const stored = fake.allReservations(restaurant.id);
    expect(stored).toHaveLength(1);
    expect(booking?.id).toBe(stored[0]!.id);
    expect(creates()).toBe(1);
    // The first create ends ambiguous after its 10 s settle window; later repeats only look.
    expect(told[0]).toBe('ambiguous');
    report.push(
      `  commit ${commitDelayMs / 1000} s late, repeat every 10 s: ${stored.length} booked, ${creates()} POST, told ${told.join(', ')}`,
    );
    fake.dispose();
  });

  it('the old recipe (findByIdempotencyKey null, then create again with the key) no longer books twice: the create is held', async () => {
    const { fake, restaurant, client, creates } = gatewayScenario(commitDelayMs);
    const input = { start_time: { date: '2026-12-06', time: '20:00' }, adults: 2 };
    const first = await client.reservations
      .create(restaurant.id, input, { idempotencyKey: 'order-78' })
      .catch((error: unknown) => error);
    expect(first).toBeInstanceOf(AmbiguousCreateError);
    expect(await client.reservations.findByIdempotencyKey(restaurant.id, 'order-78')).toBeNull();
    const again = await client.reservations
      .create(restaurant.id, input, { idempotencyKey: 'order-78' })
      .catch((error: unknown) => error);
    expect(again).toBeInstanceOf(AmbiguousCreateError);
    expect((again as Error).message).toMatch(/until /);
    expect(creates()).toBe(1);
    await fake.clock.advance(commitDelayMs);
    const found = await client.reservations.create(restaurant.id, input, { idempotencyKey: 'order-78' });
    const stored = fake.allReservations(restaurant.id);
    expect(stored.map((row) => row.id)).toEqual([found.id]);
    expect(creates()).toBe(1);
    report.push(
      `  commit ${commitDelayMs / 1000} s late, the old recipe: ${stored.length} booked, ${creates()} POST, told ambiguous, null, ambiguous (held), success #${found.id}`,
    );
    fake.dispose();
  });
});
