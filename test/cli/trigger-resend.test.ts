/**
 * `restaurant-partner trigger` and `resend`, run as child processes against the standalone fake:
 * each scenario leaves the fake in the state it names and prints the reservation after and the
 * deliveries made; a step the fake refuses exits 1; resend sends a dropped delivery after all.
 */
import { once } from 'node:events';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient } from 'restaurant-partner-sdk';
import { connectFake, type RemoteFake } from 'restaurant-partner-sdk/testing';
import { records, run, startFake, stopAll } from './support.js';

let fakeUrl: string;
let fake: RemoteFake;
let client: PartnerClient;
let receiver: Server;
const received: { event: string; id: string }[] = [];

beforeAll(async () => {
  ({ url: fakeUrl } = await startFake(['--rate-limit', 'off']));
  fake = await connectFake(fakeUrl);
  client = new PartnerClient({ ...fake.clientOptions(), rateLimit: false, logLevel: 'off' });
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const parsed = JSON.parse(body);
      received.push({ event: parsed.event, id: parsed.id });
      response.writeHead(200).end('{}');
    });
  }).listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  await client.webhooks.create({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks` });
}, 40_000);
afterAll(() => {
  stopAll();
  receiver.close();
});

const env = () => ({ PARTNER_BASE_URL: fakeUrl });

async function book(restaurantId: number, adults = 2) {
  const now = await fake.clock.now();
  const day = new Date(now.getTime() + 3 * 86_400_000).toISOString().slice(0, 10);
  return client.reservations.create(restaurantId, { start_time: `${day}T19:30:00`, adults });
}

describe('restaurant-partner trigger', { timeout: 60_000 }, () => {
  it("restaurant.confirm on the latest booking: the fake's state, the reservation after, the delivery made", async () => {
    const booking = await book(2);
    const result = await run(['trigger', 'restaurant.confirm', '--json'], env());
    expect(result.code, result.stderr).toBe(0);
    const [step] = records(result.lines);
    expect(step).toMatchObject({
      scenario: 'restaurant.confirm',
      restaurantId: 2,
      reservation: { id: booking.id, confirmed: true },
    });
    expect(step!.deliveries).toEqual([
      expect.objectContaining({ event: 'RESERVATION_CONFIRMED', reservationId: booking.id, status: 200 }),
    ]);
    expect((await client.reservations.retrieve(2, booking.id)).confirmed).toBe(true);
    expect(received.map((delivery) => delivery.id)).toContain(step!.deliveries[0].eventId);
  });

  it('modify, guest and cancel scenarios, named by id, each as the fake then shows it', async () => {
    const booking = await book(2);
    const id = String(booking.id);
    const modify = await run(
      ['trigger', 'customer.modify', '--restaurant', '2', '--reservation', id, '--set', 'adults=5'],
      env(),
    );
    expect(modify.code, modify.stderr).toBe(0);
    expect(modify.stdout).toMatch(
      new RegExp(`customer.modify: reservation ${id} at restaurant 2 -> created \\(.*5 adults`),
    );
    expect(modify.stdout).toMatch(/delivery RESERVATION_MODIFIED .* -> webhook \d+ .*: 200/);
    expect((await client.reservations.retrieve(2, booking.id)).adults).toBe(5);

    const other = await book(1);
    const noShow = await run(
      ['trigger', 'guest.no-show', '--reservation', String(other.id), '--json'],
      env(),
    );
    expect(records(noShow.lines)[0]).toMatchObject({ reservation: { no_show: true }, deliveries: [] });
    expect((await client.reservations.retrieve(1, other.id)).no_show).toBe(true);

    const arrive = await run(['trigger', 'guest.arrive', '--reservation', id], env());
    // Not confirmed yet: the fake refuses, and the command says so with exit 1.
    expect(arrive.code).toBe(1);
    expect(arrive.stdout).toMatch(/guest.arrive: refused by the fake: .*/);

    const steps = join(mkdtempSync(join(tmpdir(), 'trigger-')), 'steps.txt');
    writeFileSync(
      steps,
      `# confirm, the guest comes, the clock moves\nrestaurant.confirm --restaurant 2 --reservation ${id}\nguest.arrive --reservation ${id}\ntime.advance --set duration=PT1H\n`,
    );
    const before = await fake.clock.now();
    const file = await run(['trigger', '--file', steps, '--json'], env());
    expect(file.code, file.stderr).toBe(0);
    const [confirmed, arrived, advanced] = records(file.lines);
    expect(confirmed).toMatchObject({
      reservation: { confirmed: true },
      deliveries: [expect.objectContaining({ event: 'RESERVATION_CONFIRMED' })],
    });
    expect(arrived).toMatchObject({ reservation: { arrived: true } });
    expect(Date.parse(advanced!.now)).toBeGreaterThanOrEqual(before.getTime() + 3_600_000);
    expect((await client.reservations.retrieve(2, booking.id)).arrived).toBe(true);

    const third = await book(1);
    const cancel = await run(
      ['trigger', 'restaurant.cancel', '--reservation', String(third.id), '--json'],
      env(),
    );
    expect(records(cancel.lines)[0]).toMatchObject({
      reservation: { cancelled: true },
      deliveries: [expect.objectContaining({ event: 'RESERVATION_CANCELLED', status: 200 })],
    });
    const cancelled = (await fake.allReservations(1)).find((reservation) => reservation.id === third.id);
    expect(cancelled?.cancelled).toBe(true);
  });

  it('usage mistakes exit 2 naming the problem; an unreachable fake exits 1', async () => {
    const unknown = await run(['trigger', 'restaurant.explode'], env());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown scenario "restaurant.explode"/);
    expect((await run(['trigger', 'time.advance'], env())).code).toBe(2);
    const help = await run(['trigger', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Example/);
    const away = await run([
      'trigger',
      'time.advance',
      '--set',
      'duration=PT1H',
      '--url',
      'http://127.0.0.1:9',
    ]);
    expect(away.code).toBe(1);
    expect(away.stderr).toMatch(/cannot reach the fake at http:\/\/127.0.0.1:9/);
  });
});

describe('restaurant-partner resend', { timeout: 60_000 }, () => {
  it('sends a delivery chaos dropped, by its id, and prints the receiver answer', async () => {
    const booking = await book(2);
    await fake.setDeliveryChaos({ dropRate: 1 });
    await fake.asRestaurant.confirm(2, booking.id);
    await fake.setDeliveryChaos(null);
    const dropped = (await fake.deliveries()).find(
      (entry) => entry.reservationId === booking.id && entry.event === 'RESERVATION_CONFIRMED',
    )!;
    expect(dropped.status).toBeNull();
    expect(received.some((delivery) => delivery.id === dropped.eventId)).toBe(false);
    const result = await run(['resend', dropped.eventId], env());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(
        `resent delivery RESERVATION_CONFIRMED reservation ${booking.id} ${dropped.eventId} #2 .*: 200`,
      ),
    );
    expect(received.filter((delivery) => delivery.id === dropped.eventId)).toHaveLength(1);
    const missing = await run(['resend', 'evt_nothing', '--json'], env());
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No delivery "evt_nothing"/);
  });
});
