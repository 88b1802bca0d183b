/**
 * `restaurant-partner migrate`: the Postgres entry's migrations from the command line, for teams
 * that run migrations as a deploy step rather than from the app (`db.migrate()`). `--print` writes
 * the SQL for a migration tool of your own (it records the versions it applies, so a later
 * `db.migrate()` does nothing); without it, the migrations are applied through node-postgres
 * (`pg`, from your own install), under the same advisory lock as `db.migrate()`.
 * @module
 */
import { createPostgres } from '../postgres/index.js';
import {
  CommandFailure,
  createOutput,
  createRedactor,
  runCommand,
  text,
  type CommandDefinition,
} from './cli-kit.js';

const usage = `Usage: restaurant-partner migrate [--print] [--status] [--schema NAME] [--database-url URL] [--json]

Applies the migrations of restaurant-partner-sdk/postgres to the schema (default restaurant_partner):
creates it if missing, applies what it lacks under an advisory lock (safe from several processes at
once), refuses a migration whose recorded text changed. The database is --database-url, else
DATABASE_URL; the driver is node-postgres (npm install pg).
--print writes the SQL instead (no database needed): run it with your own migration tool; it records
the versions it applies, so db.migrate() then does nothing.
--status prints the schema's version and applies nothing.
Exit codes: 0 done, 1 the database refused or could not be reached, 2 usage.

Examples:
  restaurant-partner migrate --print --schema restaurant_partner > migrations/restaurant_partner.sql
  DATABASE_URL=postgres://app@db/app restaurant-partner migrate`;

const definition: CommandDefinition = {
  name: 'migrate',
  usage,
  options: {
    print: { type: 'boolean', default: false },
    status: { type: 'boolean', default: false },
    schema: { type: 'string' },
    'database-url': { type: 'string' },
  },
};

/** node-postgres, from the partner's own install (an optional peer dependency). */
async function loadPg(): Promise<{
  Pool: new (options: { connectionString: string; max: number }) => PgPool;
}> {
  try {
    // `as string`: pg is the partner's optional install, not resolved here; its shape is asserted below.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    const module = (await import('pg' as string)) as { default?: unknown; Pool?: unknown };
    return (module.default ?? module) as {
      Pool: new (options: { connectionString: string; max: number }) => PgPool;
    };
  } catch {
    throw new CommandFailure('node-postgres is not installed: npm install pg (or use --print)');
  }
}

interface PgPool {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  connect(): Promise<unknown>;
  on(event: 'error', listener: () => void): unknown;
  end(): Promise<void>;
}

/** Runs `restaurant-partner migrate` with `args`. */
export async function run(args: string[]): Promise<void> {
  await runCommand(definition, args, async (values) => {
    const schema = text(values, 'schema') ?? 'restaurant_partner';
    const output = createOutput(values.json === true);
    if (values.print === true) {
      // No database: an object that cannot be queried is enough to print the SQL.
      const sql = createPostgres({ sql: unreachable, schema }).migrationSql();
      if (values.json === true) output({ schema, sql }, '');
      else process.stdout.write(sql.endsWith('\n') ? sql : `${sql}\n`);
      return 0;
    }
    const url = text(values, 'database-url') ?? process.env.DATABASE_URL;
    if (!url) throw new CommandFailure('give the database: --database-url URL or DATABASE_URL (or --print)');
    // The URL's password never reaches the output, whatever the driver puts in its errors.
    const redactor = createRedactor([
      URL.canParse(url) ? decodeURIComponent(new URL(url).password) : undefined,
    ]);
    const { Pool } = await loadPg();
    const pool = new Pool({ connectionString: url, max: 1 });
    pool.on('error', () => undefined);
    try {
      const db = createPostgres({ sql: pool, schema });
      const before = await db.schemaVersion();
      if (values.status === true) {
        output({ schema, version: before }, `schema ${schema}: version ${before}`);
        return 0;
      }
      const { version } = await db.migrate();
      output(
        { schema, before, version },
        version === before
          ? `schema ${schema}: at version ${version}, nothing to apply`
          : `schema ${schema}: version ${before} -> ${version}`,
      );
      return 0;
    } catch (error) {
      throw new CommandFailure(redactor.redact(error instanceof Error ? error.message : String(error)));
    } finally {
      await pool.end().catch(() => undefined);
    }
  });
}

/** An executor for printing only: the SQL is built without a database. */
const unreachable = {
  query(): Promise<{ rows: [] }> {
    return Promise.reject(new Error('no database: --print only prints'));
  },
  transaction(): Promise<never> {
    return Promise.reject(new Error('no database: --print only prints'));
  },
};
