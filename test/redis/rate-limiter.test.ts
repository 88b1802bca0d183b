import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimitQueueFullError, type Logger } from 'restaurant-partner-sdk';
import { createRedisRateLimiter, type RedisRateLimiter } from '../../src/redis/index.js';
import { grantSpacingMs } from '../../src/transport/throttle.js';
import { CLIENT_KINDS, connectClient, connectionsOf } from './support/clients.js';
import { startRedisServer, type TestRedis } from './support/redis-server.js';

// Real Redis, real time: these tests measure a real-time rate limit at 20 requests per second.

/** A logger that keeps what it is given. */
function recordingLogger() {
  const lines: { level: string; message: string }[] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: (message) => lines.push({ level: 'info', message }),
    warn: (message) => lines.push({ level: 'warn', message }),
    error: (message) => lines.push({ level: 'error', message }),
  };
  return { logger, lines };
}

/**
 * Waits for a slot and reports its request answered at once, as the client does when its request
 * ends: the next slot goes only once the request before it has ended a whole interval ago.
 */
async function send(limiter: RedisRateLimiter, options?: Parameters<RedisRateLimiter['acquire']>[0]) {
  const slot = await limiter.acquire(options);
  slot?.end('answered');
}

/** Runs `count` sends spread over `limiters` (all queued at once) and returns the grant times, sorted. */
async function grantTimes(limiters: RedisRateLimiter[], count: number): Promise<number[]> {
  const times: number[] = [];
  await Promise.all(
    Array.from({ length: count }, (_, index) =>
      send(limiters[index % limiters.length]!).then(() => times.push(performance.now())),
    ),
  );
  return times.sort((a, b) => a - b);
}

const gaps = (times: number[]) => times.slice(1).map((time, index) => time - times[index]!);

/** The most grants in any window of `windowMs` (sorted times): what a service counting per second sees. */
const mostInWindow = (times: number[], windowMs = 1000) =>
  Math.max(
    ...times.map((time, index) => times.filter((other, o) => o >= index && other < time + windowMs).length),
  );

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

describe.each(CLIENT_KINDS)('createRedisRateLimiter with %s', (kind) => {
  const connect = connectionsOf(kind, () => redis.url);

  it('two limiters of one partner, on two connections, share one budget: never more than the limit in a second', async () => {
    const partnerId = randomUUID();
    const rate = 20;
    const [a, b] = await Promise.all([connect(), connect()]);
    const limiters = [a, b].map(({ client }) =>
      createRedisRateLimiter({ redis: client, partnerId, requestsPerSecond: rate }),
    );
    const times = await grantTimes(limiters, 24);
    // Grants are spaced on the Redis clock. Seen here, each also carries its reply's trip back,
    // and a busy machine can hold two replies and hand them over together; but two limiters with
    // budgets of their own would grant 24 in about 0.6 s, twice the rate in every second.
    const mostInOneSecond = Math.max(
      ...times.map((start) => times.filter((at) => at >= start && at < start + 1000).length),
    );
    expect(mostInOneSecond).toBeLessThanOrEqual(rate + 1);
    const achieved = ((times.length - 2) / (times.at(-1)! - times[1]!)) * 1000;
    // Both are served and the budget is used, not starved. (The efficiency claim is measured at the
    // service's real 1 request per second, in processes.test.ts and the bench: at 20 per second
    // the margin left for polling is a single millisecond, so polling delays show here.)
    expect(achieved / rate).toBeGreaterThan(0.6);
    expect(achieved / rate).toBeLessThanOrEqual(1.05);
    expect(limiters.every((limiter) => limiter.shared)).toBe(true);
  });

  it('three limiters with calls always waiting take turns: each gets its share, never more than the limit in a second', async () => {
    const partnerId = randomUUID();
    const connections = await Promise.all([connect(), connect(), connect()]);
    const limiters = connections.map(({ client }) =>
      createRedisRateLimiter({ redis: client, partnerId, requestsPerSecond: 10 }),
    );
    const grants: { at: number; limiter: number }[] = [];
    const end = performance.now() + 3000;
    await Promise.all(
      limiters.flatMap((limiter, index) =>
        Array.from({ length: 3 }, async () => {
          while (performance.now() < end) {
            await send(limiter);
            grants.push({ at: performance.now(), limiter: index });
          }
        }),
      ),
    );
    const shares = [0, 1, 2].map((index) => grants.filter((grant) => grant.limiter === index).length);
    expect(Math.min(...shares) / Math.max(...shares), JSON.stringify(shares)).toBeGreaterThanOrEqual(0.75);
    const times = grants.map((grant) => grant.at).sort((a, b) => a - b);
    expect(mostInWindow(times)).toBeLessThanOrEqual(10);
  });

  it('an interactive call in one limiter goes before background calls waiting in four others', async () => {
    const partnerId = randomUUID();
    const connections = await Promise.all([connect(), connect(), connect(), connect(), connect()]);
    const [guest, ...busy] = connections.map(({ client }) =>
      createRedisRateLimiter({ redis: client, partnerId, requestsPerSecond: 5 }),
    );
    let stop = false;
    const background = busy.flatMap((limiter) =>
      Array.from({ length: 2 }, async () => {
        while (!stop) await send(limiter, { priority: 'background' });
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 700));
    const waits: number[] = [];
    for (let call = 0; call < 3; call++) {
      const asked = performance.now();
      await send(guest!, { priority: 'interactive' });
      waits.push(performance.now() - asked);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    stop = true;
    await Promise.all(background);
    // Within two slots (206 ms apart at 5 per second), however many background calls wait; 300 ms
    // more for timers on a loaded 2-core machine. Behind the four others' places it would be five.
    expect(Math.max(...waits), JSON.stringify(waits)).toBeLessThanOrEqual(2 * 206 + 300);
  });

  it('while Redis is paused, limiters that knew their slots keep pacing in them: no stall, never more than the limit in a second', async () => {
    const partnerId = randomUUID();
    const connections = await Promise.all([connect(), connect(), connect()]);
    const admin = await connect();
    const limiters = connections.map(({ client }) =>
      createRedisRateLimiter({
        redis: client,
        partnerId,
        requestsPerSecond: 10,
        commandTimeoutMs: 100,
        retryRedisAfterMs: 200,
        logger: recordingLogger().logger,
      }),
    );
    const times: number[] = [];
    const end = performance.now() + 4000;
    const paused = new Promise((resolve) => setTimeout(resolve, 1200)).then(() =>
      admin.command('CLIENT', 'PAUSE', '1500'),
    );
    await Promise.all([
      paused,
      ...limiters.flatMap((limiter) =>
        Array.from({ length: 3 }, async () => {
          while (performance.now() < end) {
            await send(limiter);
            times.push(performance.now());
          }
        }),
      ),
    ]);
    times.sort((a, b) => a - b);
    expect(mostInWindow(times)).toBeLessThanOrEqual(10);
    // The pause stalls nobody: the longest gap is where the limiters find Redis gone (a command
    // timing out, 100 ms), wait for what went in the queue to have reached the service a window
    // ago (102 ms + 50 ms), and take their next even slot (three slots, 309 ms, at most).
    expect(Math.max(...gaps(times))).toBeLessThanOrEqual(100 + 102 + 50 + 3 * 103 + 50);
  });

  it('different partners have separate budgets', async () => {
    const { client } = await connect();
    const first = createRedisRateLimiter({ redis: client, partnerId: randomUUID(), requestsPerSecond: 0.2 });
    const second = createRedisRateLimiter({ redis: client, partnerId: randomUUID(), requestsPerSecond: 0.2 });
    // A new budget's first grant waits one window and a half (a request may have just gone before
    // its state was lost): 5.5 s at 0.2 per second. One shared budget would hold the second for
    // five seconds more.
    const started = performance.now();
    await Promise.all([send(first), send(second)]);
    expect(performance.now() - started).toBeLessThan(8000);
  }, 20_000);

  it('keeps its keys under keyPrefix, with the partner as a cluster hash tag, and lets them expire', async () => {
    const partnerId = randomUUID();
    const connection = await connect();
    const limiter = createRedisRateLimiter({
      redis: connection.client,
      partnerId,
      keyPrefix: 'my-app:budget:',
    });
    await send(limiter);
    const key = `my-app:budget:{${partnerId}}:lattice`;
    expect(Number(await connection.command('PTTL', key))).toBeGreaterThan(0);
    // A minute: a lattice found empty costs the next grant a wait.
    expect(Number(await connection.command('PTTL', key))).toBeLessThanOrEqual(60_000);
  });

  it('a 429 seen by one process pauses every process of the partner', async () => {
    const partnerId = randomUUID();
    const [a, b] = await Promise.all([connect(), connect()]);
    const one = createRedisRateLimiter({ redis: a.client, partnerId, requestsPerSecond: 50 });
    const other = createRedisRateLimiter({ redis: b.client, partnerId, requestsPerSecond: 50 });
    await one.acquire();
    const started = performance.now();
    await one.pause(600);
    await other.acquire();
    expect(performance.now() - started).toBeGreaterThanOrEqual(550);
  });

  it('a waiting call cancelled by its signal rejects at once and frees its place for the next', async () => {
    const partnerId = randomUUID();
    const { client } = await connect();
    const limiter = createRedisRateLimiter({ redis: client, partnerId, requestsPerSecond: 2 });
    await send(limiter);
    const grantedAt = performance.now();
    const controller = new AbortController();
    const cancelled = limiter.acquire({ signal: controller.signal });
    const next = send(limiter).then(() => performance.now() - grantedAt);
    expect(limiter.queueDepth).toBe(2);
    controller.abort(new Error('caller gave up'));
    await expect(cancelled).rejects.toThrow('caller gave up');
    expect(limiter.queueDepth).toBe(1);
    // The next call takes the cancelled call's slot (about 0.5 s plus margins), not the one after.
    expect(await next).toBeLessThan(grantSpacingMs(2) * 2 - 100);
  });

  it('refuses a call beyond maxQueue with a typed error', async () => {
    const { client } = await connect();
    const limiter = createRedisRateLimiter({
      redis: client,
      partnerId: randomUUID(),
      requestsPerSecond: 0.5,
      maxQueue: 1,
      logger: recordingLogger().logger,
    });
    await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire({ signal: controller.signal });
    await expect(limiter.acquire()).rejects.toBeInstanceOf(RateLimitQueueFullError);
    controller.abort(new Error('done'));
    await expect(waiting).rejects.toThrow('done');
  });
});

describe.each(CLIENT_KINDS)('createRedisRateLimiter when Redis is unreachable (%s)', (kind) => {
  it('paces alone at the fallback rate, warns once, and rejoins the shared budget when Redis is back', async () => {
    const own = await startRedisServer();
    const connection = await connectClient(kind, own.url);
    try {
      const { logger, lines } = recordingLogger();
      const limiter = createRedisRateLimiter({
        redis: connection.client,
        partnerId: randomUUID(),
        requestsPerSecond: 40,
        logger,
        retryRedisAfterMs: 200,
      });
      await send(limiter);
      expect(limiter.shared).toBe(true);
      await own.stop({ crash: true });
      // Bookings keep working: every call is granted, each within a bounded wait.
      const started = performance.now();
      const times = await grantTimes([limiter], 6);
      expect(limiter.shared).toBe(false);
      // Conservative: a quarter of the rate (40 / 4 = 10 per second), so 100 ms apart. Timers and
      // Date.now() count whole milliseconds, and each may round a gap down by up to 1 ms.
      expect(Math.min(...gaps(times))).toBeGreaterThanOrEqual(1000 / 10 - 2);
      // It knew the budget was shared but had no slot of its own (no call was waiting): it waits
      // ten tries at Redis (2 s here) before it paces on its own.
      expect(performance.now() - started).toBeLessThan(4500);
      expect(lines.filter((line) => line.level === 'warn')).toHaveLength(1);
      expect(lines[0]!.message).toMatch(/Redis is unreachable/);

      await own.start();
      for (let attempt = 0; attempt < 40 && !limiter.shared; attempt++) await send(limiter);
      expect(limiter.shared).toBe(true);
      expect(lines.filter((line) => line.level === 'warn')).toHaveLength(1);
      expect(lines.at(-1)).toMatchObject({
        level: 'info',
        message: expect.stringMatching(/reachable again/),
      });
    } finally {
      await connection.close();
      await own.stop();
    }
  });

  it('no call waits on a dead connection past its signal', async () => {
    const own = await startRedisServer();
    const connection = await connectClient(kind, own.url);
    try {
      await own.stop({ crash: true });
      const limiter = createRedisRateLimiter({
        redis: connection.client,
        partnerId: randomUUID(),
        logger: recordingLogger().logger,
        commandTimeoutMs: 5000,
      });
      const started = performance.now();
      await expect(limiter.acquire({ signal: AbortSignal.timeout(100) })).rejects.toMatchObject({
        name: 'TimeoutError',
      });
      expect(performance.now() - started).toBeLessThan(1000);
    } finally {
      await connection.close();
      await own.stop();
    }
  });
});

describe('createRedisRateLimiter options', () => {
  it('names the field when an option is wrong', () => {
    const redis = { evalsha: async () => 0, eval: async () => 0 };
    expect(() => createRedisRateLimiter({ redis, partnerId: '' })).toThrow(/partnerId/);
    expect(() => createRedisRateLimiter({ redis, partnerId: 'p', requestsPerSecond: 0 })).toThrow(
      /requestsPerSecond/,
    );
    expect(() => createRedisRateLimiter({ redis, partnerId: 'p', maxQueue: 0 })).toThrow(/maxQueue/);
    expect(() => createRedisRateLimiter({ redis: {} as never, partnerId: 'p' })).toThrow(
      /ioredis .* node-redis/,
    );
  });
});
