/**
 * One process of the shared-ledger proofs: its own Redis connection and a `createRedisBookingLedger`
 * on it. It prints `ready` once connected and acts when it reads `go` on stdin (so every process
 * acts at the same moment):
 * - MODE `create` (the default): its own PartnerClient makes one create with the caller's key and
 *   prints the outcome as one JSON line.
 * - MODE `hold`: claims SLOT as a create's holder does once it may have sent (LEASE_MS, HOLD_MS),
 *   prints `{"claimed":true}`, then renews every LEASE_MS / 3 with the hold a lapse would start
 *   (until = now + lease + hold) and prints each answer
 *   (`{"renewed":true,"until":...}`) until a renewal is refused, then exits. A test freezes it
 *   (SIGSTOP) to stand for a holder that stalls past its lease.
 *
 * Environment: SDK_SOURCE (folder of src/, run under tsx), REDIS_URL, REDIS_CLIENT (`ioredis` or
 * `node-redis`), KEY_PREFIX; for `create`: BASE_URL, PARTNER_ID, API_TOKEN, KEY; for `hold`: SLOT,
 * LEASE_MS, HOLD_MS.
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

const bookingLedger = createRedisBookingLedger({ redis, keyPrefix: env.KEY_PREFIX });

async function hold() {
  const token = `holder-${process.pid}`;
  const leaseMs = Number(env.LEASE_MS);
  const holdMs = Number(env.HOLD_MS);
  const now = Date.now();
  const answer = await bookingLedger.claim(env.SLOT, { token, fingerprint: 'fp', leaseMs, holdMs, now });
  if (answer !== undefined) return console.log(JSON.stringify({ claimed: false, answer }));
  console.log(JSON.stringify({ claimed: true }));
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, leaseMs / 3));
    const until = Date.now() + leaseMs + holdMs;
    const renewed = await bookingLedger.renew(env.SLOT, token, leaseMs, until).catch(() => false);
    console.log(JSON.stringify({ renewed, until }));
    if (!renewed) return;
  }
}

const client =
  env.MODE === 'hold'
    ? undefined
    : new PartnerClient({
        baseUrl: env.BASE_URL,
        partnerId: env.PARTNER_ID,
        apiToken: env.API_TOKEN,
        rateLimit: false,
        logLevel: 'off',
        bookingLedger,
      });

const lines = createInterface({ input: process.stdin });
console.log('ready');
for await (const line of lines) {
  if (line.trim() !== 'go') continue;
  if (env.MODE === 'hold') {
    await hold();
    break;
  }
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
