/**
 * The lost connection of lost-connection.test.ts on postgres.js: the ledger's transactions lose
 * their connection (`pg_terminate_backend`) before each statement in turn, each create in a
 * process of its own, against a real PostgreSQL server. What holds: the transaction rejects and
 * the server rolls it back whole (nothing half-written), the create fails closed with nothing sent
 * or ends with its booking, and the job run again (a fresh process, as a supervisor restarts one)
 * books once. What postgres.js 3.4 does besides: after some of these cuts it throws an uncaught
 * TypeError ("Cannot read properties of null (reading 'write')", a write it scheduled after the
 * socket was gone: porsager/postgres issues 1154 and 1208), which ends the process; the test prints
 * which cuts did, and asserts the promises above whichever way the process ended.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { createPostgres } from 'restaurant-partner-sdk/postgres';
import { FakeClock } from 'restaurant-partner-sdk/testing';
import { startHostileServer, type HostileServer } from '../support/hostile-server.js';
import { startLineProcess } from '../support/line-process.js';
import { freshSchema, usePostgresServer } from './support/postgres-server.js';

const PARTNER_ID = '6e8a0c2d-4f6b-4c8d-8e2f-3a4b5c6d7e8f';
const API_TOKEN = 'postgres-js-cut-token-9c0d1e2f';
const WORKER = fileURLToPath(new URL('./support/cut-worker.mjs', import.meta.url));

const server = usePostgresServer();
let http: HostileServer;
beforeAll(async () => {
  http = await startHostileServer(new FakeClock({ frozen: true }));
});
afterAll(async () => {
  await http?.close();
});

/** Runs one create in a worker process; resolves with its printed outcome and how the process ended. */
async function runWorker(env: Record<string, string>) {
  const worker = startLineProcess(WORKER, env);
  const line = await worker.nextLine((text) => text.startsWith('{'), 60_000).catch(() => undefined);
  let stderr = '';
  worker.child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await worker.exited();
  return {
    outcome: line === undefined ? undefined : (JSON.parse(line) as { id?: number; error?: string }),
    code: worker.child.exitCode,
    crashed: /Cannot read properties of null \(reading 'write'\)/.test(stderr),
  };
}

describe("a connection lost mid-transaction in the ledger's own transactions (postgres.js)", () => {
  it('before each statement in turn: nothing half-written; a fresh process running the job again books once', async () => {
    const schema = freshSchema('lostjs');
    await createPostgres({ sql: server.admin, schema }).migrate();
    const base = { DATABASE_URL: server.url, SCHEMA: schema, BASE_URL: http.url, PARTNER_ID, API_TOKEN };
    const report: string[] = [];
    // The claim's transaction and the outcome's: node-postgres counts five statements in them.
    for (let cut = 1; cut <= 5; cut++) {
      const key = `order-js-cut-${cut}`;
      const first = await runWorker({ ...base, KEY: key, CUT: String(cut) });
      const mine = () => http.bookings.filter((booking) => booking.key === key);
      if (first.outcome?.error !== undefined) {
        // Fails closed: nothing sent, nothing of the claim's transaction left.
        expect(first.outcome.error, `cut ${cut}`).toBe('BookingLedgerUnavailableError');
        expect(mine(), `cut ${cut}`).toHaveLength(0);
        const { rows } = await server.admin.query(
          `select 1 from "${schema}".booking_ledger where slot like $1
           union all select 1 from "${schema}".booking_ledger_sent where slot like $1`,
          [`%"${key}"]`],
        );
        expect(rows, `cut ${cut}`).toEqual([]);
      }
      const again = await runWorker({ ...base, KEY: key, CUT: '0' });
      expect(again.outcome?.id, `cut ${cut}: ${JSON.stringify(again)}`).toBeDefined();
      expect(
        mine().map((booking) => booking.id),
        `cut ${cut}`,
      ).toEqual([again.outcome?.id]);
      if (first.outcome?.id !== undefined) expect(first.outcome.id).toBe(again.outcome?.id);
      report.push(
        `cut before statement ${cut}: ${first.outcome?.error ?? (first.outcome ? 'booked' : 'no answer')}, process ${first.crashed ? "ended by postgres.js's uncaught TypeError" : `exited ${first.code}`}; run again: #${again.outcome?.id}`,
      );
    }
    console.info(report.join('\n'));
  }, 240_000);
});
