/**
 * redis_efficiency_4proc and redis_429_count: four processes of the built package (two on
 * ioredis, two on node-redis), each a PartnerClient with createRedisRateLimiter for one partner,
 * call for 30 s on the real clock against the STRICT server-side limiter
 * (the fake's, `startStrictFake` in bench/support/servers.mjs: one-second sliding window). Efficiency is the
 * rate the server accepted, on its own clock, over the limit; 429s are the server's count.
 */
import { join } from 'node:path';
import { startRedisServer } from '../scripts/redis-server.mjs';
import { runBudgetProcesses } from '../test/redis/support/budget-run.mjs';
import { startStrictFake } from './support/servers.mjs';

export async function benchRedisBudget({ root, record, startProcess, partner }) {
  process.stderr.write('shared budget in Redis: 4 processes, 1 req/s, 30 s\n');
  const redis = await startRedisServer();
  const server = await startStrictFake({ root, startProcess, partner, requestsPerSecond: 1 });
  try {
    const summary = await runBudgetProcesses({
      sdk: { dist: join(root, 'dist') },
      baseUrl: server.url,
      partner,
      redisUrl: redis.url,
      runMs: 30_000,
      processes: [
        { client: 'ioredis' },
        { client: 'node-redis' },
        { client: 'ioredis' },
        { client: 'node-redis' },
      ],
    });
    const stats = await server.stats();
    const times = stats.acceptedAt;
    const gaps = times.slice(1).map((time, index) => time - times[index]);
    process.stderr.write(
      `    ${stats.accepted} accepted, ${stats.refused} refused (429); shares ${summary.shares.join(' / ')}; ` +
        `gaps ms: min ${Math.min(...gaps).toFixed(1)}, max ${Math.max(...gaps).toFixed(1)}\n`,
    );
    record(
      'redis_efficiency_4proc',
      ((times.length - 1) / (times.at(-1) - times[0])) * 1000,
      'ratio of limit (4 processes, 1 req/s, 30 s)',
      '>= 0.95',
    );
    record('redis_429_count', stats.refused, '429s (server count)', '== 0');
  } finally {
    await server.stop();
    await redis.stop();
  }
}
