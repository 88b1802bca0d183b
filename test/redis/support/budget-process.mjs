/**
 * One partner process for the shared-budget measurements (bench/redis-budget.mjs and
 * test/redis/processes.test.ts): a PartnerClient paced by createRedisRateLimiter keeps CONCURRENCY
 * calls waiting for RUN_MS and reports every answer as one JSON line on stdout, as it happens, so
 * a process killed mid-run has still told what it got.
 *
 * Environment: SDK_DIST (folder of the built package) or SDK_SOURCE (folder of src/, run under
 * tsx), BASE_URL, PARTNER_ID, API_TOKEN, REDIS_URL, REDIS_CLIENT (ioredis | node-redis), RUN_MS,
 * CONCURRENCY (default 3), RATE (default 1), SKEW_MS (this process's clock runs that far ahead
 * or behind, as on a host with a skewed clock: the budget must not care).
 *
 * Lines: {"ready": true} once connected (the run starts at the first line on stdin), {"ok": epochMs} per answered call, {"status": 429} per 429, {"warn": message} per warning,
 * {"done": {...}} at the end.
 */
import { pathToFileURL } from 'node:url';

const env = process.env;
const realNow = Date.now.bind(Date);
const skew = Number(env.SKEW_MS ?? 0);
if (skew) Date.now = () => realNow() + skew;

const entry = (name) =>
  pathToFileURL(env.SDK_DIST ? `${env.SDK_DIST}/${name}.js` : `${env.SDK_SOURCE}/${name}.ts`).href;
const { PartnerClient } = await import(entry('index'));
const { createRedisRateLimiter } = await import(entry('redis/index'));

const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

async function connect(kind, url) {
  if (kind === 'node-redis') {
    const { createClient } = await import('redis');
    // node-redis's first connect fails when Redis is down at that moment; retry as an app would.
    for (let attempt = 1; ; attempt++) {
      const client = createClient({ url });
      try {
        await client.connect();
        return { client, close: () => client.destroy() };
      } catch (error) {
        if (attempt >= 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }
  const { Redis } = await import('ioredis');
  const client = new Redis(url);
  return { client, close: () => client.disconnect() };
}

// No 'error' listener of our own: the limiter adds one when the client has none, so a Redis
// restart never ends this process through an unheard 'error' event.
const redis = await connect(env.REDIS_CLIENT ?? 'ioredis', env.REDIS_URL);
const logger = {
  warn: (message) => print({ warn: message }),
  error: (message) => print({ error: message }),
  info: () => undefined,
};
const limiter = createRedisRateLimiter({
  redis: redis.client,
  partnerId: env.PARTNER_ID,
  requestsPerSecond: Number(env.RATE ?? 1),
  logger,
});
const client = new PartnerClient({
  baseUrl: env.BASE_URL,
  partnerId: env.PARTNER_ID,
  apiToken: env.API_TOKEN,
  rateLimit: limiter,
  logger,
  maxRetries: 5,
  hooks: {
    onResponse: ({ status }) =>
      print(status === 429 ? { status } : status && status < 300 ? { ok: realNow() } : { status }),
  },
});

// Every process starts its run together: ready, then wait for the parent's "go" line.
print({ ready: true });
await new Promise((resolve) => {
  process.stdin.once('data', resolve);
  process.stdin.resume();
});
process.stdin.pause();
const end = realNow() + Number(env.RUN_MS ?? 10_000);
let answered = 0;
let failed = 0;
async function loop() {
  while (realNow() < end) {
    try {
      await client.restaurants.list({ signal: AbortSignal.timeout(Math.max(1, end - realNow())) }).toArray();
      answered += 1;
    } catch (error) {
      // A call still waiting when the run ends is cut off by its signal: that is not a failure.
      if (realNow() < end - 50) {
        failed += 1;
        print({ error: `${error?.name}: ${error?.message}` });
      }
    }
  }
}
await Promise.all(Array.from({ length: Number(env.CONCURRENCY ?? 3) }, loop));
print({ done: { answered, failed, shared: limiter.shared } });
redis.close();
