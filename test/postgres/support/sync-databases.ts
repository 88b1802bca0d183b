/**
 * A database for the sync's proofs: each way a partner hands its database over (the drivers of
 * ./drivers.ts: node-postgres Pool and Client, postgres.js, PGlite, Drizzle, Kysely), in a fresh
 * schema whose name needs quoting, migrated.
 */
import { createPostgres } from 'restaurant-partner-sdk/postgres';
import { connect, type DriverKind } from './drivers.js';

export const SYNC_DRIVERS: readonly DriverKind[] = [
  'pg Pool',
  'pg Client',
  'postgres.js',
  'PGlite',
  'Drizzle',
  'Kysely',
];

export interface Opened {
  db: ReturnType<typeof createPostgres>;
  /** Runs SQL on a connection of the test's own (to look at the tables). */
  query: <Row = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<Row[]>;
  /** The schema's quoted identifier. */
  schema: string;
  close: () => Promise<void>;
}

let schemas = 0;

/** Opens `kind` on the cluster at `url` in a fresh schema, migrated. */
export async function open(kind: DriverKind, url: string): Promise<Opened> {
  const connected = await connect(kind, url);
  const name = `Sync ${kind} ${process.pid} ${++schemas}`;
  const db = createPostgres({ sql: connected.sql, schema: name });
  await db.migrate();
  return {
    db,
    schema: `"${name}"`,
    query: async <Row>(text: string, params?: unknown[]) => (await connected.raw(text, params)) as Row[],
    close: () => connected.close(),
  };
}
