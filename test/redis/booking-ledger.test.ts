/**
 * The booking ledger in a real redis-server, with ioredis and node-redis: its claims, leases and
 * outcomes; two clients on their own connections (as two processes) sharing one key; the
 * recovery after AmbiguousCreateError across them; Redis unreachable failing closed; and two real
 * processes creating with one key at the same moment. Bookings on the server are counted against
 * what the clients reported.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AmbiguousCreateError, BookingLedgerUnavailableError, PartnerClient } from 'restaurant-partner-sdk';
import { type BookingLedgerEntry } from '../../src/lib/booking-ledger.js';
import { createRedisBookingLedger } from 'restaurant-partner-sdk/redis';
import { FakeClock } from 'restaurant-partner-sdk/testing';
import {
  startHostileServer,
  slowCreate,
  wellBehaved,
  type HostileHandler,
  type HostileServer,
} from '../support/hostile-server.js';
import { CLIENT_KINDS, connectClient, connectionsOf } from './support/clients.js';
import { startRedisServer, type TestRedis } from './support/redis-server.js';

const PARTNER_ID = '7e6d5c4b-3a2f-4e1d-9c8b-7a6f5e4d3c2b';
const API_TOKEN = 'booking-ledger-token-1a2b3c4d5e';
const input = { start_time: '2026-12-05T19:30:00', adults: 2 };
const HOLD_MS = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const report: string[] = [];

let redis: TestRedis;
const servers: HostileServer[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
afterAll(async () => {
  await redis?.stop();
  console.info(
    `booking ledger in Redis, bookings on the server vs what the clients reported:\n${report.join('\n')}`,
  );
});

async function serve(handler: HostileHandler, clock = new FakeClock({ frozen: true })) {
  const server = await startHostileServer(clock, handler);
  servers.push(server);
  return server;
}

describe.each(CLIENT_KINDS)('createRedisBookingLedger with %s', (kind) => {
  const connect = connectionsOf(kind, () => redis.url);

  it('claims a key once, renews only its own claim, keeps outcomes, refuses another fingerprint', async () => {
    const connection = await connect();
    const keyPrefix = `test:${kind}:ledger:`;
    const ledger = createRedisBookingLedger({ redis: connection.client, keyPrefix });
    const claim = { token: 'first', fingerprint: 'fp-1', leaseMs: 5_000, holdMs: HOLD_MS, now: Date.now() };
    expect(await ledger.claim('slot', claim)).toBeUndefined();
    // The lease lapses on the Redis server's clock; the entry stays for the hold a lapse starts.
    const leaseTtl = Number(await connection.command('PTTL', `${keyPrefix}lease:slot`));
    expect(leaseTtl).toBeGreaterThan(0);
    expect(leaseTtl).toBeLessThanOrEqual(5_000);
    const entryTtl = Number(await connection.command('PTTL', `${keyPrefix}slot`));
    expect(entryTtl).toBeGreaterThan(HOLD_MS);
    expect(entryTtl).toBeLessThanOrEqual(HOLD_MS + 5_000);
    expect(await ledger.claim('slot', { ...claim, token: 'second' })).toEqual({
      state: 'running',
      fingerprint: 'fp-1',
      token: 'first',
      // Nothing sent yet: until is the claim's now until the holder's fence.
      until: claim.now,
    });
    expect(await ledger.renew('slot', 'second', 5_000, claim.now + 1)).toBe(false);
    expect(await ledger.renew('slot', 'first', 5_000, claim.now + 7_000 + HOLD_MS)).toBe(true);
    expect((await ledger.claim('slot', { ...claim, token: 'second' }))?.state).toBe('running');
    // Another claimer's outcome never overwrites a running create.
    await ledger.settle(
      'slot',
      'second',
      { state: 'booked', fingerprint: 'fp-1', reservationId: '9' },
      60_000,
    );
    expect((await ledger.claim('slot', { ...claim, token: 'third' }))?.state).toBe('running');
    await ledger.settle(
      'slot',
      'first',
      { state: 'booked', fingerprint: 'fp-1', reservationId: '41' },
      60_000,
    );
    expect(await ledger.claim('slot', { ...claim, token: 'third' })).toEqual({
      state: 'booked',
      fingerprint: 'fp-1',
      reservationId: '41',
    });
    // Another fingerprint sees the entry (and the client refuses the key for another booking).
    expect(await ledger.claim('slot', { ...claim, token: 'fourth', fingerprint: 'fp-2' })).toMatchObject({
      fingerprint: 'fp-1',
    });
  });

  it('an ambiguous hold stops claims until its time, then lets one through; a release frees the key', async () => {
    const connection = await connect();
    const ledger = createRedisBookingLedger({ redis: connection.client, keyPrefix: `test:${kind}:hold:` });
    const now = Date.now();
    const claim = { fingerprint: 'fp', leaseMs: 5_000, holdMs: HOLD_MS };
    expect(await ledger.claim('held', { ...claim, token: 'a', now })).toBeUndefined();
    const hold: BookingLedgerEntry = { state: 'ambiguous', fingerprint: 'fp', until: now + 60_000 };
    await ledger.settle('held', 'a', hold, 120_000);
    expect(await ledger.claim('held', { ...claim, token: 'b', now: now + 59_000 })).toEqual(hold);
    expect(await ledger.claim('held', { ...claim, token: 'b', now: now + 60_000 })).toBeUndefined();
    // A release by anyone else leaves the claim; the holder's own release frees the key.
    await ledger.settle('held', 'c', undefined, 0);
    expect((await ledger.claim('held', { ...claim, token: 'c', now }))?.state).toBe('running');
    await ledger.settle('held', 'b', undefined, 0);
    expect(await ledger.claim('held', { ...claim, token: 'c', now })).toBeUndefined();
  });

  it('a claim whose lease lapsed is an ambiguous hold until its until, never "never sent"; then one claim takes it and the old holder can no longer renew', async () => {
    const connection = await connect();
    const ledger = createRedisBookingLedger({ redis: connection.client, keyPrefix: `test:${kind}:lapse:` });
    const now = Date.now();
    const claim = { fingerprint: 'fp', leaseMs: 150, holdMs: HOLD_MS, now };
    expect(await ledger.claim('slot', { ...claim, token: 'frozen' })).toBeUndefined();
    // The holder renews once (moving its until), then stops: it froze or died.
    const until = now + 1_000 + HOLD_MS;
    expect(await ledger.renew('slot', 'frozen', 150, until)).toBe(true);
    await sleep(400);
    const taker = { ...claim, token: 'taker', leaseMs: 5_000 };
    expect(await ledger.claim('slot', { ...taker, now: now + 1_000 })).toEqual({
      state: 'ambiguous',
      fingerprint: 'fp',
      until,
    });
    expect(await ledger.claim('slot', { ...taker, now: until - 1 })).toEqual({
      state: 'ambiguous',
      fingerprint: 'fp',
      until,
    });
    // Another booking under the key is still refused, as for a live claim.
    expect(await ledger.claim('slot', { ...taker, fingerprint: 'fp-2', now: until })).toMatchObject({
      fingerprint: 'fp',
    });
    expect(await ledger.claim('slot', { ...taker, now: until })).toBeUndefined();
    expect(await ledger.renew('slot', 'frozen', 150, until + 5_000)).toBe(false);
    // The old holder's outcome does not overwrite the taker's live claim.
    await ledger.settle('slot', 'frozen', { state: 'booked', fingerprint: 'fp', reservationId: '7' }, 60_000);
    expect((await ledger.claim('slot', { ...taker, token: 'third', now: until }))?.state).toBe('running');
  });

  it('a claim that lapsed before its fence (nothing sent) frees the key at once', async () => {
    const connection = await connect();
    const ledger = createRedisBookingLedger({
      redis: connection.client,
      keyPrefix: `test:${kind}:unfenced:`,
    });
    const now = Date.now();
    const claim = { fingerprint: 'fp', leaseMs: 150, holdMs: HOLD_MS, now };
    expect(await ledger.claim('slot', { ...claim, token: 'gone' })).toBeUndefined();
    await sleep(400);
    expect(await ledger.claim('slot', { ...claim, token: 'next', leaseMs: 5_000 })).toBeUndefined();
    expect(await ledger.renew('slot', 'gone', 150, now)).toBe(false);
  });

  it("an outcome may overwrite a lapsed claim but never a live one; a look-up's booking (no token) too", async () => {
    const connection = await connect();
    const ledger = createRedisBookingLedger({ redis: connection.client, keyPrefix: `test:${kind}:over:` });
    const now = Date.now();
    const booked: BookingLedgerEntry = { state: 'booked', fingerprint: 'fp', reservationId: '12' };
    expect(
      await ledger.claim('slot', { token: 'holder', fingerprint: 'fp', leaseMs: 200, holdMs: HOLD_MS, now }),
    ).toBeUndefined();
    // The holder's fence before it sends: a lapse from now on is a hold.
    expect(await ledger.renew('slot', 'holder', 200, now + 200 + HOLD_MS)).toBe(true);
    await ledger.settle('slot', undefined, booked, 60_000);
    const probe = { token: 'probe', fingerprint: 'fp', leaseMs: 5_000, holdMs: HOLD_MS, now };
    expect((await ledger.claim('slot', probe))?.state).toBe('running');
    await sleep(400);
    expect((await ledger.claim('slot', probe))?.state).toBe('ambiguous');
    // A release from anyone but the holder leaves the lapsed claim (and its hold) alone.
    await ledger.settle('slot', 'probe', undefined, 0);
    expect((await ledger.claim('slot', probe))?.state).toBe('ambiguous');
    await ledger.settle('slot', undefined, booked, 60_000);
    expect(await ledger.claim('slot', probe)).toEqual(booked);
  });

  it('two clients on their own connections (as two processes) creating with one key at once book once', async () => {
    const server = await serve(slowCreate(300));
    const keyPrefix = `test:${kind}:pair:`;
    const clients = await Promise.all(
      [0, 1].map(
        async () =>
          new PartnerClient({
            baseUrl: server.url,
            partnerId: PARTNER_ID,
            apiToken: API_TOKEN,
            rateLimit: false,
            bookingLedger: createRedisBookingLedger({ redis: (await connect()).client, keyPrefix }),
          }),
      ),
    );
    const outcomes = await Promise.all(
      clients.map((client) => client.reservations.create(1, input, { idempotencyKey: 'pair-key' })),
    );
    expect(outcomes[0]!.id).toBe(outcomes[1]!.id);
    expect(server.posts()).toHaveLength(1);
    expect(server.bookings).toHaveLength(1);
    report.push(
      `  ${kind}, two clients at once: ${server.bookings.length} booked, ${server.posts().length} POST, told success #${outcomes[0]!.id} and #${outcomes[1]!.id}`,
    );
  });

  for (const commitAfterMs of [15_000, 30_000]) {
    it(`the recovery recipe across clients: 504, commit ${commitAfterMs / 1000} s later; repeats with the key send nothing until the booking is found, once`, async () => {
      const clock = new FakeClock({ frozen: true });
      const server = await serve((request, tools) => {
        if (request.method === 'POST') {
          tools.commitLater(request, commitAfterMs);
          return tools.json(504, { detail: 'Gateway Timeout' });
        }
        return wellBehaved(request, tools);
      }, clock);
      const keyPrefix = `test:${kind}:recipe-${commitAfterMs}:`;
      const worker = async () =>
        new PartnerClient({
          baseUrl: server.url,
          partnerId: PARTNER_ID,
          apiToken: API_TOKEN,
          rateLimit: false,
          clock,
          bookingLedger: createRedisBookingLedger({ redis: (await connect()).client, keyPrefix }),
        });
      const [first, second] = await Promise.all([worker(), worker()]);
      const key = `order-${commitAfterMs}`;
      const failed = await first.reservations
        .create(1, input, { idempotencyKey: key })
        .catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(AmbiguousCreateError);
      // The job is redelivered to another process, again and again, a few seconds apart.
      const outcomes: string[] = [];
      let found: number | undefined;
      for (let attempt = 0; attempt < 10 && found === undefined; attempt += 1) {
        await clock.advance(5_000);
        const again = await second.reservations
          .create(1, input, { idempotencyKey: key })
          .catch((error: unknown) => error);
        if (again instanceof AmbiguousCreateError) {
          expect(again.message).toMatch(/until \d{4}-\d{2}-\d{2}T/);
          outcomes.push('ambiguous');
        } else {
          found = (again as { id: number }).id;
          outcomes.push(`success #${found}`);
        }
      }
      expect(found).toBe(server.bookings[0]?.id);
      expect(server.posts()).toHaveLength(1);
      expect(server.bookings).toHaveLength(1);
      report.push(
        `  ${kind}, recipe with the commit ${commitAfterMs / 1000} s late: ${server.bookings.length} booked, ${server.posts().length} POST, told AmbiguousCreateError then ${outcomes.join(', ')}`,
      );
    });
  }

  it('Redis unreachable: every create fails closed (BookingLedgerUnavailableError, nothing sent), with or without a key of its own', async () => {
    const gone = await startRedisServer();
    const connection = await connectClient(kind, gone.url);
    try {
      await gone.stop();
      const server = await serve(wellBehaved);
      const client = new PartnerClient({
        baseUrl: server.url,
        partnerId: PARTNER_ID,
        apiToken: API_TOKEN,
        rateLimit: false,
        restaurantTimezones: { 1: 'Europe/Brussels' },
        bookingLedger: createRedisBookingLedger({ redis: connection.client, commandTimeoutMs: 300 }),
      });
      const errors = [
        await client.reservations
          .create(1, input, { idempotencyKey: 'redis-down' })
          .catch((caught: unknown) => caught),
        // A random key is claimed too: with no ledger to record "maybe sent", a repeat could not tell.
        await client.reservations.create(1, input).catch((caught: unknown) => caught),
      ];
      for (const error of errors) {
        expect(error).toBeInstanceOf(BookingLedgerUnavailableError);
        expect((error as Error).message).toMatch(/booking ledger could not be read/);
      }
      expect(server.requests).toHaveLength(0);
      report.push(
        `  ${kind}, Redis unreachable: ${server.posts().length} POST for a keyed and a random-key create (told ${errors.map((error) => (error as Error).name).join(', ')})`,
      );
    } finally {
      await connection.close();
    }
  });
});

describe('two real processes sharing a Redis ledger', () => {
  const source = fileURLToPath(new URL('../../src', import.meta.url));
  const script = fileURLToPath(new URL('./support/ledger-process.mjs', import.meta.url));

  it('both create with one key at the same moment: one booking, both told its id', async () => {
    const server = await serve(slowCreate(500));
    const start = (client: 'ioredis' | 'node-redis') => {
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: {
          ...process.env,
          SDK_SOURCE: source,
          BASE_URL: server.url,
          PARTNER_ID,
          API_TOKEN,
          REDIS_URL: redis.url,
          REDIS_CLIENT: client,
          KEY: 'two-processes',
          KEY_PREFIX: 'test:processes:',
        },
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const lines = createInterface({ input: child.stdout });
      const next = () =>
        new Promise<string>((resolve, reject) => {
          lines.once('line', resolve);
          child.once('exit', (code) => reject(new Error(`process exited ${code}: ${stderr.slice(-500)}`)));
        });
      return { child, next };
    };
    const processes = [start('ioredis'), start('node-redis')];
    expect(await Promise.all(processes.map((entry) => entry.next()))).toEqual(['ready', 'ready']);
    const results = processes.map((entry) => entry.next());
    for (const entry of processes) entry.child.stdin.write('go\n');
    const outcomes = (await Promise.all(results)).map(
      (line) => JSON.parse(line) as { id?: number; error?: string },
    );
    await Promise.all(
      processes.map(
        (entry) =>
          new Promise((resolve) =>
            entry.child.exitCode === null ? entry.child.once('exit', resolve) : resolve(undefined),
          ),
      ),
    );
    expect(outcomes.map((outcome) => outcome.error)).toEqual([undefined, undefined]);
    expect(outcomes[0]!.id).toBe(outcomes[1]!.id);
    expect(server.posts()).toHaveLength(1);
    expect(server.bookings).toHaveLength(1);
    report.push(
      `  two processes (ioredis, node-redis) at once: ${server.bookings.length} booked, ${server.posts().length} POST, told success #${outcomes[0]!.id} and #${outcomes[1]!.id}`,
    );
  }, 60_000);
});
