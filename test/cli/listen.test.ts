/**
 * `restaurant-partner listen`, run as a child process against the standalone fake: every delivery
 * reaches the partner's receiver (the SDK's own) under delivery chaos, one line each; it exits 1
 * when its source goes away; `--poll` bridges a fake whose deliveries are all dropped.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient } from 'restaurant-partner-sdk';
import { connectFake, createSandbox, type RemoteFake } from 'restaurant-partner-sdk/testing';
import { createWebhookReceiver } from 'restaurant-partner-sdk/webhooks';
import { records, start, startFake, stopAll } from './support.js';

const TOKEN = 'whk_partner_receiver_token_1';
let receiver: Server;
let receiverUrl: string;
/** Every delivery the receiver accepted: event id and event. */
const accepted: { id: string; event: string; reservationId: number }[] = [];
let posts = 0;

beforeAll(async () => {
  const sdkReceiver = createWebhookReceiver({
    tokens: [TOKEN],
    logger: { warn: () => undefined, error: () => undefined },
  });
  for (const event of ['RESERVATION_CONFIRMED', 'RESERVATION_MODIFIED', 'RESERVATION_CANCELLED'] as const)
    sdkReceiver.on(event, (delivery) => {
      accepted.push({ id: delivery.id, event: delivery.event, reservationId: delivery.reservation.id });
    });
  const handler = sdkReceiver.nodeHandler();
  receiver = createServer((request, response) => {
    posts += 1;
    handler(request, response);
  }).listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
});
afterAll(() => {
  stopAll();
  receiver.close();
});

async function book(fake: RemoteFake, client: PartnerClient, restaurantId: number, hour: number) {
  const now = await fake.clock.now();
  const day = new Date(now.getTime() + 3 * 86_400_000).toISOString().slice(0, 10);
  return client.reservations.create(restaurantId, { start_time: `${day}T${hour}:00:00`, adults: 2 });
}

describe('restaurant-partner listen --forward-to', { timeout: 90_000 }, () => {
  it('forwards every delivery under chaos (duplicates, delays, reordering), one line each with the answer, and exits 1 when the fake goes away', async () => {
    const server = await startFake(['--rate-limit', 'off']);
    const fake = await connectFake(server.url);
    const client = new PartnerClient({ ...fake.clientOptions(), rateLimit: false, logLevel: 'off' });
    const listen = start(['listen', '--forward-to', receiverUrl, '--json'], {
      PARTNER_BASE_URL: server.url,
      PARTNER_WEBHOOK_TOKEN: TOKEN,
    });
    const ready = JSON.parse(await listen.line((line) => line.includes('"ready"'), 30_000));
    expect(ready).toMatchObject({ ready: true, forwardTo: receiverUrl, source: server.url });
    await fake.setDeliveryChaos({ duplicateRate: 0.5, reorder: true, maxDelayMs: 20_000, seed: 11 });
    const bookings = [];
    for (let index = 0; index < 8; index += 1) bookings.push(await book(fake, client, 2, 12 + (index % 3)));
    for (const booking of bookings) await fake.asRestaurant.confirm(2, booking.id);
    for (const booking of bookings.slice(0, 4)) await fake.asCustomer.cancel(2, booking.id);
    // Delayed deliveries go out as the fake's clock passes them.
    await fake.clock.advance(30_000);
    await fake.flush();
    const attempts = (await fake.deliveries()).filter((entry) => entry.webhookId === ready.webhookId);
    const sent = attempts.filter((entry) => entry.status !== null);
    expect(sent.length).toBeGreaterThanOrEqual(12);
    expect(sent.some((entry) => entry.duplicate)).toBe(true);
    await listen.line(() => records(listen.lines).filter((record) => record.id).length >= sent.length);
    const forwarded = records(listen.lines).filter((record) => record.id);
    // Every attempt that reached listen was forwarded, answered 200 by the SDK's receiver, and the
    // fake logged that answer.
    expect(forwarded).toHaveLength(sent.length);
    expect(forwarded.every((record) => record.status === 200)).toBe(true);
    expect(sent.every((entry) => entry.status === 200)).toBe(true);
    expect(new Set(forwarded.map((record) => record.id))).toEqual(
      new Set(sent.map((entry) => entry.eventId)),
    );
    // The receiver handled each event once (duplicates answered 200 and dropped by their id).
    const ids = accepted.map((delivery) => delivery.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(sent.map((entry) => entry.eventId)).size).toBe(12);
    expect(ids).toEqual(expect.arrayContaining([...new Set(sent.map((entry) => entry.eventId))]));
    // Forwarding is quick: the time from a delivery's arrival to the receiver's answer.
    const times = forwarded.map((record) => record.ms as number).sort((a, b) => a - b);
    expect(times[Math.floor(times.length / 2)]).toBeLessThan(100);

    server.child.kill('SIGKILL');
    expect(await listen.exited).toBe(1);
    expect(listen.stderr()).toMatch(/stopped: the fake at .* went away/);
    expect(listen.stderr()).not.toContain(TOKEN);
  });

  it('exits 1 when its webhook or its sandbox is deleted at the source, and 2 without a token', async () => {
    const server = await startFake(['--rate-limit', 'off']);
    const fake = await connectFake(server.url);
    const listen = start(['listen', '--forward-to', receiverUrl], {
      PARTNER_BASE_URL: server.url,
      PARTNER_WEBHOOK_TOKEN: TOKEN,
    });
    await listen.line((line) => line.startsWith('Ready: webhook'), 30_000);
    await fake.reset();
    expect(await listen.exited).toBe(1);
    expect(listen.stderr()).toMatch(/webhook \d+ was deleted at the source/);

    // Against a sandbox of the fake: its deliveries are forwarded, and its deletion ends listen.
    const sandbox = await createSandbox(server.url, { rateLimit: false });
    const inSandbox = start(['listen', '--forward-to', receiverUrl, '--json'], {
      PARTNER_BASE_URL: sandbox.url,
      PARTNER_WEBHOOK_TOKEN: TOKEN,
    });
    await inSandbox.line((line) => line.includes('"ready"'), 30_000);
    const sandboxClient = new PartnerClient({
      ...sandbox.clientOptions(),
      rateLimit: false,
      logLevel: 'off',
    });
    const booking = await book(sandbox, sandboxClient, 2, 13);
    await sandbox.asRestaurant.confirm(2, booking.id);
    const forwarded = JSON.parse(
      await inSandbox.line((line) => line.includes(`"reservationId":${booking.id}`)),
    );
    expect(forwarded).toMatchObject({ event: 'RESERVATION_CONFIRMED', status: 200 });
    await sandbox.delete();
    expect(await inSandbox.exited).toBe(1);
    expect(inSandbox.stderr()).toMatch(/is gone \(404/);

    const noToken = start(['listen', '--forward-to', receiverUrl], { PARTNER_BASE_URL: server.url });
    expect(await noToken.exited).toBe(2);
    expect(noToken.stderr()).toMatch(/PARTNER_WEBHOOK_TOKEN/);
  });
});

describe('restaurant-partner listen --poll', { timeout: 90_000 }, () => {
  it('bridges changes to the receiver when every delivery of the service is dropped', async () => {
    const server = await startFake(['--rate-limit', 'off']);
    const fake = await connectFake(server.url);
    const client = new PartnerClient({ ...fake.clientOptions(), rateLimit: false, logLevel: 'off' });
    await client.webhooks.create({ url: receiverUrl });
    await fake.setDeliveryChaos({ dropRate: 1 });
    const existing = await book(fake, client, 2, 12);
    const listen = start(
      ['listen', '--poll', '--interval-ms', '1000', '--forward-to', receiverUrl, '--json'],
      {
        PARTNER_BASE_URL: server.url,
        PARTNER_WEBHOOK_TOKEN: TOKEN,
      },
    );
    const ready = JSON.parse(await listen.line((line) => line.includes('"ready"'), 30_000));
    expect(ready.alreadyThere).toBeGreaterThanOrEqual(1);
    const postsBefore = posts;
    const booking = await book(fake, client, 2, 19);
    await fake.asRestaurant.confirm(2, booking.id);
    await fake.asCustomer.cancel(2, existing.id);
    const confirmed = await listen.line(
      (line) => line.includes('RESERVATION_CONFIRMED') && line.includes(`"reservationId":${booking.id}`),
      30_000,
    );
    const cancelled = await listen.line(
      (line) => line.includes('RESERVATION_CANCELLED') && line.includes(`"reservationId":${existing.id}`),
      30_000,
    );
    expect(JSON.parse(confirmed)).toMatchObject({
      status: 200,
      kind: expect.stringMatching(/created|confirmed/),
    });
    expect(JSON.parse(cancelled)).toMatchObject({ status: 200, kind: 'cancelled', source: 'reconcile' });
    expect(accepted).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ event: 'RESERVATION_CONFIRMED', reservationId: booking.id }),
        expect.objectContaining({ event: 'RESERVATION_CANCELLED', reservationId: existing.id }),
      ]),
    );
    expect(posts - postsBefore).toBeGreaterThanOrEqual(2);
    // The service itself delivered nothing: every attempt was dropped.
    expect((await fake.deliveries()).every((entry) => entry.status === null)).toBe(true);
    listen.child.kill('SIGTERM');
    expect(await listen.exited).toBe(0);
  });
});
