/**
 * The sync across processes and restarts, for real: the standalone fake over HTTP, a real
 * redis-server, and partner processes each running a sync on one Redis store with its own
 * receiver (each registered as a webhook, so every event reaches every running process). One is
 * killed mid-run; a new one starts later on the same store. Every reservation's announcements,
 * gathered over all processes, form one chain with no change announced twice, and the last one
 * equals the fake's truth. And a process killed while it reads a restaurant holds that restaurant
 * only moments: a new process reads it within 5 s of its start. Real time, about 45 s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient, type Reservation } from 'restaurant-partner-sdk';
import { startFakeServer, type RunningFakeServer } from 'restaurant-partner-sdk/testing/node';
import { startRedisServer, type TestRedis } from './support/redis-server.js';

const source = fileURLToPath(new URL('../../src', import.meta.url));
const worker = fileURLToPath(new URL('./support/sync-process.mjs', import.meta.url));
const INTERVAL_MS = 6000;
const ZONE = 'Europe/Brussels';

interface Announced {
  name: string;
  kind: string;
  restaurantId: number;
  id: number;
  source: string;
  reservation: Reservation;
  previous: Reservation | null;
}

let redis: TestRedis;
let server: RunningFakeServer;
const children: ChildProcess[] = [];
beforeAll(async () => {
  [redis, server] = await Promise.all([startRedisServer(), startFakeServer({ rateLimit: 1 })]);
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all([redis?.stop(), server?.close()]);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function startProcess(name: string, env: Record<string, string>, announced: Announced[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', worker], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env, NAME: name, SDK_SOURCE: source },
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-3000)));
  let markUrl!: (url: string) => void;
  let markStarted!: () => void;
  const url = new Promise<string>((resolve) => (markUrl = resolve));
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line);
    if (message.url) markUrl(message.url);
    if (message.started) markStarted();
    if (message.change) announced.push(message.change);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    url,
    started,
    exited,
    stderr: () => stderr,
    send: (value: unknown) => child.stdin.write(`${JSON.stringify(value)}\n`),
  };
}

describe('the sync across processes on one Redis store (real time)', () => {
  it('one process killed mid-run, a new one started later: every change announced once, in a chain, and the view ends equal to the truth', async () => {
    const partner = server.fake.addPartner({ name: 'Two processes' });
    const restaurantIds = [0, 1].map(
      () =>
        server.fake.addRestaurant({
          confirmation_mode: 'CONFIRMATION_MODE_ASYNCHRONOUS',
          partnerIds: [partner.partnerId],
          timezone: ZONE,
        }).id,
    );
    const client = new PartnerClient({
      baseUrl: server.url,
      ...partner,
      logLevel: 'off',
      rateLimit: false,
      maxRetries: 10,
      restaurantTimezones: Object.fromEntries(restaurantIds.map((id) => [id, ZONE])),
    });
    const env = {
      BASE_URL: server.url,
      PARTNER_ID: partner.partnerId,
      API_TOKEN: partner.apiToken,
      REDIS_URL: redis.url,
      KEY_PREFIX: `sync-test:${partner.partnerId}:`,
      RESTAURANT_IDS: restaurantIds.join(','),
      INTERVAL_MS: String(INTERVAL_MS),
      ON_CHANGE_MS: '400',
    };
    const announced: Announced[] = [];
    const tokens: string[] = [];
    const launch = async (name: string) => {
      const running = startProcess(name, env, announced);
      const url = await running.url;
      const webhook = await client.webhooks.create({ url, name });
      tokens.push(webhook.auth_token!);
      for (const each of processes) each.send({ tokens });
      running.send({ tokens });
      await running.started;
      return running;
    };
    const processes: ReturnType<typeof startProcess>[] = [];
    const first = await launch('first');
    processes.push(first);
    const second = await launch('second');
    processes.push(second);

    const day = DateTime.now().setZone(ZONE).plus({ days: 2 }).toISODate()!;
    const booked: Array<{ restaurantId: number; id: number }> = [];
    for (const [index, restaurantId] of [...restaurantIds, ...restaurantIds].entries()) {
      const reservation = await client.reservations.create(restaurantId, {
        start_time: { date: day, time: index < 2 ? '19:00' : '20:00' },
        adults: 2,
      });
      booked.push({ restaurantId, id: reservation.id });
    }
    await server.fake.asRestaurant.confirm(booked[0]!.restaurantId, booked[0]!.id);
    await sleep(INTERVAL_MS);

    // The second process dies without a word; changes go on while only the first runs.
    second.child.kill('SIGKILL');
    await second.exited;
    await server.fake.asCustomer.modify(booked[0]!.restaurantId, booked[0]!.id, { adults: 4 });
    await server.fake.asRestaurant.confirm(booked[1]!.restaurantId, booked[1]!.id);
    await client.reservations.cancel(booked[2]!.restaurantId, booked[2]!.id);

    // Then the first stops too; a change happens while none runs; a new process takes over the store.
    first.send({});
    first.child.kill('SIGTERM');
    await first.exited;
    await server.fake.asCustomer.cancel(booked[3]!.restaurantId, booked[3]!.id);
    const third = await launch('third');
    processes.push(third);
    await sleep(INTERVAL_MS * 1.5);
    third.child.kill('SIGTERM');
    await third.exited;

    const context = JSON.stringify({
      announced: announced.map(({ name, kind, id, source }) => [name, kind, id, source]),
      stderr: processes.map((each) => each.stderr().slice(-500)),
    });
    const truth = new Map(
      restaurantIds.flatMap((restaurantId) =>
        server.fake
          .allReservations(restaurantId)
          .map(({ channel: _channel, partnerId: _partner, ...reservation }) => [reservation.id, reservation]),
      ),
    );
    expect(truth.size).toBe(4);
    for (const [id, reservation] of truth) {
      const chain = announced.filter((change) => change.id === id);
      expect(chain.length, context).toBeGreaterThan(0);
      let last: Reservation | null = null;
      for (const change of chain) {
        // One chain across processes: each announcement starts where the previous one ended, so none is repeated.
        expect(change.previous, context).toEqual(last);
        last = change.reservation;
      }
      expect(last, context).toEqual(reservation);
    }
    // The cancellation made while no process ran was announced by the new one, once.
    expect(
      announced
        .filter((change) => change.id === booked[3]!.id && change.kind === 'cancelled')
        .map((change) => change.name),
    ).toEqual(['third']);
  }, 120_000);
  it('a process killed while it reads a restaurant: a new process reads it within 5 s of its start', async () => {
    const partner = server.fake.addPartner({ name: 'Killed mid-read' });
    const restaurantId = server.fake.addRestaurant({
      confirmation_mode: 'CONFIRMATION_MODE_ASYNCHRONOUS',
      partnerIds: [partner.partnerId],
      timezone: ZONE,
    }).id;
    const client = new PartnerClient({
      baseUrl: server.url,
      ...partner,
      logLevel: 'off',
      rateLimit: false,
      restaurantTimezones: { [restaurantId]: ZONE },
    });
    const booking = await client.reservations.create(restaurantId, {
      start_time: { date: DateTime.now().setZone(ZONE).plus({ days: 2 }).toISODate()!, time: '19:00' },
      adults: 2,
    });
    const env = {
      BASE_URL: server.url,
      PARTNER_ID: partner.partnerId,
      API_TOKEN: partner.apiToken,
      REDIS_URL: redis.url,
      KEY_PREFIX: `sync-test:${partner.partnerId}:`,
      RESTAURANT_IDS: String(restaurantId),
      // A period of 48 s: a lease held for the period would keep the restaurant from the new process that long.
      INTERVAL_MS: '60000',
      ON_CHANGE_MS: '0',
    };
    const announced: Announced[] = [];
    // The first process's read of the list hangs in the service; it is killed meanwhile.
    server.fake.injectFault({ operation: 'reservations.list', latencyMs: 30_000 });
    const first = startProcess('first', env, announced);
    await first.started;
    for (let waited = 0; server.fake.faults.length > 0 && waited < 10_000; waited += 50) await sleep(50);
    expect(server.fake.faults).toHaveLength(0);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = startProcess('second', env, announced);
    await second.started;
    const startedAt = Date.now();
    while (announced.length === 0 && Date.now() - startedAt < 15_000) await sleep(20);
    const tookMs = Date.now() - startedAt;
    second.child.kill('SIGTERM');
    await second.exited;
    expect(
      announced.map((change) => [change.name, change.kind, change.id]),
      second.stderr(),
    ).toEqual([['second', 'created', booking.id]]);
    expect(tookMs).toBeLessThanOrEqual(5000);
  }, 60_000);
});
