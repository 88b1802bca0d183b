/**
 * One partner process for the shared-budget measurements (bench/redis-budget.mjs and the
 * test/redis/ process proofs): a PartnerClient paced by createRedisRateLimiter, with several
 * callers each sending its next call as soon as its last is answered (after a pause of its own, if
 * any) for RUN_MS, and reports every answer and every grant as one JSON line on stdout, as it
 * happens, so a process killed mid-run has still told what it got.
 *
 * Environment: SDK_DIST (folder of the built package) or SDK_SOURCE (folder of src/, run under
 * tsx), BASE_URL, PARTNER_ID, API_TOKEN, REDIS_URL, REDIS_CLIENT (ioredis | node-redis), RUN_MS,
 * CALLERS (JSON list of `{ priority?, pauseMs?, delayMs?, everyMs? }`, one per caller: `priority`
 * is passed per call when given; `everyMs` asks on a timetable from `delayMs` after the start) or CONCURRENCY (that many callers without options, default 3), RATE (default 1),
 * SKEW_MS (this process's clock runs that far ahead or behind, as on a host with a skewed clock:
 * the budget must not care).
 *
 * The limiter handed to the client is wrapped so that each wait for a slot is timed from asking
 * to being granted, and attributed to its caller (AsyncLocalStorage follows the caller's call);
 * what `acquire` resolves with (a slot to report the request's end on) passes through untouched.
 *
 * Lines: {"ready": true} once connected (the run starts at the first line on stdin);
 * {"ok": epochMs, "caller": n} per answered call; {"status": 429} per 429;
 * {"grant": {caller, priority, askedAt, waitMs}} per granted slot; {"gaveUp": {...same, reason}}
 * per wait that ended without a slot (the run's end cuts the last waits: their waitMs is a lower
 * bound); {"warn": message} per warning; {"done": {...}} at the end.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { setPriority } from 'node:os';
import { pathToFileURL } from 'node:url';

const env = process.env;
// A partner's process does not share its CPU with the service it calls: the proofs run the strict
// server at a higher priority (a child inherits its parent's), and each partner process at the
// niceness given here (budget-run.mjs's judgeAbovePartners), beside whatever else loads the machine.
try {
  setPriority(Number(env.WORKER_NICE ?? 0));
} catch {
  // Not allowed to change it here: it keeps the parent's.
}
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
const callers = env.CALLERS
  ? JSON.parse(env.CALLERS)
  : Array.from({ length: Number(env.CONCURRENCY ?? 3) }, () => ({}));
const currentCaller = new AsyncLocalStorage();

/** The limiter as the client sees it, every `acquire` timed and reported with its caller. */
const timedLimiter = new Proxy(limiter, {
  get(target, key) {
    if (key === 'acquire')
      return async (options = {}) => {
        const askedAt = realNow();
        const started = performance.now();
        const facts = () => ({
          caller: currentCaller.getStore() ?? null,
          priority: options.priority ?? 'interactive',
          askedAt,
          waitMs: Math.round((performance.now() - started) * 10) / 10,
        });
        let slot;
        try {
          slot = await target.acquire(options);
        } catch (error) {
          print({ gaveUp: { ...facts(), reason: error?.name ?? String(error) } });
          throw error;
        }
        print({ grant: facts() });
        // The slot (when the limiter hands one out) goes to the client, which reports the request's end on it.
        return slot;
      };
    const value = Reflect.get(target, key, target);
    return typeof value === 'function' ? value.bind(target) : value;
  },
});

const client = new PartnerClient({
  baseUrl: env.BASE_URL,
  partnerId: env.PARTNER_ID,
  apiToken: env.API_TOKEN,
  rateLimit: timedLimiter,
  logger,
  maxRetries: 5,
  hooks: {
    onResponse: ({ status }) =>
      print(
        status === 429
          ? { status }
          : status && status < 300
            ? { ok: realNow(), caller: currentCaller.getStore() ?? null }
            : { status },
      ),
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
const pause = (ms) =>
  new Promise((resolve) => setTimeout(resolve, Math.min(ms, Math.max(0, end - realNow()))));
const runStartedAt = realNow();
async function loop({ priority, pauseMs = 0, delayMs = 0, everyMs = 0 }) {
  if (delayMs > 0) await pause(delayMs);
  for (let turn = 0; realNow() < end;) {
    try {
      const signal = AbortSignal.timeout(Math.max(1, end - realNow()));
      await client.restaurants.list(priority ? { signal, priority } : { signal }).toArray();
      answered += 1;
    } catch (error) {
      // A call still waiting when the run ends is cut off by its signal: that is not a failure.
      if (realNow() < end - 50) {
        failed += 1;
        print({ error: `${error?.name}: ${error?.message}` });
      }
    }
    if (pauseMs > 0) await pause(pauseMs);
    if (everyMs > 0) {
      // On a timetable: the next turn still ahead (a turn missed while this call waited is skipped).
      turn = Math.max(turn + 1, Math.ceil((realNow() - runStartedAt - delayMs) / everyMs));
      await pause(runStartedAt + delayMs + turn * everyMs - realNow());
    }
  }
}
await Promise.all(callers.map((caller, index) => currentCaller.run(index, () => loop(caller))));
print({ done: { answered, failed, shared: limiter.shared } });
redis.close();
