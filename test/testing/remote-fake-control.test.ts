/**
 * The typed client of the standalone fake covers its control plane as the routes do: state,
 * snapshots, delivery chaos, resend, the journal, the clock, faults, rate limit and dialect, and
 * the restaurant's arrival and no-show marks.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { LiveState } from '../../src/testing/control/live-state.js';
import { PartnerClient } from 'restaurant-partner-sdk';
import { connectFake, type RemoteFake } from 'restaurant-partner-sdk/testing';
import { type RemoteState } from '../../src/testing/remote-fake.js';
import { startFakeServer } from 'restaurant-partner-sdk/testing/node';

let server: Awaited<ReturnType<typeof startFakeServer>>;
let receiver: Server;
let receiverUrl: string;
const received: { authorization: string | undefined; body: string }[] = [];
let fake: RemoteFake;
let client: PartnerClient;

beforeAll(async () => {
  server = await startFakeServer({ port: 0, seed: 'demo', rateLimit: false });
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ authorization: request.headers.authorization, body });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  }).listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  fake = await connectFake(server.url);
  client = new PartnerClient({ ...fake.clientOptions(), rateLimit: false, maxRetries: 0, logLevel: 'off' });
});
afterAll(async () => {
  receiver.close();
  await server.close();
});

async function evening(): Promise<string> {
  const now = await fake.clock.now();
  return `${new Date(now.getTime() + 2 * 86_400_000).toISOString().slice(0, 10)}T19:00:00`;
}

describe('the typed client of the standalone fake: its control plane', () => {
  it('state answers the world; a named snapshot puts it back', async () => {
    // The type partners see holds what the route answers.
    expectTypeOf<LiveState>().toExtend<RemoteState>();
    const booking = await client.reservations.create(1, { start_time: await evening(), adults: 2 });
    const state = await fake.state({ reservations: 10 });
    expect(state.reservations.map((reservation) => reservation.id)).toContain(booking.id);
    expect(state.partners[0]!.apiToken).toBe(fake.seed.partners[0]!.apiToken);
    await fake.snapshot('one-booking');
    await client.reservations.create(1, { start_time: await evening(), adults: 3 });
    expect(await fake.allReservations(1)).toHaveLength(2);
    await fake.restore('one-booking');
    expect((await fake.allReservations(1)).map((reservation) => reservation.id)).toEqual([booking.id]);
    await expect(fake.restore('never-taken')).rejects.toMatchObject({ status: 404 });
  });

  it('delivery chaos is set, read and turned off; a dropped delivery is resent by its event id', async () => {
    await fake.reset();
    const webhook = await client.webhooks.create({ url: receiverUrl });
    expect(await fake.setDeliveryChaos({ dropRate: 1, seed: 3 })).toMatchObject({ dropRate: 1, seed: 3 });
    expect(await fake.deliveryChaos()).toMatchObject({ dropRate: 1 });
    const booking = await client.reservations.create(2, { start_time: await evening(), adults: 2 });
    received.length = 0;
    await fake.asRestaurant.confirm(2, booking.id);
    expect(received).toHaveLength(0);
    const [dropped] = (await fake.deliveries()).filter((entry) => entry.event === 'RESERVATION_CONFIRMED');
    expect(dropped).toBeDefined();
    expect(await fake.setDeliveryChaos(null)).toBeNull();
    expect(await fake.deliveryChaos()).toBeNull();

    const resent = await fake.resend(dropped!.eventId);
    expect(resent).toMatchObject({ eventId: dropped!.eventId, status: 200, attempt: dropped!.attempt + 1 });
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]!.body)).toMatchObject({
      id: dropped!.eventId,
      event: 'RESERVATION_CONFIRMED',
      reservation: { id: booking.id },
    });
    expect(received[0]!.authorization).toBe(`Bearer ${webhook.auth_token}`);
    await expect(fake.resend('evt_unknown')).rejects.toMatchObject({ status: 404 });
  });

  it('the restaurant marks arrival and no-show; the journal, clock, faults, rate limit and dialect answer', async () => {
    await fake.reset();
    const first = await client.reservations.create(2, { start_time: await evening(), adults: 2 });
    const second = await client.reservations.create(2, { start_time: await evening(), adults: 4 });
    await expect(fake.asRestaurant.arrive(2, first.id)).rejects.toMatchObject({ status: 409 });
    await fake.asRestaurant.confirm(2, first.id);
    expect((await fake.asRestaurant.arrive(2, first.id)).arrived).toBe(true);
    expect((await fake.asRestaurant.noShow(2, second.id)).no_show).toBe(true);
    expect((await client.reservations.retrieve(2, second.id)).no_show).toBe(true);

    const fault = await fetch(`${fake.controlUrl}/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operation: 'profile.retrieve', status: 500 }),
    }).then((response) => response.json() as Promise<{ id: number }>);
    expect(await fake.faults()).toHaveLength(1);
    await fake.removeFault(fault.id);
    expect(await fake.faults()).toEqual([]);

    // The server started without a rate limit (and reset puts that back).
    expect(await fake.rateLimit()).toBe(false);
    await fake.setRateLimit(2.5);
    expect(await fake.rateLimit()).toBe(2.5);
    await fake.setRateLimit(false);
    expect((await fake.dialect()).list).toBe('envelope');
    expect((await fake.requests()).some((entry) => entry.operation === 'reservations.create')).toBe(true);
    const now = await fake.clock.now();
    expect((await fake.clock.advance(60_000)).getTime()).toBeGreaterThanOrEqual(now.getTime() + 60_000);
  });
});
