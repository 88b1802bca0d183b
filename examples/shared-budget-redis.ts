/**
 * Several processes, one budget: three processes book tables for one partner at the same time,
 * against the standalone fake at the service's real limit (1 request per second per partner). Each
 * process has its own PartnerClient; createRedisRateLimiter makes them share the partner's budget
 * through Redis, so together they never exceed it and the service answers no 429.
 *
 *   npx tsx examples/shared-budget-redis.ts                                   # starts its own redis-server
 *   REDIS_URL=redis://localhost:6379 npx tsx examples/shared-budget-redis.ts  # your Redis or Valkey
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DateTime } from 'luxon';
import { Redis } from 'ioredis';
import { NoAvailabilityError, PartnerClient } from 'restaurant-partner-sdk';
import { createRedisRateLimiter } from 'restaurant-partner-sdk/redis';

const PROCESSES = 3;
const BOOKINGS_PER_PROCESS = 2;

if (process.env.BOOKING_PROCESS) await bookingProcess();
else await main();

/** One of the partner's processes (a web pod, a queue worker...): books its tables, reports, exits. */
async function bookingProcess() {
  const { BASE_URL, PARTNER_ID, API_TOKEN, REDIS_URL, RESTAURANT_ID, TIMEZONE, BOOKING_PROCESS } =
    process.env;
  const redis = new Redis(REDIS_URL!);
  const client = new PartnerClient({
    baseUrl: BASE_URL!,
    partnerId: PARTNER_ID!,
    apiToken: API_TOKEN!,
    // The one line that matters: this process's share of the partner's budget comes from Redis.
    rateLimit: createRedisRateLimiter({ redis, partnerId: PARTNER_ID! }),
    hooks: { onRateLimited: () => (rateLimited += 1) },
  });
  let rateLimited = 0;
  const index = Number(BOOKING_PROCESS);
  // Each process books on its own day, so the tables never run out.
  const date = DateTime.now()
    .setZone(TIMEZONE)
    .plus({ days: 1 + index })
    .toISODate()!;
  const times = ['12:00', '12:30', '13:00', '19:00', '19:30', '20:00'].slice(0, BOOKINGS_PER_PROCESS);
  const outcomes = await Promise.all(
    times.map((time) =>
      client.reservations
        .create(Number(RESTAURANT_ID), {
          start_time: { date, time },
          adults: 2,
          first_name: `Guest of process ${index}`,
        })
        .then(
          () => 'booked' as const,
          (error: unknown) => {
            if (error instanceof NoAvailabilityError) return 'full' as const;
            throw error;
          },
        ),
    ),
  );
  redis.disconnect();
  process.stdout.write(
    `${JSON.stringify({ booked: outcomes.filter((outcome) => outcome === 'booked').length, rateLimited })}\n`,
  );
}

/** Starts Redis (unless REDIS_URL is given) and the fake, runs the processes, prints each one's share. */
async function main() {
  const { startFakeServer } = await import('restaurant-partner-sdk/testing/node');
  // A throwaway redis-server on a free port (installed first where it can be); REDIS_URL skips it.
  const ownRedis = process.env.REDIS_URL
    ? undefined
    : await (await import('../scripts/redis-server.mjs')).startRedisServer();
  const redisUrl = process.env.REDIS_URL ?? ownRedis!.url;
  // The standalone fake over HTTP, at the service's limit of 1 request per second per partner.
  const server = await startFakeServer({ seed: 'demo', rateLimit: 1 });
  try {
    // One request first, so the server's own start-up work is behind it before the processes' requests count.
    await fetch(new URL('/api/v1/partnership/profile/', server.url)).then((response) =>
      response.body?.cancel(),
    );
    const partner = server.fake.describeSeed().partners[0]!;
    const restaurant = server.fake.describeSeed().restaurants[0]!;
    console.log(
      `${PROCESSES} processes booking for partner ${partner.partnerId.slice(0, 8)}... at 1 request/second, budget shared through ${redisUrl}\n`,
    );
    const started = Date.now();
    const reports = await Promise.all(
      Array.from({ length: PROCESSES }, (_, index) =>
        runProcess(index, {
          BASE_URL: server.url,
          PARTNER_ID: partner.partnerId,
          API_TOKEN: partner.apiToken,
          REDIS_URL: redisUrl,
          RESTAURANT_ID: String(restaurant.id),
          TIMEZONE: restaurant.timezone,
        }),
      ),
    );
    const total = reports.reduce((sum, report) => sum + report.booked, 0);
    for (const [index, report] of reports.entries()) {
      console.log(
        `  process ${index + 1}: ${report.booked} bookings (${Math.round((report.booked / total) * 100)} % of them), ${report.rateLimited} answered 429`,
      );
    }
    const rateLimited = reports.reduce((sum, report) => sum + report.rateLimited, 0);
    // Each process also looks up the restaurant's timezone once (for the local times): 1 request each.
    const requests = total + PROCESSES;
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `\n${total} bookings (${requests} requests) in ${seconds.toFixed(1)} s, ${rateLimited} 429 answers from the service.`,
    );
    if (total !== PROCESSES * BOOKINGS_PER_PROCESS) process.exitCode = 1;
  } finally {
    await server.close();
    await ownRedis?.stop();
  }
}

/** Runs this file again as a booking process and reads its one-line report. */
function runProcess(
  index: number,
  environment: Record<string, string>,
): Promise<{ booked: number; rateLimited: number }> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
    env: { ...process.env, ...environment, BOOKING_PROCESS: String(index) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(output.trim().split('\n').at(-1)!) as { booked: number; rateLimited: number })
        : reject(new Error(`booking process ${index + 1} exited with ${code}`)),
    ),
  );
}
