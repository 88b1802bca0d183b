/**
 * A connection lost in the middle of the booking ledger's transactions, on node-postgres against a
 * real PostgreSQL server (`pg_terminate_backend`, as a failover or an operator's kill does): the
 * server rolls the transaction back whole, the create fails closed or ends with its booking, and
 * the job tried again books once. Cut before each statement of the ledger's transactions in turn
 * (the claim, the outcome), and in the partner's own transaction after its create. The sync's
 * transaction cut the same way is proven in sync-mirror.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import {
  AmbiguousCreateError,
  BookingLedgerUnavailableError,
  createMemoryBookingLedger,
  type Reservation,
} from 'restaurant-partner-sdk';
import { createPostgres } from 'restaurant-partner-sdk/postgres';
import { cutting } from './support/cutting.mjs';
import { freshSchema, usePostgresServer } from './support/postgres-server.js';
import { bookedWorld } from './support/world.js';

const server = usePostgresServer();
let pool: pg.Pool;
let world: Awaited<ReturnType<typeof bookedWorld>>;
let schema: string;
beforeAll(async () => {
  pool = server.pool(6);
  world = await bookedWorld(0);
  schema = freshSchema('lost');
  await createPostgres({ sql: pool, schema }).migrate();
  await server.admin.query(`create table "${schema}".orders (id text primary key, reservation_id text)`);
});
afterAll(() => {
  world?.fake.dispose();
});

/** What the fake holds under `key`. */
async function bookingsWith(key: string): Promise<Reservation[]> {
  const all = await world
    .client(createMemoryBookingLedger())
    .reservations.list(world.restaurant.id)
    .toArray();
  return all.filter((booking) => booking.metadata?.['restaurant_partner_sdk.idempotency_key'] === key);
}

const ledgerRows = async (key: string) =>
  (
    await server.admin.query(
      `select state from "${schema}".booking_ledger where slot like $1
       union all select state from "${schema}".booking_ledger_sent where slot like $1`,
      [`%"${key}"]`],
    )
  ).rows;

describe("a connection lost mid-transaction in the ledger's own transactions (node-postgres)", () => {
  it('before each statement in turn: the create fails closed with nothing sent or ends with its booking; tried again, one booking', async () => {
    const seen: string[] = [];
    for (let cutAt = 1; cutAt < 20; cutAt++) {
      const key = `order-cut-${cutAt}`;
      const input = world.input(cutAt);
      const plain = createPostgres({ sql: pool, schema });
      const { executor, wasCut } = cutting(plain.executor, cutAt);
      const first = await world
        .requestsOf(() =>
          world
            .client(createPostgres({ sql: executor, schema }).bookingLedger())
            .reservations.create(world.restaurant.id, input, { idempotencyKey: key }),
        )
        .catch((error: unknown) => ({ error }));
      if (!wasCut()) break;
      const bookings = (await bookingsWith(key)).length;
      if ('error' in first) {
        // Fails closed: the claim's transaction rolled back whole, nothing sent, nothing left.
        expect(first.error, `cut ${cutAt}`).toBeInstanceOf(BookingLedgerUnavailableError);
        expect(bookings, `cut ${cutAt}`).toBe(0);
        expect(await ledgerRows(key), `cut ${cutAt}`).toEqual([]);
      }
      // The job tried again (another process, its own ledger on the same database), uncut.
      const again = await world
        .client(plain.bookingLedger())
        .reservations.create(world.restaurant.id, input, { idempotencyKey: key })
        .catch((error: unknown) => error);
      expect(again, `cut ${cutAt}: ${String(again)}`).not.toBeInstanceOf(AmbiguousCreateError);
      const booked = await bookingsWith(key);
      expect(booked.map((booking) => booking.id)).toEqual([(again as Reservation).id]);
      if (!('error' in first)) expect(first.value.id, `cut ${cutAt}`).toBe((again as Reservation).id);
      seen.push(
        `cut before statement ${cutAt}: ${'error' in first ? (first.error as Error).name : 'booked'}`,
      );
    }
    console.info(seen.join('\n'));
    // Both transactions were cut somewhere: the claim (fails closed) and the outcome (booked).
    expect(seen.some((line) => line.endsWith('BookingLedgerUnavailableError'))).toBe(true);
    expect(seen.some((line) => line.endsWith('booked'))).toBe(true);
  }, 120_000);
});

describe("a connection lost in the partner's own transaction, after its create (node-postgres)", () => {
  it('the order row and the claim go with it, the key is not freed, and the redelivered job commits the booking once', async () => {
    const key = 'order-lost-in-tx';
    const database = createPostgres({ sql: pool, schema });
    const connection = await pool.connect();
    connection.on('error', () => undefined);
    let booked: Reservation | undefined;
    const failure = await (async () => {
      const { rows } = await connection.query<{ pid: number }>('select pg_backend_pid() as pid');
      await connection.query('BEGIN');
      await connection.query(`insert into "${schema}".orders (id) values ($1)`, [key]);
      booked = await world
        .client(database.bookingLedger())
        .reservations.create(world.restaurant.id, world.input(40), { idempotencyKey: key, tx: connection });
      // The server ends the partner's connection before its last write and COMMIT.
      await server.admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
      await connection.query(`update "${schema}".orders set reservation_id = $2 where id = $1`, [
        key,
        String(booked.id),
      ]);
      await connection.query('COMMIT');
    })().catch((error: unknown) => error);
    connection.release(true);
    expect(failure).toBeInstanceOf(Error);
    expect(booked).toBeDefined();
    // Nothing half-written: no order row; the key is not free (what may have been sent was written outside).
    expect((await server.admin.query(`select * from "${schema}".orders`)).rows).toEqual([]);
    expect((await ledgerRows(key)).length).toBeGreaterThan(0);

    const repeat = await world.requestsOf(async () => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(`insert into "${schema}".orders (id) values ($1)`, [key]);
        const again = await world
          .client(createPostgres({ sql: pool, schema }).bookingLedger())
          .reservations.create(world.restaurant.id, world.input(40), { idempotencyKey: key, tx: client });
        await client.query(`update "${schema}".orders set reservation_id = $2 where id = $1`, [
          key,
          String(again.id),
        ]);
        await client.query('COMMIT');
        return again;
      } finally {
        client.release();
      }
    });
    expect(repeat.value.id).toBe(booked?.id);
    expect(repeat.requests.map((request) => request.method)).toEqual(['GET']);
    expect((await server.admin.query(`select id, reservation_id from "${schema}".orders`)).rows).toEqual([
      { id: key, reservation_id: String(booked?.id) },
    ]);
    expect(await bookingsWith(key)).toHaveLength(1);
  }, 60_000);
});
