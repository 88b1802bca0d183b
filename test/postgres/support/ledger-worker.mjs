/**
 * One booking worker of the crash proofs: a PartnerClient booking with the Postgres ledger (its own
 * node-postgres Pool). It prints `ready` once connected, and on `go` (stdin) makes one create with
 * KEY, inside its own transaction when TX=1 (BEGIN, an order row, the create with `tx`, COMMIT),
 * then prints the outcome as one JSON line. A test SIGKILLs it mid-create.
 * Environment: SDK_SOURCE (folder of src/, run under tsx), DATABASE_URL, SCHEMA, BASE_URL,
 * PARTNER_ID, API_TOKEN, KEY, TX.
 */
import { createInterface } from 'node:readline';
import { bookingInput as input, ledgerClient, workerPool } from './worker-sdk.mjs';

const { env } = process;
const pool = workerPool();
const client = ledgerClient(pool);

async function create() {
  if (env.TX !== '1') return client.reservations.create(1, input, { idempotencyKey: env.KEY });
  const connection = await pool.connect();
  try {
    await connection.query('BEGIN');
    await connection.query(`insert into "${env.SCHEMA}".orders (id) values ($1) on conflict do nothing`, [
      env.KEY,
    ]);
    const booked = await client.reservations.create(1, input, { idempotencyKey: env.KEY, tx: connection });
    await connection.query(`update "${env.SCHEMA}".orders set reservation_id = $2 where id = $1`, [
      env.KEY,
      String(booked.id),
    ]);
    await connection.query('COMMIT');
    return booked;
  } catch (error) {
    await connection.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    connection.release();
  }
}

const lines = createInterface({ input: process.stdin });
console.log('ready');
for await (const line of lines) {
  if (line.trim() !== 'go') continue;
  try {
    const reservation = await create();
    console.log(JSON.stringify({ id: reservation.id }));
  } catch (error) {
    console.log(JSON.stringify({ error: error?.name ?? String(error), message: error?.message }));
  }
  break;
}
lines.close();
await pool.end();
