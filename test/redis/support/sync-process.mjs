/**
 * One partner process running a reservation sync on a Redis store (test/redis/sync-processes.test.ts):
 * its own PartnerClient (paced by the shared Redis budget), its own receiver on a loopback port,
 * and createRedisSyncStore. Prints {"url"} once listening, {"started": true} once the sync runs,
 * then one JSON line per change handed to onChange, as it happens, so a process killed mid-run has
 * still told what it announced.
 *
 * Environment: SDK_SOURCE (folder of src/, run under tsx), BASE_URL, PARTNER_ID, API_TOKEN,
 * REDIS_URL, KEY_PREFIX, RESTAURANT_IDS (comma-separated), INTERVAL_MS, ON_CHANGE_MS (how long onChange takes), NAME, and WEBHOOK_TOKENS
 * sent on stdin as JSON lines ({"tokens": [...]}).
 */
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';

const env = process.env;
const entry = (name) => pathToFileURL(`${env.SDK_SOURCE}/${name}.ts`).href;
const { PartnerClient } = await import(entry('index'));
const { createRedisRateLimiter, createRedisSyncStore } = await import(entry('redis/index'));
const { createReservationSync } = await import(entry('sync/index'));
const { createWebhookReceiver } = await import(entry('webhooks/index'));
const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

const redis = new Redis(env.REDIS_URL);
redis.on('error', () => undefined);
const tokens = [];
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.tokens) tokens.splice(0, tokens.length, ...message.tokens);
});

const client = new PartnerClient({
  baseUrl: env.BASE_URL,
  partnerId: env.PARTNER_ID,
  apiToken: env.API_TOKEN,
  logLevel: 'off',
  rateLimit: createRedisRateLimiter({
    redis,
    partnerId: env.PARTNER_ID,
    keyPrefix: `${env.KEY_PREFIX}budget:`,
  }),
});
const receiver = createWebhookReceiver({ tokens: () => tokens, logger: false });
const sync = createReservationSync({
  client,
  store: createRedisSyncStore({ redis, keyPrefix: env.KEY_PREFIX }),
  restaurantIds: env.RESTAURANT_IDS.split(',').map(Number),
  reconcile: { intervalMs: Number(env.INTERVAL_MS), budgetShare: 0.5 },
  logger: { warn: (message) => print({ warn: message }), error: (message) => print({ warn: message }) },
  // Slow, as a database write can be: two processes seeing the same change overlap in it.
  onChange: async (change) => {
    await new Promise((resolve) => setTimeout(resolve, Number(env.ON_CHANGE_MS ?? 0)));
    print({
      change: {
        name: env.NAME,
        kind: change.kind,
        restaurantId: change.restaurantId,
        id: change.reservation.id,
        source: change.source,
        reservation: change.reservation,
        previous: change.previous,
      },
    });
  },
});
sync.attach(receiver);
const server = createServer(receiver.nodeHandler());
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
print({ url: `http://127.0.0.1:${server.address().port}/hooks` });
await sync.start();
print({ started: true });

const shutDown = async () => {
  await sync.stop();
  server.close();
  redis.disconnect();
  print({ stopped: true });
  process.exit(0);
};
process.on('SIGTERM', () => void shutDown());
