/**
 * `connectFake(url)` and `createSandbox(url)` drive the real `restaurant-partner-fake` bin as a
 * TypeScript suite would from a vitest `globalSetup`: the in-process fake's API, over HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient } from 'restaurant-partner-sdk';
import { DEMO_PARTNER, FakeError, connectFake, createSandbox } from 'restaurant-partner-sdk/testing';

const root = fileURLToPath(new URL('../../', import.meta.url));
let child: ChildProcess;
let url: string;
let receiver: Server;
let receiverUrl: string;

beforeAll(async () => {
  child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/bin/restaurant-partner-fake.ts', '--port', '0', '--seed', 'demo', '--quiet'],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  url = JSON.parse(line).url;
  receiver = createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
  ).listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
}, 30_000);

afterAll(async () => {
  // Waited for, so that neither the fake's process nor the receiver outlives the file.
  const exited = child.exitCode === null ? once(child, 'exit') : undefined;
  child.kill('SIGTERM');
  await Promise.all([exited, new Promise((resolve) => receiver.close(resolve))]);
});

/** A date two days after the fake's current time, at 19:00 local. */
async function evening(fake: { clock: { now(): Promise<Date> } }): Promise<string> {
  const now = await fake.clock.now();
  return `${new Date(now.getTime() + 2 * 86_400_000).toISOString().slice(0, 10)}T19:00:00`;
}

describe('connectFake(url)', () => {
  it("gives the seeded partner's client options, restaurant and customer actions, the clock, faults, dialect, deliveries and the journal", async () => {
    const fake = await connectFake(url);
    expect(fake.url).toBe(url);
    expect(fake.clientOptions()).toEqual({
      baseUrl: url,
      partnerId: DEMO_PARTNER.partnerId,
      apiToken: DEMO_PARTNER.apiToken,
    });
    await fake.setRateLimit(false);
    const client = new PartnerClient({ ...fake.clientOptions(), rateLimit: false, maxRetries: 0 });
    await client.webhooks.create({ url: receiverUrl });

    const booking = await client.reservations.create(2, { start_time: await evening(fake), adults: 2 });
    const confirmed = await fake.asRestaurant.confirm(2, booking.id);
    expect(confirmed.confirmed).toBe(true);
    expect((await fake.waitForDelivery('RESERVATION_CONFIRMED')).reservationId).toBe(booking.id);
    const cancelled = await fake.asCustomer.cancel(2, booking.id);
    expect(cancelled.cancelled).toBe(true);
    expect((await fake.waitForDelivery('RESERVATION_CANCELLED')).status).toBe(200);
    // Each delivery is returned once; none is waiting now.
    await expect(fake.waitForDelivery('RESERVATION_CANCELLED', { timeoutMs: 100 })).rejects.toMatchObject({
      status: 408,
    });

    const before = await fake.clock.now();
    expect((await fake.clock.advance('PT2H')).getTime()).toBeGreaterThanOrEqual(
      before.getTime() + 2 * 3_600_000,
    );

    await fake.injectFault({ operation: 'restaurants.list', status: 503 });
    expect(await fake.faults()).toEqual([
      expect.objectContaining({ operation: 'restaurants.list', status: 503 }),
    ]);
    await expect(client.restaurants.list()).rejects.toMatchObject({ status: 503 });

    expect(await fake.setDialect({ list: 'array' })).toMatchObject({ list: 'array' });
    // A bare array carries no count; the envelope does.
    expect((await client.reservations.list(2)).count).toBeUndefined();

    const journal = await fake.requests();
    expect(journal.map((entry) => entry.operation)).toEqual(
      expect.arrayContaining(['reservations.create', 'restaurants.list']),
    );
    expect(JSON.stringify(journal)).not.toContain(DEMO_PARTNER.apiToken);

    await fake.reset();
    expect(await fake.faults()).toEqual([]);
    expect((await fake.setDialect({})).list).toBe('envelope');
  });

  it('refusals are the same FakeError the in-process fake throws, with the fields named', async () => {
    const fake = await connectFake(url);
    const refused = await fake.setDialect({ list: 'tree' as never }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(FakeError);
    expect(refused).toMatchObject({
      status: 400,
      fields: { dialect: [expect.stringContaining('envelope')] },
    });
    await expect(fake.asRestaurant.confirm(1, 999_999)).rejects.toMatchObject({ status: 404 });
    await expect(fake.clock.set('2030-02-30T00:00:00Z')).rejects.toMatchObject({ status: 400 });
  });
});

describe('createSandbox(url)', () => {
  it("makes a new world bound to the same API, invisible to the server's own, and delete() ends it", async () => {
    const server = await connectFake(url);
    const [first, second] = await Promise.all([
      createSandbox(url, { rateLimit: false }),
      createSandbox(url, { rateLimit: false, seed: 'none' }),
    ]);
    expect(first.url).toBe(`${url}/sandboxes/${first.id}`);
    expect(second.seed.partners).toEqual([]);
    expect(() => second.clientOptions()).toThrow(/no partner/);
    const partner = await second.addPartner({ name: 'Own partner' });
    const restaurant = await second.addRestaurant({ partnerIds: [partner.partnerId] });
    const secondClient = new PartnerClient({ ...second.clientOptions(partner), rateLimit: false });
    expect((await secondClient.restaurants.list()).items.map((found) => found.id)).toEqual([restaurant.id]);

    const client = new PartnerClient({ ...first.clientOptions(), rateLimit: false });
    const booking = await client.reservations.create(1, { start_time: await evening(first), adults: 2 });
    await first.clock.advance('P1D');
    expect((await first.allReservations(1)).map((reservation) => reservation.id)).toEqual([booking.id]);
    expect(await server.allReservations(1)).toEqual([]);
    expect((await first.requests()).some((entry) => entry.operation === 'reservations.create')).toBe(true);
    expect((await server.clock.now()).getTime()).toBeLessThan((await first.clock.now()).getTime());

    await first.delete();
    await first.delete();
    await expect(first.clock.now()).rejects.toMatchObject({ status: 404 });
    await second.delete();
  });
});
