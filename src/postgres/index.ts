/**
 * `restaurant-partner-sdk/postgres`: the booking ledger, the sync store and a mirror in the
 * partner's own PostgreSQL, through the driver the partner already has (node-postgres,
 * postgres.js, PGlite) or any {@link SqlExecutor} (Drizzle, Kysely). See docs/postgres.md.
 * @module
 */
import type { BookingLedger } from '../lib/booking-ledger.js';
import { createPostgresBookingLedger } from './booking-ledger.js';
import { toExecutor, type SqlExecutor, type SqlSource } from './executor.js';
import { DEFAULT_SCHEMA, migrate, migrationSql, schemaIdentifier, schemaVersion } from './migrations.js';
import { mirrorOptions, type MirrorOptions, type PostgresOnChange } from './mirror.js';
import { createPostgresSyncStore } from './sync-store.js';
import type { TransactionalSyncStore } from '../sync/store.js';

export type {
  PGliteLike,
  PgClientLike,
  PgPoolLike,
  PostgresJsLike,
  SqlExecutor,
  SqlResult,
  SqlSource,
} from './executor.js';
export { toExecutor } from './executor.js';
export type { MirrorOptions, PostgresOnChange } from './mirror.js';
export {
  MigrationChangedError,
  SchemaNotMigratedError,
  isMigrationChangedError,
  isSchemaNotMigratedError,
} from './errors.js';

/** Options of {@link createPostgres}. */
export interface PostgresOptions {
  /**
   * The database: a node-postgres `Pool` (best: transactions get a connection each) or `Client`,
   * a postgres.js `sql`, a PGlite instance, or an object implementing {@link SqlExecutor}.
   */
  sql: SqlSource;
  /** The schema holding the tables (default `restaurant_partner`); any name, quoted where needed. */
  schema?: string | undefined;
}

/** What {@link createPostgres} returns: one schema in one database. */
export interface PostgresDatabase {
  /** The schema's name, as given. */
  readonly schema: string;
  /** The executor every statement runs through. */
  readonly executor: SqlExecutor;
  /**
   * Creates the schema if missing and applies the migrations it lacks, under an advisory lock (so
   * processes starting at once are safe); resolves with the version reached. Refuses, before
   * applying anything, a migration applied with other text (`MigrationChangedError`, naming it).
   */
  migrate(): Promise<{ version: number }>;
  /**
   * The SQL `migrate()` would run, for teams that apply migrations themselves: one transaction,
   * safe to run twice, recording the versions it applies (so `schemaVersion()` reads them and
   * `migrate()` then has nothing to do).
   */
  migrationSql(): string;
  /** The schema's version: the highest migration applied (0 when none, or no schema). */
  schemaVersion(): Promise<number>;
  /**
   * The booking ledger in this schema, for `new PartnerClient({ bookingLedger })`: shared by every
   * process on the database, durable (a create with your own key the ledger never saw costs one
   * request), and able to claim a key inside your own transaction (`create(..., { tx })`). On a
   * schema not migrated, every create fails closed (nothing sent) with a message naming `migrate()`.
   */
  bookingLedger(): BookingLedger;
  /**
   * A reservation sync's store in this schema, shared by every process on the database, and
   * transactional: `createReservationSync({ store: db.syncStore(), onChange })` hands each change
   * to `onChange` with `context.tx`, the transaction that records it, so your writes through
   * `tx` and the sync's state commit together or not at all.
   */
  syncStore(): TransactionalSyncStore<SqlExecutor>;
  /**
   * Options to spread into `createReservationSync`: `store` (as {@link PostgresDatabase.syncStore})
   * and an `onChange` that keeps the schema's `reservations` (one row per reservation) and
   * `reservation_changes` (every change, once) equal to the service. `onChange` given here runs
   * after the mirror's writes, in the same transaction.
   */
  mirror(options?: { onChange?: PostgresOnChange }): MirrorOptions;
}

/**
 * The Postgres entry over one database and schema.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { createPostgres } from 'restaurant-partner-sdk/postgres';
 * const db = createPostgres({ sql: new pg.Pool({ connectionString }) });
 * await db.migrate();
 * ```
 */
export function createPostgres(options: PostgresOptions): PostgresDatabase {
  const schema = options?.schema ?? DEFAULT_SCHEMA;
  // Both checked at once: a bad name or driver is refused before any statement.
  schemaIdentifier(schema);
  const executor = toExecutor(options?.sql);
  return {
    schema,
    executor,
    migrate: () => migrate(executor, schema),
    migrationSql: () => migrationSql(schema),
    schemaVersion: () => schemaVersion(executor, schema),
    bookingLedger: () => createPostgresBookingLedger({ executor, schema }),
    syncStore: () => createPostgresSyncStore(executor, schema),
    mirror: (mirrored) =>
      mirrorOptions(createPostgresSyncStore(executor, schema), schema, mirrored?.onChange),
  };
}
