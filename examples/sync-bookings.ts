/**
 * Keep your own copy of your bookings true: the reservation sync.
 *
 * A receiver on a real HTTP port feeds webhook events to the sync; the sync also follows the
 * bookings this process makes and reads the restaurant's list on a schedule, within a quarter of
 * the rate. Each change reaches `onChange` once, in order. Here the webhook is paused before the
 * customer cancels, so that event is never delivered: the sync's read finds the cancellation anyway.
 *
 *   npx tsx examples/sync-bookings.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';
import { PartnerClient } from 'restaurant-partner-sdk';
import {
  createMemorySyncStore,
  createReservationSync,
  type ReservationChange,
} from 'restaurant-partner-sdk/sync';
import { createFakeService } from 'restaurant-partner-sdk/testing';
import { createWebhookReceiver } from 'restaurant-partner-sdk/webhooks';

const fake = createFakeService({ seed: 'demo' });
const client = new PartnerClient(fake.clientOptions(fake.describeSeed().partners[0]!));
const restaurant = (await client.restaurants.list().toArray()).find(
  (r) => r.display_name === 'Bistro des Vosges',
)!;

// Your database: here a map, and a log of what changed.
const bookings = new Map<number, ReservationChange['reservation']>();
const onChange = (change: ReservationChange) => {
  bookings.set(change.reservation.id, change.reservation);
  console.log(
    `${change.kind.padEnd(9)} #${change.reservation.id} (from ${change.source}): ${change.reservation.adults} guests, ${change.reservation.cancelled ? 'cancelled' : change.reservation.confirmed ? 'confirmed' : 'awaiting the restaurant'}`,
  );
};

const tokens: string[] = [];
const receiver = createWebhookReceiver({ tokens: () => tokens });
const sync = createReservationSync({
  client,
  onChange,
  store: createMemorySyncStore(), // createRedisSyncStore({ redis }) to share it between processes
  restaurantIds: [restaurant.id], // default: every restaurant you see
  reconcile: { intervalMs: 15 * 60_000, budgetShare: 0.25 },
});
sync.attach(receiver);

const server = createServer(receiver.nodeHandler());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/reservations`;

try {
  const webhook = await client.webhooks.create({ url, name: 'reservations' });
  tokens.push(webhook.auth_token!);
  await sync.start();

  // A booking made through the client is followed by itself.
  const date = DateTime.now().setZone(restaurant.timezone!).plus({ days: 2 }).toISODate()!;
  const booking = await client.reservations.create(restaurant.id, {
    start_time: { date, time: '20:00' },
    adults: 2,
  });

  // The restaurant confirms and the customer changes the party: both arrive as webhooks.
  await fake.asRestaurant.confirm(restaurant.id, booking.id);
  await fake.asCustomer.modify(restaurant.id, booking.id, { adults: 3 });

  // The webhook is paused, so the customer's cancellation is never delivered...
  await client.webhooks.update(webhook.id, { is_enabled: false });
  await fake.asCustomer.cancel(restaurant.id, booking.id);

  // ...and the next read finds it (settled() reads now instead of waiting for the schedule).
  await sync.settled();
  const known = await sync.get(restaurant.id, booking.id);
  console.log(
    `Your copy of #${booking.id}: ${known?.cancelled ? 'cancelled' : 'NOT cancelled'}, ${known?.adults} guests`,
  );
  if (!known?.cancelled || bookings.get(booking.id)?.cancelled !== true)
    throw new Error('the sync missed the cancellation');
} finally {
  await sync.stop();
  server.close();
  fake.dispose();
}
