/**
 * The three ways a partner hands its database to `createPostgres`, each opened on the throwaway
 * server (PGlite in this process's memory), each in a schema of its own so they share nothing:
 * node-postgres (`pg.Pool`), postgres.js (`postgres(url)`), PGlite.
 */
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import postgres from 'postgres';
import { createPostgres } from 'restaurant-partner-sdk/postgres';

export const DRIVERS = ['pg', 'postgres.js', 'PGlite'] as const;
export type Driver = (typeof DRIVERS)[number];

export interface Opened {
  db: ReturnType<typeof createPostgres>;
  /** Runs SQL straight on the database, outside the SDK (to look at the tables). */
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]>;
  /** The schema's quoted identifier. */
  schema: string;
  close(): Promise<void>;
}

let schemas = 0;

/** Opens `driver` on `url` in a fresh schema (a name that needs quoting), migrated. */
export async function open(driver: Driver, url: string): Promise<Opened> {
  const name = `Sync ${driver} ${++schemas}`;
  const schema = `"${name}"`;
  if (driver === 'pg') {
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    // An idle connection the server ends (a test cuts one on purpose) is dropped, not thrown.
    pool.on('error', () => undefined);
    const db = createPostgres({ sql: pool, schema: name });
    await db.migrate();
    return {
      db,
      schema,
      query: async (text, params) => (await pool.query(text, params)).rows,
      close: () => pool.end(),
    };
  }
  if (driver === 'postgres.js') {
    const sql = postgres(url, { max: 4, onnotice: () => undefined });
    const db = createPostgres({ sql, schema: name });
    await db.migrate();
    return {
      db,
      schema,
      query: async <Row>(text: string, params: unknown[] = []) =>
        [...(await sql.unsafe(text, params as never[]))] as Row[],
      // A bounded end: a connection the server cut stays open on postgres.js's side otherwise.
      close: () => sql.end({ timeout: 1 }),
    };
  }
  const lite = new PGlite();
  await lite.waitReady;
  const db = createPostgres({ sql: lite, schema: name });
  await db.migrate();
  return {
    db,
    schema,
    query: async <Row>(text: string, params?: unknown[]) => (await lite.query<Row>(text, params)).rows,
    close: () => lite.close(),
  };
}
