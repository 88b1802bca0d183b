/**
 * `restaurant-partner doctor --redis-url URL` waits on the partner's shared budget: run while
 * another process of the partner spends the same budget (through the same Redis), the two
 * together cause no 429 at a service limiting to 1 request/second. Real redis-server, real fake
 * server, doctor as a child process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient, silentLogger } from 'restaurant-partner-sdk';
import { createRedisRateLimiter } from 'restaurant-partner-sdk/redis';
import { DEMO_PARTNER } from 'restaurant-partner-sdk/testing';
import { startRedisServer, type TestRedis } from './support/redis-server.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = ['--import', 'tsx', 'src/bin/restaurant-partner.ts'];
let redis: TestRedis;
const children: ChildProcess[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await redis?.stop();
});

describe('doctor --redis-url', () => {
  it("shares the budget with the partner's other processes: no 429 between them", async () => {
    const fake = spawn(
      process.execPath,
      [...bin, 'fake', '--port', '0', '--quiet', '--seed', 'demo', '--rate-limit', '1'],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(fake);
    const [line] = await once(createInterface({ input: fake.stdout }), 'line');
    const { url } = JSON.parse(line as string);
    const doctor = spawn(
      process.execPath,
      [...bin, 'doctor', '--redis-url', redis.url, '--out', '/dev/null'],
      {
        cwd: root,
        env: {
          ...process.env,
          PARTNER_BASE_URL: url,
          PARTNER_ID: DEMO_PARTNER.partnerId,
          PARTNER_TOKEN: DEMO_PARTNER.apiToken,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(doctor);
    let stdout = '';
    doctor.stdout.on('data', (chunk) => (stdout += chunk));
    doctor.stderr.on('data', (chunk) => (stdout += chunk));
    // Another process of the partner, on the same budget, reading while doctor runs.
    const connection = new Redis(redis.url);
    const other = new PartnerClient({
      baseUrl: url,
      partnerId: DEMO_PARTNER.partnerId,
      apiToken: DEMO_PARTNER.apiToken,
      rateLimit: createRedisRateLimiter({
        redis: connection,
        partnerId: DEMO_PARTNER.partnerId,
        logger: silentLogger,
      }),
      logger: silentLogger,
      maxRetries: 0,
    });
    const exited = once(doctor, 'close');
    for (let read = 0; read < 5; read += 1) await other.profile.retrieve();
    const [code] = await exited;
    connection.disconnect();
    expect(code, stdout).toBe(0);
    const journal = (await (await fetch(`${url}/_fake/requests`)).json()) as {
      face: string;
      status: number;
    }[];
    const partner = journal.filter((entry) => entry.face === 'partner');
    const spent = Number(/(\d+) requests spent/.exec(stdout)![1]);
    expect(partner).toHaveLength(spent + 5);
    expect(partner.filter((entry) => entry.status === 429)).toEqual([]);
    fake.kill('SIGTERM');
  }, 90_000);
});
