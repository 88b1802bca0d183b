/**
 * Takes the README's screenshots of the simulator page (`docs/simulator-1280.png`,
 * `docs/simulator-390.png`) with the same headless Chromium as the tests: a standalone fake with
 * the demo seed, a real webhook receiver, and a few bookings in every state.
 * Run with `npm run screenshots`.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PartnerClient } from '../src/index.js';
import { DEMO_PARTNER } from '../src/testing/index.js';
import { startFakeServer } from '../src/testing/node.js';
import { createWebhookReceiver } from '../src/webhooks/index.js';
import { launchChromium } from '../test/ui/browser.js';

const tokens: string[] = [];
const receiver = createWebhookReceiver({ tokens: () => tokens }).on('RESERVATION_CONFIRMED', () => undefined);
const receiverServer = createServer(receiver.nodeHandler()).listen(0, '127.0.0.1');
await once(receiverServer, 'listening');
const webhookUrl = `http://127.0.0.1:${(receiverServer.address() as AddressInfo).port}/webhooks/reservations`;

const server = await startFakeServer({
  seed: 'demo',
  port: 0,
  rateLimit: false,
  clock: { startAt: '2026-11-23T09:00:00Z' },
});
const browser = await launchChromium();
try {
  const client = new PartnerClient({
    baseUrl: server.url,
    partnerId: DEMO_PARTNER.partnerId,
    apiToken: DEMO_PARTNER.apiToken,
    rateLimit: false,
  });
  const control = (route: string, body: unknown) =>
    fetch(`${server.url}/_fake/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const webhook = await client.webhooks.create({ url: webhookUrl, name: 'my booking app' });
  tokens.push(webhook.auth_token!);
  const waiting = await client.reservations.create(2, {
    start_time: { date: '2026-11-25', time: '19:00' },
    adults: 2,
    first_name: 'Ada',
    last_name: 'Lovelace',
  });
  const confirmed = await client.reservations.create(2, {
    start_time: { date: '2026-11-25', time: '20:30' },
    adults: 4,
    children: 1,
    first_name: 'Alan',
    last_name: 'Turing',
  });
  await control(`restaurants/2/reservations/${confirmed.id}/confirm`, {});
  await client.reservations.create(1, {
    start_time: { date: '2026-11-24', time: '12:30' },
    adults: 3,
    first_name: 'Grace',
    last_name: 'Hopper',
  });
  const cancelled = await client.reservations.create(1, {
    start_time: { date: '2026-11-24', time: '19:00' },
    adults: 2,
    first_name: 'Edsger',
    last_name: 'Dijkstra',
  });
  await control(`restaurants/1/reservations/${cancelled.id}/cancel`, { by: 'customer' });
  await control('restaurants/1/reservations', {
    channel: 'phone',
    start_time: '2026-11-24T20:00:00',
    adults: 6,
    first_name: 'Walk-in',
    last_name: 'party',
  });
  await control('faults', { operation: 'reservations.create', status: 503, times: 2 });
  void waiting;

  for (const width of [1280, 390]) {
    const page = await browser.newPage({
      viewport: { width, height: width === 1280 ? 900 : 844 },
      deviceScaleFactor: 1,
    });
    await page.goto(`${server.url}/_fake/ui`);
    await page.locator('body[data-ready]').waitFor();
    await page
      .getByRole('list', { name: 'Delivery attempts, newest first' })
      .getByRole('listitem')
      .first()
      .waitFor();
    const path = `docs/simulator-${width}.png`;
    await page.screenshot({ path, fullPage: true });
    console.log(`wrote ${path}`);
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
  receiverServer.closeAllConnections();
  receiverServer.close();
}
