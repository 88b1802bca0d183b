/**
 * One BullMQ worker process of the job-queue recipe (docs/exactly-once.md, "In a job queue"):
 * books the order a job names with the order's own idempotency key, through a Redis booking
 * ledger, and lets the SDK's errors drive the queue: `retryable: false` fails the job for good,
 * anything else is retried, no sooner than `holdUntil` for an ambiguous create.
 *
 * Every create carries the header `x-worker: <pid>`, so the test knows whom to SIGKILL.
 * Environment: SDK_SOURCE (folder of src/, run under tsx), BASE_URL, PARTNER_ID, API_TOKEN,
 * REDIS_URL, QUEUE, HOLD_MS.
 */
import { pathToFileURL } from 'node:url';
import { Worker, UnrecoverableError } from 'bullmq';
import { Redis } from 'ioredis';

const { env } = process;
const entry = (name) => pathToFileURL(`${env.SDK_SOURCE}/${name}.ts`).href;
const { PartnerClient } = await import(entry('index'));
const { createRedisBookingLedger } = await import(entry('redis/index'));

const redis = new Redis(env.REDIS_URL);
redis.on('error', () => undefined);
await redis.ping();

const client = new PartnerClient({
  baseUrl: env.BASE_URL,
  partnerId: env.PARTNER_ID,
  apiToken: env.API_TOKEN,
  rateLimit: false,
  logLevel: 'off',
  restaurantTimezones: { 1: 'Europe/Brussels' },
  defaultHeaders: { 'x-worker': String(process.pid) },
  bookingLedger: createRedisBookingLedger({ redis }),
  ambiguousHoldMs: Number(env.HOLD_MS),
  createLookupWindowMs: 500,
});

// The recipe: a job's attempt is the create; the error says whether and when to try again.
const worker = new Worker(
  env.QUEUE,
  async (job) => {
    try {
      const reservation = await client.reservations.create(1, job.data.input, {
        idempotencyKey: `order-${job.data.orderId}`,
      });
      return { reservationId: reservation.id };
    } catch (error) {
      if (error?.retryable === false) throw new UnrecoverableError(error.message);
      throw error;
    }
  },
  {
    connection: { url: env.REDIS_URL },
    concurrency: 2,
    // A killed worker's job goes back to the queue within seconds.
    lockDuration: 2_000,
    stalledInterval: 1_000,
    maxStalledCount: 10,
    settings: {
      // While a create is held, a repeat only looks the key up: wait for the hold to pass.
      backoffStrategy: (_attemptsMade, _type, error) =>
        error?.holdUntil instanceof Date ? Math.max(250, error.holdUntil.getTime() - Date.now()) : 500,
    },
  },
);
worker.on('error', () => undefined);
await worker.waitUntilReady();
console.log('ready');
process.on('SIGTERM', () => {
  // Not awaited by the emitter: a failed close ends the worker with a failure, for the test to see.
  worker.close().then(
    () => {
      redis.disconnect();
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
});
