/**
 * The webhook receiver in an Express app. Mount it BEFORE `express.json()`: it needs the raw body.
 *
 *   npx tsx examples/receiver-express.ts
 *
 * To prove it end to end without the live service, the script then posts one delivery to itself,
 * built exactly as the service's deliveries are (`buildDeliveryRequest`), and one with a bad token.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { buildDeliveryRequest, createWebhookReceiver } from 'restaurant-partner-sdk/webhooks';

const WEBHOOK_TOKEN = process.env.WEBHOOK_TOKEN ?? 'example-webhook-token';

const receiver = createWebhookReceiver({ tokens: [WEBHOOK_TOKEN] })
  .on('RESERVATION_CONFIRMED', (event) => console.log(`confirmed: #${event.reservation.id}`))
  .on('RESERVATION_MODIFIED', (event) =>
    console.log(`modified:  #${event.reservation.id} now ${event.reservation.start_time}`),
  )
  .on('RESERVATION_CANCELLED', (event) => console.log(`cancelled: #${event.reservation.id}`))
  .onUnknown((event) => console.log(`an event type this SDK does not know yet: ${event.event}`));

const app = express();
app.post('/webhooks/reservations', receiver.nodeHandler());
app.use(express.json()); // the rest of your API, after the receiver

const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/reservations`;
console.log(`Express receiver on ${url}`);

const reservation = { id: 42, start_time: '2026-12-05T19:30:00+01:00', adults: 2, confirmed: true };
const good = await fetch(
  buildDeliveryRequest(url, { event: 'RESERVATION_CONFIRMED', reservation, restaurantId: 1 }, WEBHOOK_TOKEN),
);
console.log(`delivery with the right token -> HTTP ${good.status} ${await good.text()}`);
const bad = await fetch(
  buildDeliveryRequest(
    url,
    { event: 'RESERVATION_CANCELLED', reservation, restaurantId: 1 },
    'a-wrong-token',
  ),
);
console.log(`delivery with a wrong token   -> HTTP ${bad.status}`);

server.close();
if (good.status !== 200 || bad.status !== 401) process.exit(1);
