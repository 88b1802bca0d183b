/**
 * A booking worker of the several-keys crash proof: a PartnerClient booking with the Postgres
 * ledger (its own node-postgres Pool), taking jobs one at a time as a queue consumer would. It
 * prints `ready` once connected; each stdin line `go <key> <restaurant>` is one job (a create with
 * that key at that restaurant): it prints `{ started, at }` as it starts it, then one JSON line: `{ key, id }` or `{ key, error,
 * holdUntil }`. A test SIGKILLs it mid-create and hands the job to another worker.
 * Environment: SDK_SOURCE (folder of src/, run under tsx), DATABASE_URL, SCHEMA, BASE_URL,
 * PARTNER_ID, API_TOKEN, HOLD_MS (the client's ambiguousHoldMs, short so a held key frees in the run).
 */
import { createInterface } from 'node:readline';
import { bookingInput as input, ledgerClient, workerPool } from './worker-sdk.mjs';

const pool = workerPool();
// Every restaurant's zone is known, so a job's requests are its create and look-ups alone.
const timezones = Object.fromEntries(
  Array.from({ length: 100 }, (_, index) => [index + 1, 'Europe/Brussels']),
);
const client = ledgerClient(pool, {
  ambiguousHoldMs: Number(process.env.HOLD_MS),
  restaurantTimezones: timezones,
});

const lines = createInterface({ input: process.stdin });
console.log('ready');
for await (const line of lines) {
  const [word, key, restaurant] = line.trim().split(' ');
  if (word === 'end') break;
  if (word !== 'go') continue;
  // When the job starts running here: what the 5 s bound counts from (stdin may reach a busy process late).
  console.log(JSON.stringify({ started: key, at: Date.now() }));
  try {
    const reservation = await client.reservations.create(Number(restaurant), input, { idempotencyKey: key });
    console.log(JSON.stringify({ key, id: reservation.id }));
  } catch (error) {
    console.log(
      JSON.stringify({ key, error: error?.name ?? String(error), holdUntil: error?.holdUntil?.getTime?.() }),
    );
  }
}
lines.close();
await pool.end();
