/**
 * A partner's own vitest suite, using the fake as its test double: the restaurant confirms, a
 * customer cancels, time passes, webhooks arrive, and the suite never sleeps.
 *
 *   npx vitest run examples/partner-test-suite.test.ts
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NoAvailabilityError, PartnerClient } from 'restaurant-partner-sdk';
import { createFakeService, type FakeRestaurant, type FakeService } from 'restaurant-partner-sdk/testing';
import { createWebhookReceiver, type WebhookEvent } from 'restaurant-partner-sdk/webhooks';

/** The partner's code under test: books a dinner and reports whether the table is certain. */
async function bookDinner(client: PartnerClient, restaurantId: number, date: string, guests: number) {
  const reservation = await client.reservations.create(restaurantId, {
    start_time: { date, time: '20:00' },
    adults: guests,
  });
  return { id: reservation.id, status: reservation.confirmed ? 'confirmed' : 'pending' };
}

describe('dinner bookings', () => {
  let fake: FakeService;
  let client: PartnerClient;
  let restaurant: FakeRestaurant;

  beforeEach(() => {
    // A frozen clock: every run sees the same Monday morning, whatever day CI runs on.
    fake = createFakeService({ clock: { frozen: true, startAt: '2030-01-07T08:00:00Z' } });
    const partner = fake.addPartner({ name: 'Acme Concierge' });
    restaurant = fake.addRestaurant({
      display_name: 'Bistro des Vosges',
      timezone: 'Europe/Paris',
      confirmation_mode: 'CONFIRMATION_MODE_ASYNCHRONOUS',
      partnerIds: [partner.partnerId],
    });
    client = new PartnerClient(fake.clientOptions(partner));
  });
  afterEach(() => fake.dispose());

  it('stays pending until the restaurant confirms', async () => {
    const booking = await bookDinner(client, restaurant.id, '2030-01-08', 2);
    expect(booking.status).toBe('pending');

    await fake.asRestaurant.confirm(restaurant.id, booking.id);

    const reservation = await client.reservations.waitForConfirmation(restaurant.id, booking.id, {
      timeoutMs: 60_000,
    });
    expect(reservation.confirmed).toBe(true);
  });

  it('hears about a customer cancellation through its webhook', async () => {
    const events: WebhookEvent[] = [];
    const webhook = await client.webhooks.create({ url: 'https://partner.example/hooks' });
    const receiver = createWebhookReceiver({ tokens: [webhook.auth_token!] }).on(
      'RESERVATION_CANCELLED',
      (event) => {
        events.push(event);
      },
    );
    // Deliveries to that url go straight to the receiver, in-process.
    fake.registerDeliveryHandler('https://partner.example/hooks', (request) => receiver.handle(request));

    const booking = await bookDinner(client, restaurant.id, '2030-01-08', 4);
    await fake.asCustomer.cancel(restaurant.id, booking.id);

    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'RESERVATION_CANCELLED',
      reservation: { id: booking.id, cancelled: true },
    });
  });

  it('cannot book beyond the booking horizon until time passes', async () => {
    // The restaurant takes bookings 90 days ahead (the fake's default configuration).
    await expect(bookDinner(client, restaurant.id, '2030-05-01', 2)).rejects.toBeInstanceOf(
      NoAvailabilityError,
    );

    await fake.clock.advance('P30D');

    await expect(bookDinner(client, restaurant.id, '2030-05-01', 2)).resolves.toMatchObject({
      status: 'pending',
    });
  });

  it('runs a hundred calls under the real 1 request/second limit without waiting', async () => {
    for (let call = 0; call < 100; call++) await client.restaurants.list().toArray();
    // 100 seconds of the service's time passed on the fake's clock; the suite waited for none of them
    // (the rate limiter of `clientOptions` sleeps on that clock).
    expect(fake.clock.now() - Date.parse('2030-01-07T08:00:00Z')).toBeGreaterThanOrEqual(99_000);
  });
});
