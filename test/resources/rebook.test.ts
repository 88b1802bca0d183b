/**
 * `reservations.rebook` against the in-process fake, on its frozen clock: the new time booked, the
 * restaurant's confirmation awaited, the old booking cancelled, and in every ending exactly one
 * live booking. Each case counts the live bookings in the fake and the writes it received.
 */
import { describe, expect, it } from 'vitest';
import {
  IdempotencyKeyReuseError,
  InputValidationError,
  isPartnerSdkError,
  NoAvailabilityError,
  PartnerClient,
  RebookIncompleteError,
  RebookNotConfirmedError,
  ReservationNotRebookableError,
} from 'restaurant-partner-sdk';
import { createFakeService } from 'restaurant-partner-sdk/testing';

const OLD_TIME = { date: '2026-12-05', time: '19:30' };
const NEW_INPUT = { start_time: { date: '2026-12-05', time: '20:00' }, adults: 2, first_name: 'Ada' };

function world(mode: 'sync' | 'async' = 'sync') {
  const fake = createFakeService({ clock: { frozen: true, startAt: '2026-12-01T08:00:00Z' } });
  const partner = fake.addPartner();
  const restaurant = fake.addRestaurant({
    partnerIds: [partner.partnerId],
    confirmation_mode: mode === 'async' ? 'CONFIRMATION_MODE_ASYNCHRONOUS' : 'CONFIRMATION_MODE_SYNCHRONOUS',
  });
  const client = new PartnerClient(fake.clientOptions(partner));
  const rid = restaurant.id;
  const live = () =>
    fake
      .allReservations(rid)
      .filter((row) => !row.cancelled && !row.arrived && !row.no_show)
      .map((row) => row.id);
  const writes = () => fake.requests.filter((entry) => entry.method === 'POST' || entry.method === 'PATCH');
  const bookOld = async () => {
    const old = await client.reservations.create(rid, { start_time: OLD_TIME, adults: 2, first_name: 'Ada' });
    if (mode === 'async') await fake.asRestaurant.confirm(rid, old.id);
    return old;
  };
  return { fake, client, rid, live, writes, bookOld };
}

describe('reservations.rebook', () => {
  it('a restaurant that confirms at once: the new booking is returned, the old one cancelled, one live; a repeat sends nothing', async () => {
    const { fake, client, rid, live, writes, bookOld } = world();
    const old = await bookOld();
    const moved = await client.reservations.rebook(rid, old.id, NEW_INPUT, { idempotencyKey: 'change-1' });
    expect(moved.id).not.toBe(old.id);
    expect(moved.confirmed).toBe(true);
    expect(live()).toEqual([moved.id]);
    expect(moved.metadata?.['restaurant_partner_sdk.idempotency_key']).toBe('change-1:new');

    const before = writes().length;
    const again = await client.reservations.rebook(rid, old.id, NEW_INPUT, { idempotencyKey: 'change-1' });
    expect(again.id).toBe(moved.id);
    expect(writes().length).toBe(before);
    expect(live()).toEqual([moved.id]);
    fake.dispose();
  });

  it('a restaurant that confirms by hand: waits on the fake clock, cancels the old one once confirmed', async () => {
    const { fake, client, rid, live, bookOld } = world('async');
    const old = await bookOld();
    const startedAt = fake.clock.now();
    const rebook = client.reservations.rebook(rid, old.id, NEW_INPUT, { idempotencyKey: 'change-2' });
    // The restaurant confirms two minutes later; until then both bookings are live.
    let confirmedAt = 0;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      const pending = fake.allReservations(rid).find((row) => row.id !== old.id && !row.confirmed);
      if (pending && fake.clock.now() - startedAt >= 120_000) {
        expect(live()).toHaveLength(2);
        await fake.asRestaurant.confirm(rid, pending.id);
        confirmedAt = fake.clock.now();
        break;
      }
    }
    const moved = await rebook;
    expect(moved.confirmed).toBe(true);
    expect(live()).toEqual([moved.id]);
    // Noticed within one poll interval (5 s) of the confirmation, plus a rate-limit slot for the read and the cancel.
    expect(fake.clock.now() - confirmedAt).toBeLessThanOrEqual(8_000);
    fake.dispose();
  });

  it('not confirmed before the deadline: the new booking is cancelled, the old one kept; RebookNotConfirmedError, not retryable, and so again on a repeat', async () => {
    const { fake, client, rid, live, writes, bookOld } = world('async');
    const old = await bookOld();
    const startedAt = fake.clock.now();
    const error = await client.reservations
      .rebook(rid, old.id, NEW_INPUT, { idempotencyKey: 'change-3', confirmationDeadlineMs: 60_000 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RebookNotConfirmedError);
    expect(isPartnerSdkError(error, RebookNotConfirmedError)).toBe(true);
    expect(error).toMatchObject({ reason: 'deadline', retryable: false, reservationId: old.id });
    expect(fake.clock.now() - startedAt).toBeGreaterThanOrEqual(60_000);
    expect(live()).toEqual([old.id]);

    const before = writes().length;
    const again = await client.reservations
      .rebook(rid, old.id, NEW_INPUT, { idempotencyKey: 'change-3' })
      .catch((caught: unknown) => caught);
    expect(again).toMatchObject({ name: 'RebookNotConfirmedError', reason: 'cancelled', retryable: false });
    expect(writes().length).toBe(before);
    expect(live()).toEqual([old.id]);
    fake.dispose();
  });

  it('without confirmationDeadlineMs it waits 5 minutes, then keeps the old booking', async () => {
    const { fake, client, rid, live, bookOld } = world('async');
    const old = await bookOld();
    const startedAt = fake.clock.now();
    const error = await client.reservations
      .rebook(rid, old.id, NEW_INPUT, { idempotencyKey: 'change-3b' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'RebookNotConfirmedError', reason: 'deadline' });
    const waited = fake.clock.now() - startedAt;
    expect(waited).toBeGreaterThanOrEqual(5 * 60_000);
    expect(waited).toBeLessThan(5 * 60_000 + 15_000);
    expect(live()).toEqual([old.id]);
    fake.dispose();
  });

  it('the customer cancels the old booking while the rebook waits, and the new one is not confirmed in time: the new one is kept, never none', async () => {
    const { fake, client, rid, live, bookOld } = world('async');
    const old = await bookOld();
    const rebook = client.reservations.rebook(rid, old.id, NEW_INPUT, {
      idempotencyKey: 'change-3c',
      confirmationDeadlineMs: 60_000,
    });
    while (fake.allReservations(rid).length < 2) await new Promise((resolve) => setTimeout(resolve, 0));
    await fake.asCustomer.cancel(rid, old.id);
    const kept = await rebook;
    expect(kept.confirmed).toBe(false);
    expect(live()).toEqual([kept.id]);
    fake.dispose();
  });

  it('the restaurant refuses the new booking while the rebook waits: RebookNotConfirmedError, the old one kept', async () => {
    const { fake, client, rid, live, bookOld } = world('async');
    const old = await bookOld();
    const rebook = client.reservations
      .rebook(rid, old.id, NEW_INPUT, { idempotencyKey: 'change-4' })
      .catch((caught: unknown) => caught);
    let refused = false;
    while (!refused) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      const pending = fake.allReservations(rid).find((row) => row.id !== old.id);
      if (pending) {
        await fake.asRestaurant.cancel(rid, pending.id);
        refused = true;
      }
    }
    expect(await rebook).toMatchObject({ name: 'RebookNotConfirmedError', reason: 'cancelled' });
    expect(live()).toEqual([old.id]);
    fake.dispose();
  });

  it('no table at the new time: the NoAvailabilityError as thrown, the old booking untouched', async () => {
    const { fake, client, rid, live, bookOld } = world();
    const old = await bookOld();
    const closed = { ...NEW_INPUT, start_time: { date: '2026-12-05', time: '16:00' } };
    await expect(
      client.reservations.rebook(rid, old.id, closed, { idempotencyKey: 'change-5' }),
    ).rejects.toBeInstanceOf(NoAvailabilityError);
    expect(live()).toEqual([old.id]);
    fake.dispose();
  });

  type World = ReturnType<typeof world>;
  const makeOld: Record<'cancelled' | 'arrived' | 'no_show', (w: World, id: number) => Promise<unknown>> = {
    cancelled: (w, id) => w.fake.asCustomer.cancel(w.rid, id),
    arrived: (w, id) => w.client.reservations.markArrived(w.rid, id),
    no_show: (w, id) => w.client.reservations.markNoShow(w.rid, id),
  };
  it.each([['cancelled'], ['arrived'], ['no_show']] as const)(
    'an old booking already %s is refused after one read: nothing booked or cancelled',
    async (state) => {
      const w = world();
      const { fake, client, rid, live, writes, bookOld } = w;
      const old = await bookOld();
      await makeOld[state](w, old.id);
      const liveBefore = live();
      const before = writes().length;
      const error = await client.reservations
        .rebook(rid, old.id, NEW_INPUT, { idempotencyKey: `change-6-${state}` })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ReservationNotRebookableError);
      expect(error).toMatchObject({ state, reservationId: old.id, retryable: false });
      expect((error as Error).message).toContain(state === 'no_show' ? 'no-show' : state);
      expect(writes().length).toBe(before);
      expect(live()).toEqual(liveBefore);
      fake.dispose();
    },
  );

  it.each([
    ['adults', { ...NEW_INPUT, adults: 0 }, {}],
    ['frist_name', { ...NEW_INPUT, frist_name: 'Ada' }, {}],
    ['idempotencyKey', NEW_INPUT, { idempotencyKey: undefined }],
    ['idempotencyKey', NEW_INPUT, { idempotencyKey: 'k'.repeat(252) }],
    ['confirmationDeadlineMs', NEW_INPUT, { confirmationDeadlineMs: -1 }],
  ])('bad input (%s) is refused before any request', async (field, input, options) => {
    const { fake, client, rid } = world();
    const before = fake.requests.length;
    const error = await client.reservations
      .rebook(rid, 41, input, { idempotencyKey: 'change-7', ...options } as {
        idempotencyKey: string;
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputValidationError);
    expect((error as InputValidationError).field).toBe(field);
    expect(fake.requests.length).toBe(before);
    fake.dispose();
  });

  it('a key reused to move another booking is refused before that booking is cancelled', async () => {
    const { fake, client, rid, live, bookOld } = world();
    const first = await bookOld();
    const second = await client.reservations.create(rid, {
      start_time: { date: '2026-12-06', time: '19:30' },
      adults: 2,
    });
    const moved = await client.reservations.rebook(rid, first.id, NEW_INPUT, { idempotencyKey: 'change-8' });
    const error = await client.reservations
      .rebook(rid, second.id, NEW_INPUT, { idempotencyKey: 'change-8' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(IdempotencyKeyReuseError);
    expect(live().sort()).toEqual([moved.id, second.id].sort());
    fake.dispose();
  });

  it('the cancel of the old booking fails with its outcome unknown: RebookIncompleteError says to repeat; the repeat finishes with one live', async () => {
    const { fake, client, rid, live, bookOld } = world();
    const old = await bookOld();
    fake.injectFault({ operation: 'reservations.cancel', status: 503, times: 4 });
    const error = await client.reservations
      .rebook(rid, old.id, NEW_INPUT, { idempotencyKey: 'change-9' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RebookIncompleteError);
    expect(error).toMatchObject({ step: 'cancel-old', retryable: true, idempotencyKey: 'change-9' });
    expect((error as Error).message).toMatch(/Repeat the rebook with the same idempotencyKey/);
    const newId = (error as RebookIncompleteError).newReservationId!;
    expect(live().sort()).toEqual([old.id, newId].sort());

    const moved = await client.reservations.rebook(rid, old.id, NEW_INPUT, { idempotencyKey: 'change-9' });
    expect(moved.id).toBe(newId);
    expect(live()).toEqual([newId]);
    fake.dispose();
  });
});
