/**
 * The webhook receiver as a fetch-style handler: the same `POST` works as a Next.js route
 * handler, in Hono (`app.post(path, (c) => POST(c.req.raw))`), Bun.serve or Deno.serve.
 *
 *   npx tsx examples/receiver-fetch.ts
 */
import { buildDeliveryRequest, createWebhookReceiver } from 'restaurant-partner-sdk/webhooks';

const receiver = createWebhookReceiver({
  // A provider is read on every delivery, so a token rotation needs no restart.
  tokens: () => (process.env.WEBHOOK_TOKENS ?? 'example-webhook-token').split(','),
})
  .on('RESERVATION_CONFIRMED', (event) => console.log(`confirmed: #${event.reservation.id}`))
  .on('RESERVATION_CANCELLED', (event) => console.log(`cancelled: #${event.reservation.id}`));

/** app/webhooks/reservations/route.ts in Next.js */
export const POST = (request: Request): Promise<Response> => receiver.handle(request);

// Try it: the same request the service sends, then a replay of it (answered 200, handled once).
const delivery = () =>
  buildDeliveryRequest(
    'http://localhost/webhooks/reservations',
    {
      id: 'evt_example_1',
      event: 'RESERVATION_CONFIRMED',
      reservation: { id: 7, start_time: '2026-12-05T20:00:00+01:00' },
      restaurantId: 1,
    },
    'example-webhook-token',
  );
const first = await POST(delivery());
console.log(`first delivery -> HTTP ${first.status} ${await first.text()}`);
const replay = await POST(delivery());
console.log(`replayed       -> HTTP ${replay.status} ${await replay.text()}`);
if (first.status !== 200 || replay.status !== 200) process.exit(1);
