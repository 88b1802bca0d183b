/**
 * One create through the Postgres ledger on postgres.js, in a process of its own: the ledger's
 * transactions lose their connection (`pg_terminate_backend`) right before their CUT-th statement
 * (0: never). Prints the outcome as one JSON line (`{ id }` or `{ error }`), then ends. A process
 * of its own because postgres.js 3.4 may end it with an uncaught TypeError when the server ends a
 * connection mid-transaction (porsager/postgres issues 1154 and 1208): the test reads how it ended.
 * Environment: SDK_SOURCE, DATABASE_URL, SCHEMA, BASE_URL, PARTNER_ID, API_TOKEN, KEY, CUT.
 */
import postgres from 'postgres';
import { cutting } from './cutting.mjs';
import { bookingInput, createPostgres, ledgerClient } from './worker-sdk.mjs';

const { env } = process;

const sql = postgres(env.DATABASE_URL, { max: 4, onnotice: () => undefined });
const { executor } = cutting(createPostgres({ sql, schema: env.SCHEMA }).executor, Number(env.CUT));
const client = ledgerClient(executor);
try {
  const reservation = await client.reservations.create(1, bookingInput, { idempotencyKey: env.KEY });
  console.log(JSON.stringify({ id: reservation.id }));
} catch (error) {
  console.log(JSON.stringify({ error: error?.name ?? String(error) }));
}
// A moment for anything the driver scheduled after the lost connection to run (or to crash).
await new Promise((resolve) => setTimeout(resolve, 300));
await sql.end({ timeout: 1 });
