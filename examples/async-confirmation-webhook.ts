/**
 * Asynchronous confirmation, learned from a webhook instead of by polling.
 *
 * A receiver listens on a real HTTP port; the partner registers it as a webhook; the fake service
 * (playing the live service and the restaurant) delivers RESERVATION_CONFIRMED to it over HTTP.
 *
 *   npx tsx examples/async-confirmation-webhook.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';
import { PartnerClient } from 'restaurant-partner-sdk';
import { createFakeService } from 'restaurant-partner-sdk/testing';
import { createWebhookReceiver, type WebhookEventOf } from 'restaurant-partner-sdk/webhooks';

const fake = createFakeService({ seed: 'demo' });
const client = new PartnerClient(fake.clientOptions(fake.describeSeed().partners[0]!));

// 1. The partner's receiver. Its token list is filled once the webhook exists (the service issues it).
const tokens: string[] = [];
let resolveConfirmed!: (event: WebhookEventOf<'RESERVATION_CONFIRMED'>) => void;
const confirmed = new Promise<WebhookEventOf<'RESERVATION_CONFIRMED'>>(
  (resolve) => (resolveConfirmed = resolve),
);
const receiver = createWebhookReceiver({ tokens: () => tokens }).on('RESERVATION_CONFIRMED', (event) =>
  resolveConfirmed(event),
);
const server = createServer(receiver.nodeHandler());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/reservations`;
console.log(`Receiver listening on ${url}`);

try {
  // 2. Register it. The token is shown once, on create: keep it in your secret store.
  const webhook = await client.webhooks.create({
    url,
    name: 'reservations',
    subscribed_events: { RESERVATION_CONFIRMED: true },
  });
  tokens.push(webhook.auth_token!);
  console.log(
    `Webhook #${webhook.id} registered for ${Object.entries(webhook.subscribed_events ?? {})
      .filter(([, on]) => on)
      .map(([name]) => name)
      .join(', ')}`,
  );

  // 3. Book at a restaurant that confirms asynchronously.
  const restaurant = (await client.restaurants.list().toArray()).find(
    (r) => r.display_name === 'Bistro des Vosges',
  )!;
  const date = DateTime.now().setZone(restaurant.timezone!).plus({ days: 2 }).toISODate()!;
  const booking = await client.reservations.create(restaurant.id, {
    start_time: { date, time: '20:00' },
    adults: 4,
  });
  console.log(
    `Booked #${booking.id} at ${restaurant.display_name} for ${date} 20:00: ${booking.confirmed ? 'confirmed' : 'awaiting the restaurant'}`,
  );

  // 4. The restaurant confirms; the service (here the fake) POSTs the event to the receiver.
  await fake.asRestaurant.confirm(restaurant.id, booking.id);
  const event = await confirmed;
  console.log(
    `Webhook ${event.type} arrived: reservation #${event.reservation.id} ${event.reservation.confirmed ? 'confirmed' : 'not confirmed'} (at ${event.reservation.confirmed_at})`,
  );

  const after = await client.webhooks.retrieve(webhook.id);
  console.log(`The service recorded the receiver's answer: HTTP ${after.last_response_status_code}`);
} finally {
  server.close();
  fake.dispose();
}
