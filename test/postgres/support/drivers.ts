/**
 * The ways a partner hands its database to `createPostgres({ sql })`, each connected to the test
 * cluster as a partner would: a node-postgres Pool and Client, a postgres.js `sql`, PGlite (its
 * own in-memory database), and Drizzle and Kysely through an executor of the partner's own
 * (written here the way docs/postgres.md shows it).
 */
import { PGlite } from '@electric-sql/pglite';
import { sql as drizzleSql, type SQL } from 'drizzle-orm';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import postgres from 'postgres';
import type { SqlExecutor, SqlSource } from 'restaurant-partner-sdk/postgres';
import { afterAll, beforeAll } from 'vitest';
import { pgClient, pgPool, type PostgresForFile } from './postgres-server.js';

export type DriverKind = 'pg Pool' | 'pg Client' | 'postgres.js' | 'PGlite' | 'Drizzle' | 'Kysely';
/** The drivers on the real server (PGlite runs its own database in the process). */
export const SERVER_DRIVERS: readonly DriverKind[] = [
  'pg Pool',
  'pg Client',
  'postgres.js',
  'Drizzle',
  'Kysely',
];

export interface Connected {
  sql: SqlSource;
  /** Runs a statement on a connection of the test's own (for assertions and tampering). */
  raw(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/** A Drizzle database as a SqlExecutor: `$1` placeholders become Drizzle parameters. */
export function fromDrizzle(db: Pick<NodePgDatabase, 'execute' | 'transaction'>): SqlExecutor {
  const statement = (text: string, params: readonly unknown[]): SQL =>
    drizzleSql.join(
      text
        .split(/\$(\d+)/)
        .map((part, index) =>
          index % 2 === 1 ? drizzleSql`${params[Number(part) - 1]}` : drizzleSql.raw(part),
        ),
    );
  return {
    query: async (text, params = []) => ({
      rows: (await db.execute(statement(text, params))).rows as never[],
    }),
    transaction: (fn) => db.transaction((tx) => fn(fromDrizzle(tx))),
  };
}

/** A Kysely instance as a SqlExecutor; a transaction started in a transaction joins it. */
export function fromKysely(db: Kysely<unknown>): SqlExecutor {
  const executor: SqlExecutor = {
    query: async (text, params = []) => ({
      rows: (await db.executeQuery(CompiledQuery.raw(text, [...params]))).rows as never[],
    }),
    transaction: (fn) =>
      db.isTransaction ? fn(executor) : db.transaction().execute((trx) => fn(fromKysely(trx))),
  };
  return executor;
}

/** Connects `kind` to the cluster at `url` (PGlite ignores it). */
export async function connect(kind: DriverKind, url: string): Promise<Connected> {
  switch (kind) {
    case 'pg Pool': {
      const pool = pgPool(url, 10);
      return {
        sql: pool,
        raw: async (text, params) => (await pool.query(text, params)).rows,
        close: () => pool.end(),
      };
    }
    case 'pg Client': {
      const client = pgClient(url);
      await client.connect();
      const other = pgPool(url, 2);
      return {
        sql: client,
        raw: async (text, params) => (await other.query(text, params)).rows,
        close: async () => void (await Promise.all([client.end(), other.end()])),
      };
    }
    case 'postgres.js': {
      const sql = postgres(url, { max: 10, onnotice: () => undefined });
      return {
        sql,
        raw: async (text, params) => [...(await sql.unsafe(text, (params ?? []) as never[]))],
        close: () => sql.end({ timeout: 1 }),
      };
    }
    case 'PGlite': {
      const db = new PGlite();
      await db.waitReady;
      return {
        sql: db,
        raw: async (text, params) => (await db.query(text, params)).rows as never[],
        close: () => db.close(),
      };
    }
    case 'Drizzle': {
      const pool = pgPool(url, 10);
      return {
        sql: fromDrizzle(drizzle(pool)),
        raw: async (text, params) => (await pool.query(text, params)).rows,
        close: () => pool.end(),
      };
    }
    case 'Kysely': {
      const pool = pgPool(url, 10);
      const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
      return {
        sql: fromKysely(db),
        raw: async (text, params) => (await pool.query(text, params)).rows,
        close: () => db.destroy(),
      };
    }
  }
}

/**
 * `kind` connected to the file's cluster for the enclosing `describe`: opened in its `beforeAll`,
 * closed in its `afterAll` (read it in a hook or a test).
 */
export function useConnection(server: PostgresForFile, kind: DriverKind): Connected {
  let db: Connected | undefined;
  // PGlite compiles its WebAssembly on start: seconds on a loaded machine.
  beforeAll(async () => {
    db = await connect(kind, server.url);
  }, 120_000);
  afterAll(async () => {
    await db?.close();
  });
  const current = () => {
    if (!db) throw new Error(`The ${kind} connection opens in beforeAll: use it in a hook or a test.`);
    return db;
  };
  return {
    get sql() {
      return current().sql;
    },
    raw: (text, params) => current().raw(text, params),
    close: () => current().close(),
  };
}
