/**
 * Workers booking with the Postgres ledger, SIGKILLed mid-create (after their POST left, the
 * service committing it) and the job redelivered to another worker process: one booking per key,
 * and the redelivered job sends its first request or settles within 5 s (the 3 s lease lapses on
 * the database's clock). Once with the claim on its own, once inside the worker's transaction
 * (which the kill rolls back: the fence, written outside it, still holds the key). Real processes,
 * a real PostgreSQL server; measured in real time, so it runs in the real-time lane.
 */
import { describe, expect, it } from 'vitest';
import { createPostgres } from 'restaurant-partner-sdk/postgres';
import { FakeClock } from 'restaurant-partner-sdk/testing';
import { startHostileServer, wellBehaved } from '../support/hostile-server.js';
import { startLedgerWorker } from './support/ledger-workers.js';
import { freshSchema, usePostgresServer } from './support/postgres-server.js';

const BOUND_MS = 5_000;
const PARTNER_ID = '4c6e8a0b-2d4f-4a6b-8c0d-1e2f3a4b5c6d';
const API_TOKEN = 'postgres-crash-token-7a8b9c0d';

const server = usePostgresServer();

describe('a create whose worker was SIGKILLed after its POST left, redelivered to another worker', () => {
  for (const inTransaction of [false, true]) {
    it(`${inTransaction ? "inside the worker's transaction" : 'claimed on its own'}: settles with the one booking within 5 s`, async () => {
      const schema = freshSchema('crash');
      await createPostgres({ sql: server.admin, schema }).migrate();
      await server.admin.query(`create table "${schema}".orders (id text primary key, reservation_id text)`);
      const clock = new FakeClock({ frozen: true });
      let victimDone = false;
      const firstRequestAt: number[] = [];
      const http = await startHostileServer(clock, (request, tools) => {
        if (victimDone) firstRequestAt.push(Date.now());
        // The service commits the victim's booking but never answers: the worker dies waiting.
        if (!victimDone && request.method === 'POST') return tools.commitLater(request, 0);
        return wellBehaved(request, tools);
      });
      const env = {
        DATABASE_URL: server.url,
        SCHEMA: schema,
        BASE_URL: http.url,
        PARTNER_ID,
        API_TOKEN,
        KEY: 'order-crash',
        TX: inTransaction ? '1' : '0',
      };
      const victim = startLedgerWorker(env);
      const repeat = startLedgerWorker(env);
      try {
        await Promise.all([
          victim.nextLine((line) => line === 'ready'),
          repeat.nextLine((line) => line === 'ready'),
        ]);
        victim.child.stdin.write('go\n');
        await expect.poll(() => http.posts().length, { timeout: 20_000 }).toBeGreaterThan(0);
        victim.child.kill('SIGKILL');
        await victim.exited();
        victimDone = true;
        const startedAt = Date.now();
        repeat.child.stdin.write('go\n');
        const outcome = JSON.parse(await repeat.nextLine((line) => line.startsWith('{'), 30_000)) as {
          id?: number;
          error?: string;
        };
        const settledMs = Date.now() - startedAt;
        const firstMs = (firstRequestAt[0] ?? Number.POSITIVE_INFINITY) - startedAt;
        console.info(
          `SIGKILL after the POST (${inTransaction ? 'in a transaction' : 'own claim'}): the repeat's first request after ${firstMs} ms, settled after ${settledMs} ms: ${outcome.error ?? `#${outcome.id}`}`,
        );
        expect(firstMs).toBeLessThan(BOUND_MS);
        expect(settledMs).toBeLessThan(BOUND_MS);
        expect(http.bookings).toHaveLength(1);
        expect(http.posts()).toHaveLength(1);
        expect(outcome.id).toBe(http.bookings[0]?.id);
        if (inTransaction) {
          // The victim's order row went with its transaction; the redelivered job's committed with the booking.
          const { rows } = await server.admin.query(`select id, reservation_id from "${schema}".orders`);
          expect(rows).toEqual([{ id: 'order-crash', reservation_id: String(outcome.id) }]);
        }
      } finally {
        for (const each of [victim, repeat]) if (each.child.exitCode === null) each.child.kill('SIGKILL');
        await http.close();
      }
    }, 60_000);
  }
});
