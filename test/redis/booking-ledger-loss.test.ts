/**
 * The Redis booking ledger never forgets a send, on a real redis-server with ioredis and node-redis:
 * a Redis that lost the ledger's keys (FLUSHALL, FLUSHDB, restarted empty) holds every key it no
 * longer knows for one hold instead of reading it as new, for every ledger that had seen it, and
 * a holder process frozen (SIGSTOP) past its lease leaves its key held as ambiguous, not free.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BookingLedgerClaim } from '../../src/lib/booking-ledger.js';
import { createRedisBookingLedger } from 'restaurant-partner-sdk/redis';
import { FakeClock } from 'restaurant-partner-sdk/testing';
import { startHostileServer, wellBehaved } from '../support/hostile-server.js';
import { CLIENT_KINDS, connectionsOf } from './support/clients.js';
import { startLedgerProcess } from './support/ledger-processes.js';
import { startRedisServer, type TestRedis } from './support/redis-server.js';

const HOLD_MS = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// A server of its own: these tests flush and restart it.
let own: TestRedis;
beforeAll(async () => {
  own = await startRedisServer();
});
afterAll(async () => {
  await own?.stop();
});

describe.each(CLIENT_KINDS)("a Redis that lost the ledger's keys, with %s", (kind) => {
  const connect = connectionsOf(kind, () => own.url);
  const warnings: string[] = [];
  const logger = { warn: (message: string) => void warnings.push(message), error: () => undefined };
  const ledgerOn = async (keyPrefix: string) =>
    createRedisBookingLedger({ redis: (await connect()).client, keyPrefix, logger });
  const claimOf = (
    token: string,
    now: number,
    extra: Partial<BookingLedgerClaim> = {},
  ): BookingLedgerClaim => ({
    token,
    fingerprint: 'fp',
    leaseMs: 5_000,
    holdMs: HOLD_MS,
    now,
    ...extra,
  });
  afterEach(() => void warnings.splice(0));

  it('FLUSHALL between two claims: every key with no entry is held for one hold from the moment a ledger noticed, for every ledger; random keys pass; after the hold, claims pass', async () => {
    const keyPrefix = `test:${kind}:flush:`;
    const [first, second] = [await ledgerOn(keyPrefix), await ledgerOn(keyPrefix)];
    const t = Date.now();
    expect(await first.claim('booked-before', claimOf('a', t))).toBeUndefined();
    await first.settle(
      'booked-before',
      'a',
      { state: 'booked', fingerprint: 'fp', reservationId: '3' },
      60_000,
    );
    expect(await second.claim('running-before', claimOf('b', t))).toBeUndefined();
    await own.command('FLUSHALL');
    // The same key, from the other ledger: its booking is gone, and it is not read as new.
    const lostAt = t + 1_000;
    const held = { state: 'ambiguous', fingerprint: 'fp', until: lostAt + HOLD_MS };
    expect(await second.claim('booked-before', claimOf('c', lostAt))).toEqual(held);
    // Another key, from the first ledger: held from the same moment, though this ledger noticed nothing itself.
    expect(await first.claim('never-seen', claimOf('d', lostAt + 500))).toEqual(held);
    expect(await first.claim('running-before', claimOf('d', lostAt + 500))).toEqual(held);
    // A ledger that starts after the loss holds keys as well (the marker says when it was noticed).
    const third = await ledgerOn(keyPrefix);
    expect(await third.claim('never-seen', claimOf('e', lostAt + 600))).toEqual(held);
    // A random key cannot have been used before: it is not held.
    expect(await first.claim('random-key', claimOf('f', lostAt + 700, { fresh: true }))).toBeUndefined();
    // Once the hold is over, claims pass.
    expect(await second.claim('never-seen', claimOf('g', lostAt + HOLD_MS))).toBeUndefined();
    expect(await third.claim('booked-before', claimOf('h', lostAt + HOLD_MS))).toBeUndefined();
    expect(warnings.filter((line) => /Redis lost the booking ledger/.test(line))).toHaveLength(2);
  });

  it('a ledger idle through a loss another one noticed takes the loss as noticed: once its hold is over, claims pass', async () => {
    const keyPrefix = `test:${kind}:idle:`;
    const connection = await connect();
    const [busy, idle] = [await ledgerOn(keyPrefix), await ledgerOn(keyPrefix)];
    const t = Date.now();
    expect(await busy.claim('one', claimOf('a', t))).toBeUndefined();
    expect(await idle.claim('two', claimOf('b', t))).toBeUndefined();
    await own.command('FLUSHALL');
    const lostAt = t + 1_000;
    expect((await busy.claim('three', claimOf('c', lostAt)))?.state).toBe('ambiguous');
    // The idle ledger comes back long after: the loss it missed is over, not a new one.
    expect(await idle.claim('four', claimOf('d', lostAt + 2 * HOLD_MS))).toBeUndefined();
    expect(await connection.command('HGET', `${keyPrefix}marker`, 'lostAt')).toBe(String(lostAt));
    expect(await busy.claim('five', claimOf('e', lostAt + HOLD_MS))).toBeUndefined();
  });

  it('a ledger learns the marker when it is made: a FLUSHDB before its first claim is noticed', async () => {
    const keyPrefix = `test:${kind}:eager:`;
    const connection = await connect();
    const ledger = createRedisBookingLedger({ redis: connection.client, keyPrefix, logger });
    await expect.poll(() => connection.command('HGET', `${keyPrefix}marker`, 'id')).toBeTruthy();
    await sleep(50);
    await own.command('FLUSHDB');
    const now = Date.now();
    expect(await ledger.claim('slot', claimOf('a', now))).toEqual({
      state: 'ambiguous',
      fingerprint: 'fp',
      until: now + HOLD_MS,
    });
  });

  it('a brand-new Redis, seen by ledgers that knew no marker, holds nothing', async () => {
    const keyPrefix = `test:${kind}:brand-new:`;
    const [first, second] = [await ledgerOn(keyPrefix), await ledgerOn(keyPrefix)];
    const now = Date.now();
    expect(await first.claim('one', claimOf('a', now))).toBeUndefined();
    expect(await second.claim('two', claimOf('b', now))).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('a holder renewing finds its entry gone: it writes it back and marks the loss, so other keys are held', async () => {
    const keyPrefix = `test:${kind}:renew-lost:`;
    const [holder, other] = [await ledgerOn(keyPrefix), await ledgerOn(keyPrefix)];
    const t = Date.now();
    expect(await holder.claim('mine', claimOf('holder', t))).toBeUndefined();
    await own.command('FLUSHALL');
    // The holder renews first (before any other ledger notices): now = until - lease - hold.
    const renewedAt = t + 1_000;
    expect(await holder.renew('mine', 'holder', 5_000, renewedAt + 5_000 + HOLD_MS)).toBe(true);
    expect(await other.claim('mine', claimOf('other', renewedAt))).toEqual({
      state: 'running',
      fingerprint: 'fp',
      token: 'holder',
      until: renewedAt + 5_000 + HOLD_MS,
    });
    expect(await other.claim('not-mine', claimOf('other', renewedAt + 1))).toEqual({
      state: 'ambiguous',
      fingerprint: 'fp',
      until: renewedAt + HOLD_MS,
    });
    expect(await other.claim('not-mine', claimOf('other', renewedAt + HOLD_MS))).toBeUndefined();
  });

  it('Redis back from an older copy (the marker kept, its write count behind, later entries gone): a ledger that saw the later writes holds unknown keys', async () => {
    const keyPrefix = `test:${kind}:older-copy:`;
    const connection = await connect();
    const [ledger, other] = [await ledgerOn(keyPrefix), await ledgerOn(keyPrefix)];
    const t = Date.now();
    const booked = (id: string) => ({ state: 'booked' as const, fingerprint: 'fp', reservationId: id });
    expect(await ledger.claim('early', claimOf('a', t))).toBeUndefined();
    await ledger.settle('early', 'a', booked('1'), 60_000);
    const snapshotSeq = String(await connection.command('HGET', `${keyPrefix}marker`, 'seq'));
    expect(await ledger.claim('late', claimOf('b', t))).toBeUndefined();
    await ledger.settle('late', 'b', booked('2'), 60_000);
    // Restarted from a snapshot taken between the two bookings (RDB, or an AOF missing its last second).
    await connection.command('DEL', `${keyPrefix}late`);
    await connection.command('HSET', `${keyPrefix}marker`, 'seq', snapshotSeq);
    const lostAt = t + 1_000;
    const held = { state: 'ambiguous', fingerprint: 'fp', until: lostAt + HOLD_MS };
    expect(await ledger.claim('late', claimOf('c', lostAt))).toEqual(held);
    expect(await other.claim('another', claimOf('d', lostAt))).toEqual(held);
    // What the older copy kept still answers as before.
    expect(await other.claim('early', claimOf('e', lostAt))).toEqual(booked('1'));
  });

  it('redis-server restarted empty (no persistence) under a ledger: keys are held for one hold, then pass', async () => {
    const keyPrefix = `test:${kind}:restart:`;
    const ledger = await ledgerOn(keyPrefix);
    const t = Date.now();
    expect(await ledger.claim('before', claimOf('a', t))).toBeUndefined();
    await ledger.settle('before', 'a', { state: 'booked', fingerprint: 'fp', reservationId: '5' }, 60_000);
    await own.outage(200);
    // The client reconnects on its own; until it has, the ledger fails closed (the claim throws).
    const lostAt = t + 2_000;
    const answer = await eventually(() => ledger.claim('before', claimOf('b', lostAt)));
    expect(answer).toEqual({ state: 'ambiguous', fingerprint: 'fp', until: lostAt + HOLD_MS });
    expect(await ledger.claim('other', claimOf('c', lostAt + HOLD_MS - 1))).toEqual({
      state: 'ambiguous',
      fingerprint: 'fp',
      until: lostAt + HOLD_MS,
    });
    expect(await ledger.claim('random', claimOf('d', lostAt, { fresh: true }))).toBeUndefined();
    expect(await ledger.claim('other', claimOf('e', lostAt + HOLD_MS))).toBeUndefined();
  });

  it("warns once when Redis may evict the ledger's keys (maxmemory-policy), not under noeviction", async () => {
    await ledgerOn(`test:${kind}:policy-ok:`);
    await sleep(200);
    expect(warnings).toEqual([]);
    await own.command('CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lru');
    try {
      await ledgerOn(`test:${kind}:policy:`);
      await expect.poll(() => warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/maxmemory-policy is allkeys-lru.*noeviction/);
    } finally {
      await own.command('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
    }
  });
});

/** Calls `attempt` until it resolves (the Redis client is reconnecting), for up to 10 s. */
async function eventually<T>(attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(100);
    }
  }
}

/** Starts test/redis/support/ledger-process.mjs with `env` on this file's Redis. */
const startProcess = (env: Record<string, string>) => startLedgerProcess(own.url, env);

describe('a holder process frozen past its lease (SIGSTOP)', () => {
  const connect = connectionsOf('ioredis', () => own.url);

  it("another process's claim reads its key as an ambiguous hold, not as free; thawed, the holder keeps its claim until it is taken over", async () => {
    const leaseMs = 600;
    const { child, nextLine, lines, exited } = startProcess({
      REDIS_CLIENT: 'node-redis',
      KEY_PREFIX: 'test:frozen:',
      MODE: 'hold',
      SLOT: 'slot',
      LEASE_MS: String(leaseMs),
      HOLD_MS: String(HOLD_MS),
    });
    try {
      await nextLine((line) => line === 'ready');
      child.stdin.write('go\n');
      const claimed = JSON.parse(await nextLine((line) => line.includes('claimed'))) as { claimed: boolean };
      expect(claimed.claimed).toBe(true);
      // Let it renew a few times, then freeze it.
      await nextLine((line) => line.includes('"renewed":true'));
      await nextLine((line) => line.includes('"renewed":true'));
      child.kill('SIGSTOP');
      const frozenAt = Date.now();
      lines.splice(0);
      const ledger = createRedisBookingLedger({ redis: (await connect()).client, keyPrefix: 'test:frozen:' });
      const claim = { token: 'second', fingerprint: 'fp', leaseMs: 5_000, holdMs: HOLD_MS };
      // Still live: the second process waits for it.
      expect((await ledger.claim('slot', { ...claim, now: Date.now() }))?.state).toBe('running');
      await sleep(leaseMs * 2);
      const answer = await ledger.claim('slot', { ...claim, now: Date.now() });
      expect(answer?.state).toBe('ambiguous');
      const until = (answer as { until: number }).until;
      // Its until is the one the holder wrote at its last renewal, a lease and a hold after it.
      expect(until).toBeGreaterThan(frozenAt - leaseMs + HOLD_MS);
      expect(until).toBeLessThanOrEqual(frozenAt + leaseMs + HOLD_MS);
      // Thawed, nobody took the key over: its renewal holds.
      child.kill('SIGCONT');
      expect(JSON.parse(await nextLine((line) => line.includes('renewed')))).toMatchObject({ renewed: true });
      await sleep(leaseMs * 2);
      child.kill('SIGSTOP');
      await sleep(leaseMs * 2);
      // Past the hold (on the claimer's clock), the key is taken over; the thawed holder's renewal is refused.
      const later = Date.now() + 2 * HOLD_MS;
      expect(await ledger.claim('slot', { ...claim, now: later })).toBeUndefined();
      lines.splice(0);
      child.kill('SIGCONT');
      expect(JSON.parse(await nextLine((line) => line.includes('renewed')))).toMatchObject({
        renewed: false,
      });
      await exited();
    } finally {
      if (child.exitCode === null) {
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      }
    }
  }, 60_000);
});

describe('a worker killed or frozen mid-create, its POST committing late', () => {
  for (const signal of ['SIGKILL', 'SIGSTOP'] as const) {
    it(`${signal} after the POST left: the next worker's repeat sends nothing and is told AmbiguousCreateError; once the booking commits, a repeat returns it: one booking`, async () => {
      const clock = new FakeClock({ frozen: true });
      // The origin takes the POST and never answers; the booking commits when the test says.
      const server = await startHostileServer(clock, (request, tools) => {
        if (request.method === 'POST') return tools.commitLater(request, 60_000);
        return wellBehaved(request, tools);
      });
      const worker = () =>
        startProcess({
          REDIS_CLIENT: 'ioredis',
          KEY_PREFIX: `test:worker-${signal}:`,
          MODE: 'create',
          BASE_URL: server.url,
          PARTNER_ID: '7e6d5c4b-3a2f-4e1d-9c8b-7a6f5e4d3c2b',
          API_TOKEN: 'booking-ledger-token-1a2b3c4d5e',
          KEY: `order-${signal}`,
        });
      const create = async () => {
        const next = worker();
        await next.nextLine((line) => line === 'ready');
        next.child.stdin.write('go\n');
        // A worker that sent its own POST waits on the silent origin: it is stopped, and says so.
        const line = await next.nextLine((text) => text.startsWith('{'), 15_000).catch(() => undefined);
        if (line === undefined) next.child.kill('SIGKILL');
        await next.exited();
        return (line ? JSON.parse(line) : { error: 'no answer (its own POST is waiting)' }) as {
          id?: number;
          error?: string;
        };
      };
      const first = worker();
      try {
        await first.nextLine((line) => line === 'ready');
        first.child.stdin.write('go\n');
        await expect.poll(() => server.posts().length, { timeout: 20_000 }).toBe(1);
        first.child.kill(signal);
        // Past the first worker's lease (3 s): its claim lapsed after its fence.
        await sleep(4_500);
        const second = await create();
        expect(server.posts()).toHaveLength(1);
        expect(second.error).toBe('AmbiguousCreateError');
        // The origin commits; the next repeat finds the booking by its key.
        await clock.advance(60_000);
        server.commitDue();
        const third = await create();
        expect(third).toEqual({ id: server.bookings[0]!.id });
        expect(server.posts()).toHaveLength(1);
        expect(server.bookings).toHaveLength(1);
      } finally {
        first.child.kill('SIGCONT');
        first.child.kill('SIGKILL');
        await server.close();
      }
    }, 60_000);
  }
});
