/**
 * The schema's migrations and their runner. Each migration is text shipped in the package (one
 * file each under ./migrations/), applied once per schema in order, and recorded in the schema's
 * `schema_migrations` table with a checksum of its text: an applied migration whose text changed
 * since is refused by name. `migrate()` holds an advisory lock for the whole run, so processes
 * starting at once apply each migration once; `migrationSql()` prints the same SQL for teams
 * that run their migrations themselves. Nothing names a role: the tables belong to whoever runs it.
 * @module
 */
import { createHash } from 'node:crypto';
import { InputValidationError } from '../errors.js';
import { MigrationChangedError, SchemaNotMigratedError } from './errors.js';
import type { SqlExecutor } from './executor.js';
import { bookingLedger } from './migrations/0001_booking_ledger.js';
import { sync } from './migrations/0002_sync.js';

/** One migration: `NNNN_name`, and its SQL for a schema (the schema's quoted identifier). */
export interface Migration {
  readonly name: string;
  sql(schema: string): string;
}

/** Every migration, in order; a new one is one line here (and its file). `0002_sync` is the sync's. */
export const MIGRATIONS: readonly Migration[] = [bookingLedger, sync];

/** The schema used when the partner names none. */
export const DEFAULT_SCHEMA = 'restaurant_partner';

/** The version of a migration: the number its name starts with. */
const versionOf = (migration: Migration) => Number(migration.name.slice(0, 4));

/**
 * The checksum of a migration's text, the same in every schema (it is taken with a placeholder
 * for the schema's name): an edit to the file changes it, a partner's choice of schema does not.
 */
export function checksumOf(migration: Migration): string {
  return createHash('sha256').update(migration.sql('"{schema}"')).digest('hex');
}

/**
 * The schema's name as a quoted identifier. Any name Postgres accepts: 1 to 63 bytes, no NUL, not
 * starting with `pg_` (reserved for the system).
 */
export function schemaIdentifier(schema: unknown): string {
  const valid =
    typeof schema === 'string' &&
    schema.length > 0 &&
    new TextEncoder().encode(schema).length <= 63 &&
    !schema.includes('\0') &&
    !schema.toLowerCase().startsWith('pg_');
  if (!valid) {
    throw new InputValidationError([
      {
        field: 'schema',
        path: ['schema'],
        code: 'invalid_string',
        message: 'expected a schema name of 1 to 63 bytes, without NUL, not starting with pg_',
      },
    ]);
  }
  return `"${schema.replaceAll('"', '""')}"`;
}

/** A SQL string literal (standard strings: only the quote doubles). */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * The advisory lock of migrations on one schema: one process at a time applies them. Held until
 * the transaction ends, so nothing is left locked by a process that dies.
 */
const lockStatement = (schema: string) =>
  `select pg_advisory_xact_lock(hashtext('restaurant-partner-sdk migrate'), hashtext(${literal(schema)}))`;

const preamble = (id: string) => [
  `create schema if not exists ${id}`,
  `create table if not exists ${id}.schema_migrations (
  version integer primary key,
  name text not null,
  checksum text not null,
  applied_at timestamptz not null default now()
)`,
];

/**
 * One migration as one statement: applied and recorded unless its version already is, so the
 * printed SQL can be run twice. Its text runs through EXECUTE, which takes several statements.
 */
function migrationBlock(id: string, migration: Migration): string {
  const version = versionOf(migration);
  const tag = `$migration_${String(version).padStart(4, '0')}$`;
  return `do ${tag}
begin
  if not exists (select 1 from ${id}.schema_migrations where version = ${version}) then
    execute ${literal(migration.sql(id))};
    insert into ${id}.schema_migrations (version, name, checksum)
      values (${version}, ${literal(migration.name)}, ${literal(checksumOf(migration))});
  end if;
end
${tag}`;
}

/** The whole SQL that brings `schema` to the latest version, in one transaction; it records what it applies. */
export function migrationSql(schema: string, migrations: readonly Migration[] = MIGRATIONS): string {
  const id = schemaIdentifier(schema);
  const statements = [
    lockStatement(schema),
    ...preamble(id),
    ...migrations.map((migration) => migrationBlock(id, migration)),
  ];
  return `begin;\n${statements.map((statement) => `${statement};\n`).join('')}commit;\n`;
}

/**
 * The SQLSTATE of a database error: on the error, or on its causes (Drizzle and other layers wrap
 * the driver's error).
 */
export function sqlState(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A missing schema (3F000) or table (42P01): the migrations were not applied. */
export const isMissingRelation = (error: unknown) => ['42P01', '3F000'].includes(sqlState(error) ?? '');

/** The version `schema` is at: the highest applied migration, 0 when none (or no schema at all). */
export async function schemaVersion(executor: SqlExecutor, schema: string): Promise<number> {
  const id = schemaIdentifier(schema);
  try {
    const { rows } = await executor.query<{ version: string | null }>(
      `select max(version)::text as version from ${id}.schema_migrations`,
    );
    return Number(rows[0]?.version ?? 0);
  } catch (error) {
    if (isMissingRelation(error)) return 0;
    throw error;
  }
}

/**
 * Applies what is missing of `migrations` to `schema`, under the advisory lock, in one
 * transaction; resolves with the version reached. Refuses, before applying anything, an applied
 * migration whose text changed, and a schema newer than this package.
 */
export async function migrate(
  executor: SqlExecutor,
  schema: string,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<{ version: number }> {
  const id = schemaIdentifier(schema);
  return executor.transaction(async (tx) => {
    await tx.query(lockStatement(schema));
    for (const statement of preamble(id)) await tx.query(statement);
    const { rows } = await tx.query<{ version: number | string; name: string; checksum: string }>(
      `select version, name, checksum from ${id}.schema_migrations order by version`,
    );
    const known = new Map(migrations.map((migration) => [versionOf(migration), migration]));
    for (const row of rows) {
      const migration = known.get(Number(row.version));
      if (!migration) {
        throw new MigrationChangedError(
          `Schema ${id} has migration ${row.name} applied, which this version of restaurant-partner-sdk does not know: upgrade the package`,
          { migration: row.name },
        );
      }
      if (row.checksum !== checksumOf(migration)) {
        throw new MigrationChangedError(
          `Migration ${migration.name} was applied to schema ${id} with other text than this package ships: an applied migration is never edited; restore its text or add a new migration`,
          { migration: migration.name },
        );
      }
    }
    const applied = new Set(rows.map((row) => Number(row.version)));
    for (const migration of migrations) {
      if (!applied.has(versionOf(migration))) await tx.query(migrationBlock(id, migration));
    }
    return { version: Math.max(0, ...migrations.map(versionOf), ...applied) };
  });
}

/**
 * `executor`, with a missing table or schema reported as {@link SchemaNotMigratedError} (one line
 * naming the migrate step) instead of the driver's "relation does not exist". Every part of the
 * entry that reads or writes the schema's tables goes through it, in and out of transactions.
 */
export function migratedExecutor(executor: SqlExecutor, schema: string): SqlExecutor {
  const explained = (error: unknown) =>
    isMissingRelation(error) ? new SchemaNotMigratedError({ schema, cause: error }) : error;
  return {
    query: <Row>(text: string, params?: readonly unknown[]) =>
      executor.query<Row>(text, params).catch((error: unknown) => Promise.reject(explained(error))),
    transaction: (fn) =>
      executor
        .transaction((tx) => fn(migratedExecutor(tx, schema)))
        .catch((error: unknown) => Promise.reject(explained(error))),
  };
}
