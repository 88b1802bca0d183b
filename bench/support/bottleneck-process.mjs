/**
 * The bench's anchor for the shared budget: one partner process paced by Bottleneck's Redis
 * clustering, configured as octokit's users configure it (`minTime: 1000 / RATE`, no concurrency
 * limit, `datastore: 'ioredis'`, the same `id` in every process), its callers sending raw `fetch`
 * calls to the restaurant list. It speaks the lines of test/redis/support/budget-process.mjs, so
 * test/redis/support/budget-run.mjs runs it beside ours: {"ready"}, {"ok"}, {"status": 429},
 * {"grant"} (from scheduling to the job's start), {"gaveUp"} for jobs still queued at the end, {"done"}.
 * A 429 is counted and the caller schedules its next call as usual (Bottleneck has no notion of it).
 *
 * Environment: BASE_URL, PARTNER_ID, API_TOKEN, REDIS_URL, RUN_MS, RATE (default 1), CALLERS (JSON
 * list, one entry per caller), BOTTLENECK_ID (shared by the processes of one run).
 */
import Bottleneck from 'bottleneck';

const env = process.env;
const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
const redisUrl = new URL(env.REDIS_URL);
const limiter = new Bottleneck({
  id: env.BOTTLENECK_ID,
  datastore: 'ioredis',
  clientOptions: { host: redisUrl.hostname, port: Number(redisUrl.port) },
  minTime: 1000 / Number(env.RATE ?? 1),
  maxConcurrent: null,
});
limiter.on('error', (error) => print({ warn: String(error?.message ?? error) }));
await limiter.ready();

const url = `${env.BASE_URL}/api/v1/partnership/restaurants/`;
const authorization = `Basic ${Buffer.from(`${env.PARTNER_ID}:${env.API_TOKEN}`).toString('base64')}`;
const callers = JSON.parse(env.CALLERS ?? '[{},{},{}]');
const waiting = new Set();

print({ ready: true });
await new Promise((resolve) => {
  process.stdin.once('data', resolve);
  process.stdin.resume();
});
process.stdin.pause();
const end = Date.now() + Number(env.RUN_MS ?? 10_000);
let answered = 0;
let failed = 0;

async function loop(caller) {
  while (Date.now() < end) {
    const wait = { caller, priority: 'interactive', askedAt: Date.now(), started: performance.now() };
    waiting.add(wait);
    try {
      await limiter.schedule(async () => {
        waiting.delete(wait);
        print({ grant: { ...wait, started: undefined, waitMs: performance.now() - wait.started } });
        const response = await fetch(url, { headers: { authorization, accept: 'application/json' } });
        await response.arrayBuffer();
        if (response.status === 429) print({ status: 429 });
        else if (response.ok) {
          answered += 1;
          print({ ok: Date.now(), caller });
        } else print({ status: response.status });
      });
    } catch (error) {
      failed += 1;
      print({ error: `${error?.name}: ${error?.message}` });
    }
  }
}
// The callers' loops end when the run does; jobs still queued then are abandoned, not awaited.
void Promise.all(callers.map((_, caller) => loop(caller)));
await new Promise((resolve) => setTimeout(resolve, Math.max(0, end - Date.now())));
for (const wait of waiting)
  print({
    gaveUp: { ...wait, started: undefined, waitMs: performance.now() - wait.started, reason: 'run ended' },
  });
print({ done: { answered, failed } });
process.stdout.write('', () => process.exit(0));
