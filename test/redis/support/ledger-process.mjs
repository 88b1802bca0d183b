/**
 * One process of the shared-ledger proof: its own PartnerClient and Redis connection, a
 * `createRedisBookingLedger` on it, one create with the caller's key. It prints `ready` once
 * connected, creates when it reads `go` on stdin (so every process sends at the same moment), and
 * prints the outcome as one JSON line.
 *
 * Environment: SDK_SOURCE (folder of src/, run under tsx), BASE_URL, PARTNER_ID, API_TOKEN,
 * REDIS_URL, REDIS_CLIENT (`ioredis` or `node-redis`), KEY, KEY_PREFIX.
 */
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const { env } = process;
const entry = (name) => pathToFileURL(`${env.SDK_SOURCE}/${name}.ts`).href;
const { PartnerClient } = await import(entry('index'));
const { createRedisBookingLedger } = await import(entry('redis/index'));

let redis;
let close;
if (env.REDIS_CLIENT === 'node-redis') {
  const { createClient } = await import('redis');
  redis = createClient({ url: env.REDIS_URL });
  redis.on('error', () => undefined);
  await redis.connect();
  close = () => redis.destroy();
} else {
  const { Redis } = await import('ioredis');
  redis = new Redis(env.REDIS_URL);
  redis.on('error', () => undefined);
  await redis.ping();
  close = () => redis.disconnect();
}

const client = new PartnerClient({
  baseUrl: env.BASE_URL,
  partnerId: env.PARTNER_ID,
  apiToken: env.API_TOKEN,
  rateLimit: false,
  logLevel: 'off',
  bookingLedger: createRedisBookingLedger({ redis, keyPrefix: env.KEY_PREFIX }),
});

const lines = createInterface({ input: process.stdin });
console.log('ready');
for await (const line of lines) {
  if (line.trim() !== 'go') continue;
  try {
    const reservation = await client.reservations.create(
      1,
      { start_time: '2026-12-05T19:30:00', adults: 2 },
      { idempotencyKey: env.KEY },
    );
    console.log(JSON.stringify({ id: reservation.id }));
  } catch (error) {
    console.log(JSON.stringify({ error: error?.name ?? String(error), message: error?.message }));
  }
  break;
}
lines.close();
close();
