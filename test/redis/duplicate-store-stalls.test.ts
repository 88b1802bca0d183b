/**
 * A stalled Redis never holds a webhook delivery hostage: proofs on a real redis-server with two
 * receiver instances on real HTTP servers (`nodeHandler()`), for both Redis clients. They measure
 * answers against real-time bounds (1 s), so they run in the real-time lane, one file at a time.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { buildDelivery } from 'restaurant-partner-sdk/testing';
import { createWebhookReceiver } from 'restaurant-partner-sdk/webhooks';
import { createRedisDuplicateStore } from '../../src/redis/index.js';
import { startNodeServer, type RunningServer } from '../webhooks/servers.js';
import { CLIENT_KINDS, connectionsOf, type ConnectedClient } from './support/clients.js';
import { startRedisServer, type TestRedis } from './support/redis-server.js';
import { reservation } from '../support/reservation.js';

const TOKEN = 'whsec-duplicate-store-stalls-token';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What one HTTP delivery got back, and how long the receiver took to answer it. */
interface Answer {
  status: number;
  body: unknown;
  ms: number;
}

/**
 * Receiver instances as partners deploy them: each a real HTTP server (`nodeHandler()` on
 * `node:http`) with its own Redis connection and store, recording which instance ran the handler.
 */
async function startInstances(
  connections: ConnectedClient[],
  handlerMs: number,
  runs: string[],
): Promise<{
  post(index: number, delivery: { body: string; headers: Record<string, string> }): Promise<Answer>;
}> {
  const servers: RunningServer[] = [];
  for (const [index, connection] of connections.entries()) {
    const receiver = createWebhookReceiver({
      tokens: [TOKEN],
      duplicateStore: createRedisDuplicateStore({ redis: connection.client }),
      logger: false,
    });
    receiver.on('*', async () => {
      runs.push(String.fromCharCode(65 + index));
      await sleep(handlerMs);
    });
    servers.push(await startNodeServer(receiver));
  }
  onTestFinished(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });
  return {
    async post(index, delivery) {
      const startedAt = performance.now();
      // Far past any bound asserted here: a delivery held hostage shows as a long `ms`, not a hang.
      const response = await fetch(`${servers[index]!.url}/webhooks`, {
        method: 'POST',
        body: delivery.body,
        headers: delivery.headers,
        signal: AbortSignal.timeout(15_000),
      });
      const body: unknown = await response.json();
      return { status: response.status, body, ms: performance.now() - startedAt };
    },
  };
}

/**
 * Stalls the whole Redis for `ms`: `CLIENT PAUSE` (every client's commands wait) or `DEBUG SLEEP`
 * (the server hangs). Resolves once the stall has begun, with when it began and when it is over.
 */
async function stall(fault: 'CLIENT PAUSE' | 'DEBUG SLEEP', ms: number) {
  if (fault === 'CLIENT PAUSE') {
    const startedAt = Date.now();
    await redis.pause(ms);
    return { startedAt, over: sleep(ms) };
  }
  // DEBUG SLEEP answers only when the server wakes: give it time to arrive and start.
  const over = redis.sleep(ms + 100);
  await sleep(100);
  return { startedAt: Date.now(), over };
}

/** What Redis holds for a delivery (under the default key prefix): a lease's token, `processed`, or null. */
async function heldFor(connection: ConnectedClient, delivery: { body: string }): Promise<unknown> {
  const { id, reservation } = JSON.parse(delivery.body) as { id: string; reservation: { id: number } };
  return connection.command('GET', `restaurant-partner-sdk:webhook:reservation-${reservation.id}:${id}`);
}

const at = (startedAt: number, offsetMs: number) => sleep(Math.max(0, startedAt + offsetMs - Date.now()));

/** A reservation delivery with a reservation id of its own. */
let nextReservationId = 1000;
const reservationDelivery = (overrides: { id?: string } = {}) =>
  buildDelivery(
    {
      event: 'RESERVATION_CONFIRMED',
      reservation: reservation({ id: (nextReservationId += 1) }),
      restaurantId: 1,
      ...overrides,
    },
    TOKEN,
  );

describe.each(CLIENT_KINDS)('createRedisDuplicateStore under stalls, with %s', (kind) => {
  const connect = connectionsOf(kind, () => redis.url);

  it.each(['CLIENT PAUSE', 'DEBUG SLEEP'] as const)(
    '%s 2.5 s while deliveries arrive: an instance that gave up on its claim holds nothing, and the retry at either instance runs the handler at once',
    async (fault) => {
      const HANDLER_MS = 200;
      const runs: string[] = [];
      const [a, b, admin] = await Promise.all([connect(), connect(), connect()]);
      const instances = await startInstances([a, b], HANDLER_MS, runs);
      // Instances that have been handling deliveries, on a Redis that knows only the scripts of
      // a delivery that went well (claim, complete): none was ever released since it started.
      await redis.command('SCRIPT', 'FLUSH');
      for (const index of [0, 1])
        expect((await instances.post(index, reservationDelivery())).status).toBe(200);
      runs.length = 0;
      const [toA, toB, toAThenB] = [reservationDelivery(), reservationDelivery(), reservationDelivery()];
      // Longer than two command timeouts: the release sent behind a claim that timed out times out too.
      const { startedAt, over } = await stall(fault, 2_500);
      // Each instance gives up on its claim after the store's 1 s command timeout: 500, so the
      // service retries. Redis runs each claim once it resumes.
      const during = await Promise.all([
        instances.post(0, toA),
        instances.post(1, toB),
        instances.post(0, toAThenB),
      ]);
      expect(during.map((answer) => answer.status)).toEqual([500, 500, 500]);
      // One retry arrives just before Redis resumes, and meets the late claims landing.
      await at(startedAt, 2_300);
      const resuming = instances.post(1, toAThenB);
      await over;
      // The claims that landed late were released as soon as Redis ran them, not left to run out.
      await sleep(100);
      expect(await Promise.all([heldFor(admin, toA), heldFor(admin, toB)])).toEqual([null, null]);
      const asRedisResumes = await resuming;
      // The others 1 s after Redis resumed, each at the instance that did not give up on it.
      await at(startedAt, 3_500);
      const retries = await Promise.all([instances.post(1, toA), instances.post(0, toB)]);
      for (const answer of [asRedisResumes, ...retries]) {
        expect(answer).toMatchObject({ status: 200, body: { received: true } });
      }
      // The handler's own time, a few round trips, and (as Redis resumes) the rest of the stall.
      expect(asRedisResumes.ms).toBeLessThan(200 + HANDLER_MS + 500);
      for (const answer of retries) expect(answer.ms).toBeLessThan(HANDLER_MS + 500);
      expect(runs.sort()).toEqual(['A', 'B', 'B']);
      const repeats = await Promise.all([
        instances.post(0, toA),
        instances.post(1, toB),
        instances.post(0, toAThenB),
      ]);
      for (const answer of repeats)
        expect(answer).toMatchObject({ status: 200, body: { received: true, duplicate: true } });
      expect(runs).toHaveLength(3);
    },
    20_000,
  );

  it('while one instance runs a long handler, another answers the same delivery 409 within 1 s (never runs it), and 200 once it is done', async () => {
    const HANDLER_MS = 2_500;
    const runs: string[] = [];
    const instances = await startInstances(await Promise.all([connect(), connect()]), HANDLER_MS, runs);
    const delivery = reservationDelivery();
    const startedAt = Date.now();
    const running = instances.post(0, delivery);
    // Early in the handler, and after it has outlived several unrenewed claims.
    await at(startedAt, 300);
    const early = await instances.post(1, delivery);
    await at(startedAt, 1_500);
    const later = await instances.post(1, delivery);
    for (const answer of [early, later]) {
      expect(answer.status).toBe(409);
      expect(answer.ms).toBeLessThan(1_000);
    }
    expect(await running).toMatchObject({ status: 200, body: { received: true } });
    expect(await instances.post(1, delivery)).toMatchObject({
      status: 200,
      body: { received: true, duplicate: true },
    });
    expect(runs).toEqual(['A']);
  }, 15_000);

  it.each(['CLIENT PAUSE', 'DEBUG SLEEP'] as const)(
    '%s 2 s while a handler runs: its claim ran out in Redis, yet its renewal, queued first, takes it back; a copy arriving as Redis resumes is answered 409, never run',
    async (fault) => {
      const HANDLER_MS = 4_000;
      const runs: string[] = [];
      const instances = await startInstances(await Promise.all([connect(), connect()]), HANDLER_MS, runs);
      const delivery = reservationDelivery();
      const running = instances.post(0, delivery);
      await sleep(300);
      const { startedAt, over } = await stall(fault, 2_000);
      await at(startedAt, 1_800);
      const copy = await instances.post(1, delivery);
      await over;
      expect(copy.status).toBe(409);
      expect(copy.ms).toBeLessThan(200 + 1_000);
      expect(await running).toMatchObject({ status: 200, body: { received: true } });
      expect(runs).toEqual(['A']);
    },
    15_000,
  );

  it('a claim left by an instance that stopped (killed mid-handler, cut off from Redis) frees the delivery within 1 s: the retry at another instance runs it', async () => {
    const HANDLER_MS = 100;
    const runs: string[] = [];
    const [gone, b] = await Promise.all([connect(), connect()]);
    const instances = await startInstances([b], HANDLER_MS, runs);
    const delivery = reservationDelivery({ id: 'evt-left-behind' });
    // What the stopped instance did: claim the delivery, then nothing (no renewal, no release).
    const store = createRedisDuplicateStore({ redis: gone.client });
    const left = await store.claim(`reservation-${nextReservationId}:evt-left-behind`);
    expect(left.status).toBe('claimed');
    const retry = await instances.post(0, delivery);
    expect(retry).toMatchObject({ status: 200, body: { received: true } });
    expect(retry.ms).toBeLessThan(1_000 + HANDLER_MS);
    expect(runs).toEqual(['A']);
  });
});
