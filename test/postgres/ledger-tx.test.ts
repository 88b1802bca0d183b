/**
 * A key claimed inside the partner's own transaction (`create(..., { idempotencyKey, tx })`), on a
 * real PostgreSQL server, with each driver's own transaction: the partner's order row and the
 * ledger's entry commit together; a transaction rolled back after the POST left never frees the
 * key (the repeat answers with the booking, nothing sent again); another process's create with
 * the key waits for the transaction; a `tx` the ledger cannot use is refused before any request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drizzle } from 'drizzle-orm/node-postgres';
import { Kysely, PostgresDialect } from 'kysely';
import postgres from 'postgres';
import { InputValidationError, createMemoryBookingLedger, type Reservation } from 'restaurant-partner-sdk';
import { createPostgres, type PostgresDatabase, type SqlSource } from 'restaurant-partner-sdk/postgres';
import { fromDrizzle, fromKysely } from './support/drivers.js';
import { freshSchema, pgPool, usePostgresServer } from './support/postgres-server.js';
import { bookedWorld } from './support/world.js';

const server = usePostgresServer();
let world: Awaited<ReturnType<typeof bookedWorld>>;
beforeAll(async () => {
  world = await bookedWorld(3);
});
afterAll(() => {
  world?.fake.dispose();
});

/** A driver as the partner uses it: its database for createPostgres, and its own way to run a transaction. */
interface Driver {
  sql: SqlSource;
  /** Runs `fn` in the partner's transaction, handing over what the partner would pass as `tx`. */
  transaction<T>(fn: (tx: object) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const DRIVERS: Record<string, (url: string) => Driver> = {
  'node-postgres (a pool client inside BEGIN)': (url) => {
    const pool = pgPool(url, 6);
    return {
      sql: pool,
      async transaction(fn) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const result = await fn(client);
          await client.query('COMMIT');
          return result;
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        } finally {
          client.release();
        }
      },
      close: () => pool.end(),
    };
  },
  'postgres.js (sql.begin)': (url) => {
    const sql = postgres(url, { max: 6, onnotice: () => undefined });
    return {
      sql,
      transaction: (fn) => sql.begin((tx) => fn(tx)) as never,
      close: () => sql.end({ timeout: 1 }),
    };
  },
  'Drizzle (db.transaction)': (url) => {
    const pool = pgPool(url, 6);
    const db = drizzle(pool);
    return {
      sql: fromDrizzle(db),
      transaction: (fn) => db.transaction((tx) => fn(fromDrizzle(tx))),
      close: () => pool.end(),
    };
  },
  'Kysely (db.transaction())': (url) => {
    const db = new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: pgPool(url, 6) }),
    });
    return {
      sql: fromKysely(db),
      transaction: (fn) => db.transaction().execute((trx) => fn(fromKysely(trx))),
      close: () => db.destroy(),
    };
  },
};

/** What the fake holds under `key`: every reservation carrying it. */
async function bookingsWith(key: string): Promise<Reservation[]> {
  const all = await world
    .client(createMemoryBookingLedger())
    .reservations.list(world.restaurant.id)
    .toArray();
  return all.filter(
    (reservation) => reservation.metadata?.['restaurant_partner_sdk.idempotency_key'] === key,
  );
}

describe.each(Object.keys(DRIVERS))('claiming inside the partner transaction: %s', (name) => {
  let driver: Driver;
  let database: PostgresDatabase;
  let schema: string;
  beforeAll(async () => {
    driver = DRIVERS[name]!(server.url);
    schema = freshSchema('tx');
    database = createPostgres({ sql: driver.sql, schema });
    await database.migrate();
    await server.admin.query(`create table "${schema}".orders (id text primary key, reservation_id text)`);
  });
  afterAll(async () => {
    await driver?.close();
  });
  const run = (tx: object, text: string, params: unknown[]) =>
    // Each driver's transaction handle runs SQL its own way; createPostgres's adapters know them all.
    createPostgres({ sql: tx as SqlSource, schema }).executor.query(text, params);
  const order = (key: string) =>
    server.admin
      .query(`select reservation_id from "${schema}".orders where id = $1`, [key])
      .then((r) => r.rows);
  const entry = (key: string) =>
    server.admin
      .query(`select state, reservation_id from "${schema}".booking_ledger where slot like $1`, [
        `%"${key}"]`,
      ])
      .then((r) => r.rows);

  it('the order row and the claim commit together: one POST, the booking recorded', async () => {
    const key = `order-commit-${name.length}`;
    const client = world.client(database.bookingLedger());
    const { value, requests } = await world.requestsOf(() =>
      driver.transaction(async (tx) => {
        await run(tx, `insert into "${schema}".orders (id) values ($1)`, [key]);
        const booked = await client.reservations.create(world.restaurant.id, world.input(10), {
          idempotencyKey: key,
          tx,
        });
        await run(tx, `update "${schema}".orders set reservation_id = $2 where id = $1`, [
          key,
          String(booked.id),
        ]);
        return booked;
      }),
    );
    expect(requests.map((request) => request.method)).toEqual(['POST']);
    expect(await order(key)).toEqual([{ reservation_id: String(value.id) }]);
    expect(await entry(key)).toEqual([{ state: 'booked', reservation_id: String(value.id) }]);
  });

  it('rolled back after the POST left: the order row is gone, the key is not freed; the repeat answers with the booking, nothing sent', async () => {
    const key = `order-rollback-${name.length}`;
    const client = world.client(database.bookingLedger());
    let booked: Reservation | undefined;
    const failure = await driver
      .transaction(async (tx) => {
        await run(tx, `insert into "${schema}".orders (id) values ($1)`, [key]);
        booked = await client.reservations.create(world.restaurant.id, world.input(11), {
          idempotencyKey: key,
          tx,
        });
        throw new Error('the partner failed after the booking');
      })
      .catch((error: unknown) => error);
    expect((failure as Error).message).toBe('the partner failed after the booking');
    expect(await order(key)).toEqual([]);
    // The redelivered job, in another process: one read of the booking, no second POST.
    const repeat = await world.requestsOf(() =>
      driver.transaction((tx) =>
        world
          .client(createPostgres({ sql: driver.sql, schema }).bookingLedger())
          .reservations.create(world.restaurant.id, world.input(11), { idempotencyKey: key, tx }),
      ),
    );
    expect(repeat.value.id).toBe(booked?.id);
    expect(repeat.requests.map((request) => request.method)).toEqual(['GET']);
    expect(await bookingsWith(key)).toHaveLength(1);
  });

  it("another process's create with the key waits for the transaction, then answers with its booking", async () => {
    const key = `order-wait-${name.length}`;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let first: Reservation | undefined;
    const transaction = driver.transaction(async (tx) => {
      first = await world
        .client(database.bookingLedger())
        .reservations.create(world.restaurant.id, world.input(12), { idempotencyKey: key, tx });
      await held;
    });
    await expect.poll(() => first, { timeout: 20_000 }).toBeDefined();
    const other = world
      .client(createPostgres({ sql: driver.sql, schema }).bookingLedger())
      .reservations.create(world.restaurant.id, world.input(12), { idempotencyKey: key });
    let otherDone = false;
    void other.then(() => (otherDone = true)).catch(() => (otherDone = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The claim is the open transaction's: the other create has not answered, and sent nothing.
    expect(otherDone).toBe(false);
    release();
    await transaction;
    expect((await other).id).toBe(first?.id);
    expect(await bookingsWith(key)).toHaveLength(1);
  });
});

describe('a tx the ledger cannot use is refused before any request', () => {
  it('with the memory ledger, with a ledger on one connection (PGlite), with something that is not a transaction', async () => {
    const { PGlite } = await import('@electric-sql/pglite');
    const lite = new PGlite();
    const pool = server.admin;
    try {
      const onPool = createPostgres({ sql: pool, schema: freshSchema('refused') });
      await onPool.migrate();
      const cases: [string, ReturnType<typeof world.client>, object][] = [
        ['memory ledger', world.client(createMemoryBookingLedger()), pool],
        ['PGlite ledger', world.client(createPostgres({ sql: lite }).bookingLedger()), lite],
        ['not a transaction', world.client(onPool.bookingLedger()), { begin: true }],
      ];
      for (const [label, client, tx] of cases) {
        const { value, requests } = await world.requestsOf(() =>
          client.reservations
            .create(world.restaurant.id, world.input(20), { idempotencyKey: `refused-${label}`, tx })
            .catch((error: unknown) => error),
        );
        expect(value, label).toBeInstanceOf(InputValidationError);
        expect((value as InputValidationError).field, label).toBe('tx');
        expect(requests, label).toHaveLength(0);
      }
    } finally {
      await lite.close();
    }
    // PGlite compiles its WebAssembly on start: seconds on a loaded machine.
  }, 120_000);
});
