/**
 * The shared budget across processes, side by side in one run against the STRICT server-side
 * limiter (the fake's, `startStrictFake` in bench/support/servers.mjs: a one-second sliding window
 * per `ceil(rps)` requests, a request past it answered 429 and not counted), each part with its
 * own throwaway redis-server and fake:
 *
 * - `redis-4proc`: four processes of the built package (ioredis and node-redis in turn), each a
 *   PartnerClient with createRedisRateLimiter and three callers always waiting, 30 s at 1 req/s.
 * - `redis-16proc`: sixteen such processes with one caller each, 60 s: efficiency, the smallest
 *   share over the largest, and the longest wait for a slot in the limiter's intervals.
 * - `redis-fault`: four processes as in `redis-4proc`, 45 s, through a `CLIENT PAUSE 3000` (at
 *   8 s), a `DEBUG SLEEP 3` (at 18 s) and Redis stopped for 5 s then started again on the same
 *   port (at 28 s): the server's 429s and its longest gap between accepted requests.
 * - `redis-20rps`: as `redis-4proc` at 20 req/s.
 * - `bottleneck`: the anchor, as `redis-4proc` with Bottleneck's Redis clustering
 *   (bench/support/bottleneck-process.mjs, `minTime: 1000`, one shared `id`) around raw fetch.
 *
 * Efficiency is the rate the server accepted, on its own clock, over the limit; 429s are its
 * count; waits come from the processes (asking for a slot to being granted).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedisServer } from '../scripts/redis-server.mjs';
import { runBudgetProcesses, serverFigures } from '../test/redis/support/budget-run.mjs';
import { startStrictFake } from './support/servers.mjs';

/** The parts `BENCH_ONLY=redis` runs (each also by its own name); `bottleneck` is asked for apart. */
export const REDIS_PARTS = ['redis-4proc', 'redis-16proc', 'redis-fault', 'redis-20rps'];

const bottleneckWorker = fileURLToPath(new URL('./support/bottleneck-process.mjs', import.meta.url));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const alternating = (count, callers) =>
  Array.from({ length: count }, (_, index) => ({
    client: index % 2 === 0 ? 'ioredis' : 'node-redis',
    callers,
  }));

/** One run on a fresh redis-server and strict fake: the processes' summary and the server's figures. */
async function budgetRun({ root, startProcess, partner, rate = 1, runMs, processes, during, worker, env }) {
  const redis = await startRedisServer();
  const server = await startStrictFake({ root, startProcess, partner, requestsPerSecond: rate });
  try {
    const summary = await runBudgetProcesses({
      sdk: { dist: join(root, 'dist') },
      baseUrl: server.url,
      partner,
      redisUrl: redis.url,
      runMs,
      rate,
      processes,
      during: during && (() => during(redis)),
      worker,
      env,
    });
    // Requests sent just before the processes ended reach the journal.
    await sleep(500);
    const figures = serverFigures(await server.stats(), rate);
    const errors = summary.reports.flatMap((report) => report.errors);
    const warnings = summary.reports.flatMap((report) => report.warnings);
    const maxWait = Math.max(...summary.waits.map((wait) => wait.max));
    process.stderr.write(
      `    ${figures.accepted} accepted, ${figures.refused} refused (429), efficiency ${figures.efficiency.toFixed(3)}; ` +
        `shares ${summary.shares.join(' / ')}; gaps ms: min ${Math.min(...figures.gaps).toFixed(0)}, ` +
        `max ${figures.maxGap.toFixed(0)}; longest wait ${(maxWait / 1000).toFixed(1)} s` +
        `${errors.length ? `; ${errors.length} failed calls, first: ${errors[0]}` : ''}` +
        `${warnings.length ? `; ${warnings.length} warnings, first: ${warnings[0].slice(0, 160)}` : ''}\n`,
    );
    return { summary, figures, maxWait };
  } finally {
    await server.stop();
    await redis.stop();
  }
}

export async function benchRedisBudget({ root, record, startProcess, partner, wanted }) {
  const run = (options) => budgetRun({ root, startProcess, partner, ...options });
  /** One run recorded as its efficiency and its 429s; `goals` are theirs (none for the anchor). */
  const efficiencyRun = async ({ title, names: [efficiency, refused], unit, goals = [], ...options }) => {
    process.stderr.write(`${title}\n`);
    const result = await run(options);
    record(efficiency, result.figures.efficiency, `ratio of limit (${unit})`, goals[0]);
    record(refused, result.figures.refused, '429s (server count)', goals[1]);
    return result;
  };

  if (wanted('redis-4proc'))
    await efficiencyRun({
      title: 'shared budget in Redis: 4 processes x 3 callers, 1 req/s, 30 s',
      names: ['redis_efficiency_4proc', 'redis_429_count'],
      unit: '4 processes, 1 req/s, 30 s',
      goals: ['>= 0.95', '== 0'],
      runMs: 30_000,
      processes: alternating(4, 3),
    });

  if (wanted('redis-16proc')) {
    const { summary, maxWait } = await efficiencyRun({
      title: 'shared budget in Redis: 16 processes x 1 caller, 1 req/s, 60 s',
      names: ['redis_efficiency_16proc', 'redis_429_count_16proc'],
      unit: '16 processes, 1 req/s, 60 s',
      goals: ['>= 0.95', '== 0'],
      runMs: 60_000,
      processes: alternating(16, 1),
    });
    record(
      'redis_fairness_16proc',
      summary.shareRatio,
      'smallest share / largest share across 16 processes',
      '>= 0.5',
    );
    record(
      'redis_max_wait_16proc',
      maxWait / 1000,
      'longest wait for a slot, in seconds at 1 req/s (waits the run cut short included)',
      '<= 32',
    );
  }

  if (wanted('redis-fault')) {
    process.stderr.write(
      'shared budget in Redis through faults: 4 processes x 3 callers, 1 req/s, 45 s: ' +
        'CLIENT PAUSE 3000 at 8 s, DEBUG SLEEP 3 at 18 s, stopped 5 s at 28 s then restarted on its port\n',
    );
    const { figures } = await run({
      runMs: 45_000,
      processes: alternating(4, 3),
      during: async (redis) => {
        const started = Date.now();
        const at = (ms) => sleep(started + ms - Date.now());
        await at(8000);
        await redis.pause(3000);
        await at(18_000);
        await redis.sleep(3000);
        await at(28_000);
        await redis.outage(5000);
      },
    });
    record(
      'redis_fault_429_count',
      figures.refused,
      '429s (server count) through pause, sleep and outage',
      '== 0',
    );
    record(
      'redis_fault_max_gap_ms',
      figures.maxGap,
      'longest gap between accepted requests (server clock)',
      '<= 2000',
    );
  }

  if (wanted('redis-20rps'))
    await efficiencyRun({
      title: 'shared budget in Redis: 4 processes x 3 callers, 20 req/s, 30 s',
      names: ['redis_efficiency_20rps_4proc', 'redis_429_count_20rps_4proc'],
      unit: '4 processes, 20 req/s, 30 s',
      goals: ['>= 0.96', '== 0'],
      rate: 20,
      runMs: 30_000,
      processes: alternating(4, 3),
    });

  if (wanted('bottleneck'))
    await efficiencyRun({
      title: 'anchor: Bottleneck Redis clustering (minTime 1000), 4 processes x 3 callers, 30 s',
      names: ['bottleneck_efficiency_4proc', 'bottleneck_429_count_4proc'],
      unit: 'Bottleneck, 4 processes, 1 req/s, 30 s',
      runMs: 30_000,
      processes: alternating(4, 3),
      worker: bottleneckWorker,
      env: { BOTTLENECK_ID: `bench-${Date.now()}` },
    });
}
