/**
 * Run with `node --expose-gc --import tsx`: one delivery to a real target that accepts the
 * connection and never answers, with garbage collections while it waits, through the adapter
 * named on the command line (`standalone` or `msw`). Prints one JSON line: how long the call that
 * caused the delivery took, whether the target saw its socket closed, and the logged error.
 */
import { createServer, type Socket } from 'node:net';
import { setupServer } from 'msw/node';
import { createFakeService } from '../../../src/testing/index.js';
import { startFakeServer } from '../../../src/testing/node.js';
import { basicAuthorization } from '../../support/basic-auth.js';

const adapter = process.argv[2] as 'standalone' | 'msw';
const timeoutMs = Number(process.argv[3] ?? 1500);
const collect = (globalThis as { gc?: () => void }).gc;
if (!collect) throw new Error('run with --expose-gc');

const sockets: Socket[] = [];
// Sockets that carried a delivery, and how many of those closed. (undici may open a spare
// connection as a request is aborted, idle until its keep-alive ends: not one that carried a delivery.)
let carried = 0;
let closed = 0;
let closedAt: number | undefined;
const target = createServer((socket) => {
  sockets.push(socket);
  let used = false;
  socket.once('data', () => {
    used = true;
    carried += 1;
  });
  socket.on('close', () => {
    if (!used) return;
    closed += 1;
    closedAt = performance.now();
  });
  socket.on('error', () => undefined);
});
await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
const hook = `http://127.0.0.1:${(target.address() as { port: number }).port}/hooks`;

const fake = createFakeService({ rateLimit: false, deliveries: { timeoutMs } });
const partner = fake.addPartner();
const restaurant = fake.addRestaurant({ partnerIds: [partner.partnerId] });
const authorization = basicAuthorization(partner.partnerId, partner.apiToken);
const headers = { authorization, 'content-type': 'application/json' };
let baseUrl = 'https://partner.example';
let stop = async () => fake.dispose();
if (adapter === 'standalone') {
  const server = await startFakeServer({ fake });
  baseUrl = server.url;
  stop = () => server.close();
} else {
  const msw = setupServer(...fake.handlers);
  msw.listen();
  stop = async () => (msw.close(), fake.dispose());
}
const api = `${baseUrl}/api/v1/partnership`;
await fetch(`${api}/webhooks/`, { method: 'POST', headers, body: JSON.stringify({ url: hook }) });
const day = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
const booking = await (
  await fetch(`${api}/restaurants/${restaurant.id}/reservations/`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ start_time: `${day}T19:00:00`, adults: 2 }),
  })
).json();

// Collect garbage again and again while the attempt waits: a timeout held weakly would be lost.
const collector = setInterval(() => collect(), 50);
const started = performance.now();
const cancelled = await fetch(
  `${api}/restaurants/${restaurant.id}/reservations/${booking.id}/?action=cancel`,
  { method: 'PATCH', headers },
);
const tookMs = performance.now() - started;
// The socket closes when the attempt ends; give the close a moment to arrive.
for (let waited = 0; closed < carried && waited < 2000; waited += 50)
  await new Promise((resolve) => setTimeout(resolve, 50));
clearInterval(collector);
const entry = fake.deliveries.at(-1);
console.log(
  JSON.stringify({
    status: cancelled.status,
    tookMs,
    targetConnections: carried,
    socketsClosed: closed,
    lastClosedAfterMs: closedAt === undefined ? null : closedAt - started,
    error: entry?.error ?? null,
  }),
);
await stop();
target.close();
for (const socket of sockets) socket.destroy();
