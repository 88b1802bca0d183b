/**
 * The job-queue recipe of docs/exactly-once.md, run for real: BullMQ workers in three processes
 * on a real redis-server, sharing a Redis booking ledger, book six orders against a server that
 * ignores Idempotency-Key. Two workers are SIGKILLed right after their create reached the server
 * (the booking committed, its answer not yet sent); one order's create is answered 504 while the
 * origin commits it a moment later. BullMQ redelivers the stalled jobs and retries the ambiguous
 * one. Every order ends booked exactly once, and no job ends failed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Queue, QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/transport/clock.js';
import {
  startHostileServer,
  wellBehaved,
  type HostileRequest,
  type HostileServer,
} from '../support/hostile-server.js';
import { startRedisServer, type TestRedis } from './support/redis-server.js';

const PARTNER_ID = '3c5e7a9b-2d4f-4b6a-8c1e-0f2a4b6c8d0e';
const API_TOKEN = 'bullmq-recipe-token-9a8b7c';
const HOLD_MS = 3_000;
const ORDERS = 6;
const source = fileURLToPath(new URL('../../src', import.meta.url));
const script = fileURLToPath(new URL('./support/bullmq-worker.mjs', import.meta.url));

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedisServer();
}, 60_000);
afterAll(async () => {
  await redis?.stop();
});

interface WorkerProcess {
  child: ChildProcess;
  ready: Promise<void>;
}

function startWorker(server: HostileServer, queue: string): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      SDK_SOURCE: source,
      BASE_URL: server.url,
      PARTNER_ID,
      API_TOKEN,
      REDIS_URL: redis.url,
      QUEUE: queue,
      HOLD_MS: String(HOLD_MS),
    },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => line === 'ready' && resolve());
    child.once('exit', (code) => reject(new Error(`worker exited ${code}: ${stderr.slice(-800)}`)));
  });
  // A replacement killed at the end before it was ready must not count as an unhandled failure.
  ready.catch(() => undefined);
  return { child, ready };
}

const orderOf = (request: HostileRequest) =>
  String(
    ((request.body as { metadata?: Record<string, unknown> }).metadata?.[
      'restaurant_partner_sdk.idempotency_key'
    ] as string | undefined) ?? '',
  );

describe('BullMQ workers, SIGKILL mid-create, redelivery', () => {
  it('six orders, three worker processes, two killed after their POST, one 504 with a late commit: one booking per order, no job failed', async () => {
    const killed = new Set<string>();
    const workers: WorkerProcess[] = [];
    const seenPosts = new Map<string, number>();
    const server = await startHostileServer(systemClock, async (request, tools) => {
      if (request.method !== 'POST') return wellBehaved(request, tools);
      const order = orderOf(request);
      const nth = (seenPosts.get(order) ?? 0) + 1;
      seenPosts.set(order, nth);
      if (nth === 1 && (order === 'order-1' || order === 'order-2')) {
        // The booking commits; its worker dies before the answer reaches it.
        tools.commit(request);
        const pid = Number(request.headers['x-worker']);
        killed.add(order);
        workers.find((worker) => worker.child.pid === pid)?.child.kill('SIGKILL');
        return undefined;
      }
      if (nth === 1 && order === 'order-3') {
        // A gateway gives up; the origin commits a little later.
        tools.commitLater(request, 700);
        return tools.json(504, { detail: 'gateway timeout' });
      }
      return tools.json(201, tools.commit(request));
    });
    const queueName = `orders-${process.pid}`;
    const connection = { url: redis.url };
    const queue = new Queue(queueName, { connection });
    const events = new QueueEvents(queueName, { connection });
    try {
      for (let index = 0; index < 3; index++) workers.push(startWorker(server, queueName));
      await Promise.all(workers.map((worker) => worker.ready));
      await events.waitUntilReady();
      const finished = new Map<string, 'completed' | 'failed'>();
      const allFinished = new Promise<void>((resolve) => {
        const mark = (jobId: string, how: 'completed' | 'failed') => {
          finished.set(jobId, how);
          if (finished.size === ORDERS) resolve();
        };
        events.on('completed', ({ jobId }) => mark(jobId, 'completed'));
        events.on('failed', ({ jobId }) => mark(jobId, 'failed'));
      });
      for (let order = 1; order <= ORDERS; order++) {
        await queue.add(
          'book',
          {
            orderId: order,
            input: { start_time: '2026-12-05T19:30:00', adults: 2, first_name: `Guest ${order}` },
          },
          { jobId: `order-${order}`, attempts: 30, backoff: { type: 'custom' } },
        );
      }
      // Replace the killed workers, as a process manager would.
      const replacing = setInterval(() => {
        const alive = workers.filter((worker) => worker.child.exitCode === null && !worker.child.killed);
        if (alive.length < 3) workers.push(startWorker(server, queueName));
      }, 250);
      try {
        await allFinished;
      } finally {
        clearInterval(replacing);
      }
      server.commitDue();

      expect([...killed].sort()).toEqual(['order-1', 'order-2']);
      expect([...finished.values()].filter((how) => how === 'failed')).toEqual([]);
      for (let order = 1; order <= ORDERS; order++) {
        const booked = server.bookings.filter((booking) => booking.key === `order-${order}`);
        expect(booked, `order-${order}: exactly one booking`).toHaveLength(1);
        const job = await queue.getJob(`order-${order}`);
        expect(job?.returnvalue, `order-${order}: the job returned its booking`).toEqual({
          reservationId: booked[0]!.id,
        });
      }
      console.info(
        `BullMQ recipe: ${server.bookings.length} bookings for ${ORDERS} orders, ${server.posts().length} POST, ${workers.length} worker processes (2 killed mid-create), 0 failed jobs`,
      );
    } finally {
      for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
      await events.close();
      await queue.close();
      await server.close();
    }
  }, 120_000);
});
