/**
 * A crash stalls nobody for long: a create repeated with the same key right after its worker was
 * SIGKILLed (after its POST, or while it looked the key up before sending) sends its first
 * request within 5 s of starting, as the claim's 3 s lease lapses. Real worker processes sharing
 * a Redis booking ledger, against a server that ignores Idempotency-Key; measured in real time,
 * so it runs in the real-time lane.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from 'restaurant-partner-sdk/testing';
import { startHostileServer, wellBehaved, type HostileRequest } from '../support/hostile-server.js';
import { startLedgerProcess } from './support/ledger-processes.js';
import { startRedisServer, type TestRedis } from './support/redis-server.js';

const BOUND_MS = 5_000;
const PARTNER_ID = '2b4d6f8a-1c3e-4a5b-8d7f-9e0a1b2c3d4e';
const API_TOKEN = 'crash-recovery-token-5e6f7a8b';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedisServer();
}, 60_000);
afterAll(async () => {
  await redis?.stop();
});

const isList = (request: HostileRequest) =>
  request.method === 'GET' && request.path.endsWith('/reservations/');

describe('a create repeated right after its worker was SIGKILLed', () => {
  for (const when of ['after its POST left', 'while it looked the key up']) {
    it(`${when}: the repeat sends its first request within 5 s of starting, and books at most once`, async () => {
      const clock = new FakeClock({ frozen: true });
      let victimDone = false;
      const firstRequestAt: number[] = [];
      const server = await startHostileServer(clock, (request, tools) => {
        // What counts is the key's first request (a look-up or the create), not the timezone read.
        if (victimDone && (isList(request) || request.method === 'POST')) firstRequestAt.push(Date.now());
        if (!victimDone && when === 'after its POST left' && request.method === 'POST')
          return tools.commitLater(request, 60_000); // never answered: the worker dies waiting
        if (!victimDone && when === 'while it looked the key up' && isList(request)) return undefined;
        return wellBehaved(request, tools);
      });
      const env = {
        REDIS_CLIENT: 'ioredis',
        KEY_PREFIX: `test:crash-${when.length}:`,
        MODE: 'create',
        BASE_URL: server.url,
        PARTNER_ID,
        API_TOKEN,
        KEY: 'order-crash',
      };
      const victim = startLedgerProcess(redis.url, env);
      const repeat = startLedgerProcess(redis.url, env);
      try {
        await Promise.all([
          victim.nextLine((line) => line === 'ready'),
          repeat.nextLine((line) => line === 'ready'),
        ]);
        victim.child.stdin.write('go\n');
        const reached =
          when === 'after its POST left'
            ? () => server.posts().length
            : () => server.requests.filter(isList).length;
        await expect.poll(reached, { timeout: 20_000 }).toBeGreaterThan(0);
        victim.child.kill('SIGKILL');
        await victim.exited();
        victimDone = true;
        const startedAt = Date.now();
        repeat.child.stdin.write('go\n');
        const outcome = JSON.parse(await repeat.nextLine((line) => line.startsWith('{'), 30_000)) as {
          id?: number;
          error?: string;
        };
        const firstMs = (firstRequestAt[0] ?? Number.POSITIVE_INFINITY) - startedAt;
        console.info(
          `SIGKILL ${when}: the repeat's first request ${firstMs} ms after it started; told ${outcome.error ?? `#${outcome.id}`}`,
        );
        expect(firstMs).toBeLessThan(BOUND_MS);
        if (when === 'after its POST left') {
          // The first may still commit: held, nothing sent.
          expect(outcome.error).toBe('AmbiguousCreateError');
          expect(server.posts()).toHaveLength(1);
        } else {
          // Nothing was sent: the key is free once the lease lapsed, and the repeat books.
          expect(outcome.id).toBe(server.bookings[0]?.id);
          expect(server.bookings).toHaveLength(1);
        }
      } finally {
        for (const each of [victim, repeat]) if (each.child.exitCode === null) each.child.kill('SIGKILL');
        await server.close();
      }
    }, 60_000);
  }
});
