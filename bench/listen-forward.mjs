/**
 * listen_forward_p95_ms: `restaurant-partner listen --forward-to` (the built bin, its own process)
 * against the standalone fake (its own process), forwarding to a receiver that answers at once:
 * for 100 deliveries (restaurant confirmations, one after another), the time from a delivery's
 * arrival at listen to the receiver's answer, as listen reports it per delivery; the 95th
 * percentile. Every delivery must be forwarded, else the figure is not recorded.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const DELIVERIES = 100;

export async function benchListen({ root, record }) {
  const bin = join(root, 'dist/bin/restaurant-partner.js');
  const { PartnerClient } = await import(pathToFileURL(join(root, 'dist/index.js')).href);
  const { connectFake } = await import(pathToFileURL(join(root, 'dist/testing/index.js')).href);
  process.stderr.write(`listen forwarding: ${DELIVERIES} deliveries through the built bin\n`);
  const children = [];
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  }).listen(0, '127.0.0.1');
  try {
    await once(receiver, 'listening');
    const fakeProcess = spawn(
      process.execPath,
      [bin, 'fake', '--port', '0', '--quiet', '--rate-limit', 'off'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    children.push(fakeProcess);
    const [line] = await once(createInterface({ input: fakeProcess.stdout }), 'line');
    const { url } = JSON.parse(line);
    const listen = spawn(
      process.execPath,
      [bin, 'listen', '--forward-to', `http://127.0.0.1:${receiver.address().port}/hooks`, '--json'],
      {
        env: { ...process.env, PARTNER_BASE_URL: url, PARTNER_WEBHOOK_TOKEN: 'bench-webhook-token' },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    children.push(listen);
    const forwarded = [];
    let ready;
    const readyLine = new Promise((resolve) => (ready = resolve));
    createInterface({ input: listen.stdout }).on('line', (text) => {
      const parsed = JSON.parse(text);
      if (parsed.ready) ready();
      else forwarded.push(parsed);
    });
    await readyLine;
    const fake = await connectFake(url);
    const client = new PartnerClient({ ...fake.clientOptions(), rateLimit: false, logLevel: 'off' });
    const now = (await fake.clock.now()).getTime();
    for (let index = 0; index < DELIVERIES; index += 1) {
      // Spread over days and services, so the restaurant never fills up.
      const day = new Date(now + (3 + (index % 25)) * 86_400_000).toISOString().slice(0, 10);
      const time = ['12:00', '13:00', '19:00', '20:00'][Math.floor(index / 25)];
      const booking = await client.reservations.create(2, { start_time: `${day}T${time}:00`, adults: 1 });
      await fake.asRestaurant.confirm(2, booking.id);
    }
    const until = performance.now() + 10_000;
    while (forwarded.length < DELIVERIES && performance.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 20));
    if (forwarded.length !== DELIVERIES || forwarded.some((entry) => entry.status !== 200)) {
      process.stderr.write(
        `listen forwarded ${forwarded.length} of ${DELIVERIES} with 200: figure not recorded\n`,
      );
      return;
    }
    const times = forwarded.map((entry) => entry.ms).sort((a, b) => a - b);
    record(
      'listen_forward_p95_ms',
      times[Math.ceil(times.length * 0.95) - 1],
      'ms from a delivery reaching listen to the receiver answering (p95 of 100)',
      '<= 100',
    );
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    receiver.close();
  }
}
