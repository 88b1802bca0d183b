/**
 * The Postgres booking ledger on a real PostgreSQL server (node-postgres, postgres.js, Drizzle and
 * Kysely executors) and on PGlite: the contract every ledger keeps (claims, leases on the
 * database's clock, the fence, a lapsed claim held, outcomes, another fingerprint), shared by
 * ledgers on separate connections; and through the client against the fake: a first create with
 * a key the ledger never saw costs one request at a restaurant with many bookings (the memory
 * ledger's look-up is measured beside it), a repeat costs one read, a reused key is refused
 * before any request, and an unmigrated schema fails closed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BookingLedgerUnavailableError,
  IdempotencyKeyReuseError,
  createMemoryBookingLedger,
  type BookingLedger,
} from 'restaurant-partner-sdk';
import { createPostgres } from 'restaurant-partner-sdk/postgres';
import { bookedWorld } from './support/world.js';
import { useConnection, type Connected, type DriverKind } from './support/drivers.js';
import { freshSchema, usePostgresServer } from './support/postgres-server.js';

const server = usePostgresServer();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const HOLD_MS = 60_000;

/** A migrated ledger in a schema of its own, and a second ledger on other connections to the same schema. */
async function ledgers(kind: DriverKind, db: Connected) {
  const schema = freshSchema('ledger');
  const first = createPostgres({ sql: db.sql, schema });
  await first.migrate();
  return { schema, ledger: first.bookingLedger() };
}

describe.each<DriverKind>(['pg Pool', 'pg Client', 'postgres.js', 'PGlite', 'Drizzle', 'Kysely'])(
  'the Postgres ledger through %s',
  (kind) => {
    const db = useConnection(server, kind);
    // Another process's ledger: its own connections to the same database (PGlite is one process's own).
    const other = kind === 'PGlite' ? undefined : useConnection(server, kind);
    const elsewhere = (schema: string): BookingLedger =>
      createPostgres({ sql: (other ?? db).sql, schema }).bookingLedger();

    it('claims a key once, renews only its own claim, keeps its outcome, shows another fingerprint the entry', async () => {
      const { schema, ledger } = await ledgers(kind, db);
      const second = elsewhere(schema);
      const claim = { token: 'first', fingerprint: 'fp-1', leaseMs: 5_000, holdMs: HOLD_MS, now: Date.now() };
      // A key the ledger never held: taken, and never used (a create may skip its look-up).
      expect(await ledger.claim('slot', claim)).toEqual({ state: 'claimed', used: false });
      expect(await second.claim('slot', { ...claim, token: 'second' })).toEqual({
        state: 'running',
        fingerprint: 'fp-1',
        token: 'first',
        until: claim.now,
      });
      expect(await second.renew('slot', 'second', 5_000, claim.now + 1)).toBe(false);
      expect(await ledger.renew('slot', 'first', 5_000, claim.now + 5_000 + HOLD_MS)).toBe(true);
      // Another claimer's outcome never overwrites a running create.
      await second.settle('slot', 'second', { state: 'booked', fingerprint: 'fp-1', reservationId: '9' }, 1);
      expect(await second.claim('slot', { ...claim, token: 'third' })).toMatchObject({ state: 'running' });
      await ledger.settle('slot', 'first', { state: 'booked', fingerprint: 'fp-1', reservationId: '41' }, 1);
      // key -> reservation id, for every process, for good (keepMs does not make it forget).
      await sleep(20);
      expect(await second.claim('slot', { ...claim, token: 'third' })).toEqual({
        state: 'booked',
        fingerprint: 'fp-1',
        reservationId: '41',
      });
      expect(await second.claim('slot', { ...claim, token: 'fourth', fingerprint: 'fp-2' })).toMatchObject({
        fingerprint: 'fp-1',
      });
    });

    it('a claim that lapsed after its fence is an ambiguous hold until its until; one that lapsed before frees the key', async () => {
      const { schema, ledger } = await ledgers(kind, db);
      const second = elsewhere(schema);
      const now = Date.now();
      const claim = { token: 'holder', fingerprint: 'fp', leaseMs: 150, holdMs: HOLD_MS, now };
      expect(await ledger.claim('sent', claim)).toEqual({ state: 'claimed', used: false });
      const until = now + HOLD_MS;
      // The fence: "may have been sent" is written before the POST leaves.
      expect(await ledger.renew('sent', 'holder', 150, until)).toBe(true);
      expect(await ledger.claim('not-sent', claim)).toEqual({ state: 'claimed', used: false });
      await sleep(400);
      // The holder stopped renewing (it died): the lease lapsed on the database's clock.
      expect(await second.claim('sent', { ...claim, token: 'taker' })).toEqual({
        state: 'ambiguous',
        fingerprint: 'fp',
        until,
      });
      expect(
        await second.claim('sent', { ...claim, token: 'other', fingerprint: 'fp-2', now: until }),
      ).toMatchObject({
        fingerprint: 'fp',
      });
      // Past the hold (on the client's clock) the key may be claimed again, as a key that was used.
      expect(await second.claim('sent', { ...claim, token: 'taker', now: until })).toEqual({
        state: 'claimed',
        used: true,
      });
      expect(await ledger.renew('sent', 'holder', 150, until + 1)).toBe(false);
      expect(await second.claim('not-sent', { ...claim, token: 'taker' })).toEqual({
        state: 'claimed',
        used: true,
      });
    });

    it('a released claim (nothing sent) leaves the key unused; a release by another claimer changes nothing', async () => {
      const { schema, ledger } = await ledgers(kind, db);
      const second = elsewhere(schema);
      const claim = { token: 'mine', fingerprint: 'fp', leaseMs: 5_000, holdMs: HOLD_MS, now: Date.now() };
      expect(await ledger.claim('slot', claim)).toEqual({ state: 'claimed', used: false });
      await second.settle('slot', 'not-mine', undefined, 0);
      expect(await second.claim('slot', { ...claim, token: 'other' })).toMatchObject({ state: 'running' });
      await ledger.settle('slot', 'mine', undefined, 0);
      expect(await second.claim('slot', { ...claim, token: 'other' })).toEqual({
        state: 'claimed',
        used: false,
      });
    });
  },
);

describe.each<DriverKind>(['pg Pool', 'postgres.js', 'PGlite', 'Drizzle', 'Kysely'])(
  'creating with the Postgres ledger through %s',
  (kind) => {
    const db = useConnection(server, kind);
    let world: Awaited<ReturnType<typeof bookedWorld>>;
    beforeAll(async () => {
      world = await bookedWorld(250);
    }, 120_000);
    afterAll(() => {
      world?.fake.dispose();
    });

    it('a first create with a key the ledger never saw: 1 request (the POST) at a restaurant with 250 bookings; its repeat: 1 read', async () => {
      const postgres = createPostgres({ sql: db.sql, schema: freshSchema('first') });
      await postgres.migrate();
      const client = world.client(postgres.bookingLedger());
      const { restaurant, input, requestsOf } = world;
      const first = await requestsOf(() =>
        client.reservations.create(restaurant.id, input(300), { idempotencyKey: `order-${kind}` }),
      );
      expect(first.requests.map((request) => request.method)).toEqual(['POST']);
      // Another process (another client on the ledger) repeating the key: one read of the booking.
      const repeat = await requestsOf(() =>
        world
          .client(postgres.bookingLedger())
          .reservations.create(restaurant.id, input(300), { idempotencyKey: `order-${kind}` }),
      );
      expect(repeat.value.id).toBe(first.value.id);
      expect(repeat.requests.map((request) => request.method)).toEqual(['GET']);
      const reuse = await requestsOf(() =>
        client.reservations
          .create(restaurant.id, input(301), { idempotencyKey: `order-${kind}` })
          .catch((error: unknown) => error),
      );
      expect(reuse.value).toBeInstanceOf(IdempotencyKeyReuseError);
      expect(reuse.requests).toHaveLength(0);
    });

    it('without a durable ledger the same first create reads the list, 100 a page, before its POST', async () => {
      const { restaurant, input, requestsOf } = world;
      const reservations = (await world.client().reservations.list(restaurant.id).toArray()).length;
      expect(reservations).toBeGreaterThan(200);
      const memory = await requestsOf(() =>
        world
          .client(createMemoryBookingLedger())
          .reservations.create(restaurant.id, input(400), { idempotencyKey: `memory-${kind}` }),
      );
      const pages = memory.requests.filter((request) => request.method === 'GET');
      // Two reads of every page agree before "absent": 2 x ceil(n / 100), then the POST.
      expect(pages).toHaveLength(2 * Math.ceil(reservations / 100));
      expect(memory.requests).toHaveLength(pages.length + 1);
      expect(pages.every((request) => request.path.includes('page_size=100'))).toBe(true);
    });

    it('an unmigrated schema fails closed: the create is refused, nothing sent, one line naming migrate()', async () => {
      const postgres = createPostgres({ sql: db.sql, schema: freshSchema('unmigrated') });
      const { restaurant, input, requestsOf } = world;
      const outcome = await requestsOf(() =>
        world
          .client(postgres.bookingLedger())
          .reservations.create(restaurant.id, input(500), { idempotencyKey: `unmigrated-${kind}` })
          .catch((error: unknown) => error),
      );
      expect(outcome.value).toBeInstanceOf(BookingLedgerUnavailableError);
      expect((outcome.value as Error).message).toContain('run db.migrate() (or apply db.migrationSql())');
      expect(outcome.requests).toHaveLength(0);
    });
  },
);
