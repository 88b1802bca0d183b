/**
 * The chaos proof of the sync into Postgres, seeded: the standalone fake over HTTP with delivery
 * chaos on (deliveries dropped, repeated, delayed, reordered), random partner, restaurant and
 * customer actions, and a syncing child process (test/postgres/support/sync-worker.mjs) SIGKILLed
 * at its commit points (before the transaction, before or after the partner's write inside it,
 * after COMMIT) and started again, eight times (each point twice). At the end the mirror equals
 * the fake, each change is in `reservation_changes` exactly once and in order per reservation,
 * and the partner's own rows, written in the sync's transaction, hold each change exactly once.
 *
 * The actions and the kill points come from the seed (CHAOS_SEED replays a run; CHAOS_VERBOSE=1
 * prints where each run died); where a kill lands in the stream of changes also depends on
 * timing, which the end state must not.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DateTime } from 'luxon';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PartnerClient, type Reservation } from 'restaurant-partner-sdk';
import { createPostgres } from 'restaurant-partner-sdk/postgres';
import { startFakeServer, type RunningFakeServer } from 'restaurant-partner-sdk/testing/node';
import { usePostgresServer } from './support/postgres-server.js';
import { changeRows, expectMirrorEquals } from './support/mirror-tables.js';
import { seededRandom as random } from '../support/seeded-random.js';
import { freePort } from '../../scripts/redis-server.mjs';

const SEED = Number(process.env.CHAOS_SEED ?? 20261128);
const KILLS = 8;
const ZONE = 'Europe/Brussels';
const SCHEMA = 'chaos';
const source = fileURLToPath(new URL('../../src', import.meta.url));
const worker = fileURLToPath(new URL('./support/sync-worker.mjs', import.meta.url));

const postgres = usePostgresServer();
let fakeServer: RunningFakeServer;
let pool: pg.Pool;
const children = new Set<ChildProcess>();
beforeAll(async () => {
  fakeServer = await startFakeServer({ rateLimit: false });
  pool = postgres.admin;
  await createPostgres({ sql: pool, schema: SCHEMA }).migrate();
  await pool.query(
    `create table ${SCHEMA}.applied (id bigint generated always as identity, reservation_id bigint, revision integer, kind text)`,
  );
}, 60_000);
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await fakeServer?.close();
});

interface Worker {
  child: ChildProcess;
  ready: Promise<void>;
  exited: Promise<void>;
  /** Where it killed itself, once it did. */
  killedAt: () => string | undefined;
  settle(): Promise<void>;
}

function startWorker(env: Record<string, string>): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', worker], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env, SDK_SOURCE: source },
  });
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-3000)));
  let killedAt: string | undefined;
  let markReady!: () => void;
  let markSettled!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  let settled = new Promise<void>((resolve) => (markSettled = resolve));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line);
    if (message.ready) markReady();
    if (message.killing) killedAt = message.killing;
    if (message.settled) markSettled();
  });
  const exited = once(child, 'exit').then(() => void children.delete(child));
  return {
    child,
    // A worker that dies before it is ready (killed at its first commit point) is ready enough.
    ready: Promise.race([ready, exited]).then(() => {
      if (child.exitCode !== null && child.exitCode !== 0) throw new Error(`worker failed: ${stderr}`);
    }),
    exited,
    killedAt: () => killedAt,
    settle() {
      settled = new Promise<void>((resolve) => (markSettled = resolve));
      child.stdin.write('settle\n');
      return settled;
    },
  };
}

it('a syncing process SIGKILLed at random commit points and restarted, under delivery chaos: the mirror equals the fake, each change once, in order', async () => {
  const rng = random(SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
  const { fake } = fakeServer;
  const partner = fake.addPartner({ name: 'Chaos' });
  const restaurantIds = [0, 1, 2].map(
    (index) =>
      fake.addRestaurant({
        confirmation_mode: index === 0 ? 'CONFIRMATION_MODE_SYNCHRONOUS' : 'CONFIRMATION_MODE_ASYNCHRONOUS',
        partnerIds: [partner.partnerId],
        timezone: ZONE,
      }).id,
  );
  const client = new PartnerClient({
    baseUrl: fakeServer.url,
    ...partner,
    logLevel: 'off',
    rateLimit: false,
    restaurantTimezones: Object.fromEntries(restaurantIds.map((id) => [id, ZONE])),
  });
  const port = await freePort();
  const webhook = await client.webhooks.create({ url: `http://127.0.0.1:${port}/hooks`, name: 'chaos' });
  fake.setDeliveryChaos({ dropRate: 0.2, duplicateRate: 0.3, reorder: true, maxDelayMs: 300, seed: SEED });
  const env = {
    DATABASE_URL: postgres.url,
    SCHEMA,
    BASE_URL: fakeServer.url,
    PARTNER_ID: partner.partnerId,
    API_TOKEN: partner.apiToken,
    WEBHOOK_TOKEN: webhook.auth_token!,
    PORT: String(port),
    RESTAURANT_IDS: restaurantIds.join(','),
    // One name for every run, as a pod keeps its name: a restarted run takes its leases back at once.
    HOLDER: 'chaos-worker',
  };

  const booked: Array<{ restaurantId: number; id: number }> = [];
  // Reservations the mirror already holds: acting on them makes chains of changes, not first sights.
  let seen: Array<{ restaurantId: number; id: number }> = [];
  const act = async () => {
    const roll = rng();
    if (roll < 0.3 || booked.length === 0) {
      const restaurantId = pick(restaurantIds);
      const day = DateTime.now()
        .setZone(ZONE)
        .plus({ days: 1 + Math.floor(rng() * 5) })
        .toISODate()!;
      const reservation = await client.reservations.create(restaurantId, {
        start_time: { date: day, time: pick(['12:00', '13:30', '19:00', '20:30']) },
        adults: 1 + Math.floor(rng() * 6),
        first_name: 'Ada',
      });
      booked.push({ restaurantId, id: reservation.id });
      return;
    }
    const { restaurantId, id } = pick(seen.length > 0 && rng() < 0.8 ? seen : booked);
    const adults = 1 + Math.floor(rng() * 6);
    const actions = [
      () => fake.asRestaurant.confirm(restaurantId, id),
      () => fake.asRestaurant.modify(restaurantId, id, { adults }),
      () => fake.asCustomer.modify(restaurantId, id, { adults, comment: `party of ${adults}` }),
      () => fake.asCustomer.cancel(restaurantId, id),
      () => client.reservations.cancel(restaurantId, id),
      () => client.reservations.markArrived(restaurantId, id),
      () => client.reservations.markNoShow(restaurantId, id),
    ];
    // Refused moves (a 409: arrived after a cancellation, ...) are part of the game.
    await pick(actions)().catch(() => undefined);
  };

  const kills: string[] = [];
  for (let round = 0; round < KILLS; round++) {
    // Each change passes four commit points in turn: the kill lands on each kind in turn, 4 to 12
    // changes after the start (past the first sights of what was booked while none ran).
    const killAt = 4 * (4 + Math.floor(rng() * 8)) + (round % 4) + 1;
    const running = startWorker({ ...env, KILL_AT: String(killAt) });
    await running.ready;
    seen = (
      await pool.query<{ restaurant_id: string; id: string }>(
        `select restaurant_id, id from ${SCHEMA}.reservations where not coalesce(cancelled, false)`,
      )
    ).rows.map((row) => ({ restaurantId: Number(row.restaurant_id), id: Number(row.id) }));
    // Act until the worker has passed its kill point, or for a bounded while (then it is killed
    // wherever it is: a random point too).
    for (
      let step = 0;
      step < 40 && running.child.exitCode === null && running.child.signalCode === null;
      step++
    ) {
      await act();
      await new Promise((resolve) => setTimeout(resolve, 20 + rng() * 80));
    }
    running.child.kill('SIGKILL');
    await running.exited;
    kills.push(running.killedAt() ?? 'anywhere (killed from outside)');
  }

  // A last run, left alone: it reads everything and hands over what the dead ones did not.
  const last = startWorker(env);
  await last.ready;
  await new Promise((resolve) => setTimeout(resolve, 500));
  await last.settle();

  const truth = new Map<string, Reservation>();
  for (const restaurantId of restaurantIds) {
    for (const { channel, partnerId: _partner, ...reservation } of fake.allReservations(restaurantId))
      if (channel === 'partner') truth.set(`${restaurantId}:${reservation.id}`, reservation);
  }
  const query = async <Row>(text: string, params?: unknown[]) =>
    (await pool.query(text, params)).rows as Row[];
  const changes = await expectMirrorEquals(query, SCHEMA, truth);

  // The partner's own rows, written in the sync's transactions: each change exactly once.
  const applied = await query<{ reservation_id: string; revision: number; kind: string }>(
    `select reservation_id, revision, kind from ${SCHEMA}.applied order by id`,
  );
  const recorded = await changeRows(query, SCHEMA);
  const keyOf = (id: unknown, revision: number) => `${Number(id)}#${revision}`;
  expect(applied.map((row) => keyOf(row.reservation_id, row.revision)).sort()).toEqual(
    recorded.map((row) => keyOf(row.reservation_id, row.revision)).sort(),
  );

  if (process.env.CHAOS_VERBOSE) console.log({ kills, changes, booked: booked.length });
  // The run met what it claims to survive: chains of changes (not only first sights), kills at
  // each of the four commit points, and chaos in the deliveries.
  expect(changes - booked.length, 'changes after the first sight').toBeGreaterThanOrEqual(10);
  expect(new Set(kills).size, `kill points: ${kills.join('; ')}`).toBeGreaterThanOrEqual(4);
  expect(fake.deliveries.some((entry) => entry.duplicate)).toBe(true);
  expect(fake.deliveries.some((entry) => entry.error?.startsWith('dropped by delivery chaos'))).toBe(true);

  last.child.kill('SIGTERM');
  await last.exited;
}, 120_000);
