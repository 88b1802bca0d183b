/**
 * `restaurant-partner tail`, run as a child process against the standalone fake: the journal and
 * the deliveries as lines or NDJSON, filtered, live, secrets redacted; exit 1 when the fake goes.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient } from 'restaurant-partner-sdk';
import { connectFake, DEMO_PARTNER } from 'restaurant-partner-sdk/testing';
import { records, run, start, startFake, stopAll } from './support.js';

let receiver: Server;
let receiverUrl: string;

beforeAll(async () => {
  // A careless receiver that echoes the delivery's Authorization header in its answer.
  receiver = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        received: true,
        authorization: request.headers.authorization,
        echo: `saw ${request.headers.authorization}`,
      }),
    );
  }).listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(() => {
  stopAll();
  receiver.close();
});

describe('restaurant-partner tail', { timeout: 60_000 }, () => {
  it('prints requests and deliveries, filtered, as NDJSON with every token redacted, live, and exits 1 when the fake goes', async () => {
    const server = await startFake(['--rate-limit', 'off']);
    const fake = await connectFake(server.url);
    const client = new PartnerClient({ ...fake.clientOptions(), rateLimit: false, logLevel: 'off' });
    const webhook = await client.webhooks.create({ url: receiverUrl });
    const now = await fake.clock.now();
    const day = new Date(now.getTime() + 3 * 86_400_000).toISOString().slice(0, 10);
    const booking = await client.reservations.create(2, { start_time: `${day}T19:00:00`, adults: 2 });
    await fake.asRestaurant.confirm(2, booking.id);
    // A token in a query string, as a careless script would send it.
    await fetch(`${server.url}/api/v1/partnership/restaurants/?api_token=${DEMO_PARTNER.apiToken}`);

    const env = { PARTNER_BASE_URL: server.url };
    const all = await run(['tail', '--once', '--json', '--lines', '100'], env);
    expect(all.code, all.stderr).toBe(0);
    const entries = records(all.lines);
    expect(entries.filter((entry) => entry.kind === 'request').map((entry) => entry.operation)).toEqual(
      expect.arrayContaining(['webhooks.create', 'reservations.create', 'restaurants.list']),
    );
    const delivery = entries.find((entry) => entry.kind === 'delivery');
    expect(delivery).toMatchObject({
      event: 'RESERVATION_CONFIRMED',
      status: 200,
      reservationId: booking.id,
    });
    expect(all.stdout).not.toContain(webhook.auth_token!);
    expect(all.stdout).not.toContain(DEMO_PARTNER.apiToken);
    expect(all.stdout).toContain('[REDACTED]');

    const deliveriesOnly = await run(['tail', '--once', '--kind', 'delivery', '--status', '2xx'], env);
    expect(deliveriesOnly.lines).toHaveLength(1);
    expect(deliveriesOnly.lines[0]).toMatch(
      /delivery RESERVATION_CONFIRMED reservation \d+ evt_\S+ #1 -> webhook \d+ .*: 200/,
    );
    const creates = await run(['tail', '--once', '--operation', 'reservations.create'], env);
    expect(creates.lines).toEqual([
      expect.stringMatching(
        /request POST \/api\/v1\/partnership\/restaurants\/2\/reservations\/ -> 201 \(reservations.create\)/,
      ),
    ]);
    expect((await run(['tail', '--status', 'teapot'], env)).code).toBe(2);

    const live = start(['tail', '--lines', '1', '--kind', 'delivery', '--interval-ms', '50'], env);
    // Its first line (the latest delivery) says it is reading: what follows comes live.
    await live.line((line) => line.includes('RESERVATION_CONFIRMED'), 30_000);
    await fake.asCustomer.cancel(2, booking.id);
    await live.line((line) => line.includes('RESERVATION_CANCELLED'), 15_000);
    expect(live.lines.join('\n')).not.toContain(webhook.auth_token!);
    server.child.kill('SIGKILL');
    expect(await live.exited).toBe(1);
    expect(live.stderr()).toMatch(/the fake at .* went away/);
  });
});
