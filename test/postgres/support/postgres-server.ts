/**
 * The real PostgreSQL cluster of a test file: `usePostgresServer()` starts one throwaway cluster
 * (scripts/postgres-server.mjs, shared with the bench: free loopback port, a temporary folder
 * removed on stop, installed through the system package manager where it is missing, or the start
 * fails with one line saying what to install: never a skip) before the file's tests and stops it
 * after them, with the node-postgres pools it handed out. Each test takes a schema of its own
 * (`freshSchema`), so the files' tests never see each other's tables.
 */
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { startPostgresServer, type ThrowawayPostgres } from '../../../scripts/postgres-server.mjs';

export interface PostgresForFile {
  /** The cluster's connection string (read it in a hook or a test: the cluster starts in `beforeAll`). */
  readonly url: string;
  /** A node-postgres pool on the cluster with at most `max` connections, ended when the file ends. */
  pool(max?: number): pg.Pool;
  /** One two-connection pool of the test's own (setup, assertions, tampering), ended when the file ends. */
  readonly admin: pg.Pool;
}

/**
 * Starts a cluster for this file (`beforeAll`) and stops it after the file's own `afterAll`
 * hooks have run (vitest runs after-hooks in reverse order), ending the pools it handed out first.
 */
export function usePostgresServer(): PostgresForFile {
  let server: ThrowawayPostgres | undefined;
  let admin: pg.Pool | undefined;
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.end()));
    await server?.stop();
  });
  const handle: PostgresForFile = {
    get url() {
      if (!server)
        throw new Error('The PostgreSQL cluster starts in beforeAll: read its url in a hook or a test.');
      return server.url;
    },
    pool(max = 10) {
      const pool = pgPool(handle.url, max);
      pools.push(pool);
      return pool;
    },
    get admin() {
      return (admin ??= handle.pool(2));
    },
  };
  return handle;
}

/**
 * A node-postgres pool whose idle connections' errors are expected: the server is stopped at the
 * end of a file, and an idle connection it ends must not be an uncaught error.
 */
export function pgPool(url: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on('error', () => undefined);
  return pool;
}

/** A node-postgres client, its connection errors expected as for {@link pgPool}. */
export function pgClient(url: string): pg.Client {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  return client;
}

let schemas = 0;
/** A schema name no other test in the run uses. */
export const freshSchema = (prefix = 'rp') => `${prefix}_${process.pid}_${++schemas}`;
