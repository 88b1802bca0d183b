/**
 * The migrations on a real PostgreSQL server (and on PGlite), through every way a partner hands
 * over its database: applied once and idempotent, from several processes at once, in any schema
 * (quoted), an edited migration refused by name before anything is applied, the printed SQL
 * recording what it applies so that migrate() then does nothing, and no role named anywhere.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InputValidationError } from 'restaurant-partner-sdk';
import {
  createPostgres,
  MigrationChangedError,
  SchemaNotMigratedError,
  type PostgresDatabase,
} from 'restaurant-partner-sdk/postgres';
import { MIGRATIONS, migrate, migratedExecutor } from '../../src/postgres/migrations.js';
import { useConnection, type Connected, type DriverKind } from './support/drivers.js';
import { freshSchema, pgClient, usePostgresServer } from './support/postgres-server.js';

const server = usePostgresServer();

const LATEST = MIGRATIONS.length;

async function tables(db: Connected, schema: string): Promise<string[]> {
  const rows = await db.raw(
    `select table_name from information_schema.tables where table_schema = $1 order by table_name`,
    [schema],
  );
  return rows.map((row) => String(row.table_name));
}

async function applied(db: Connected, schema: string) {
  const id = `"${schema.replaceAll('"', '""')}"`;
  return db.raw(
    `select version, name, checksum, applied_at::text as applied_at from ${id}.schema_migrations order by version`,
  );
}

describe.each<DriverKind>(['pg Pool', 'pg Client', 'postgres.js', 'PGlite', 'Drizzle', 'Kysely'])(
  'migrations through %s',
  (kind) => {
    const db = useConnection(server, kind);

    it('creates the schema and its tables once; a second migrate() changes nothing', async () => {
      const schema = freshSchema();
      const postgres = createPostgres({ sql: db.sql, schema });
      expect(await postgres.schemaVersion()).toBe(0);
      expect(await postgres.migrate()).toEqual({ version: LATEST });
      expect(await tables(db, schema)).toEqual(
        expect.arrayContaining(['booking_ledger', 'booking_ledger_sent', 'schema_migrations']),
      );
      const first = await applied(db, schema);
      expect(first.map((row) => row.name)).toEqual(MIGRATIONS.map((migration) => migration.name));
      expect(await postgres.migrate()).toEqual({ version: LATEST });
      expect(await applied(db, schema)).toEqual(first);
      expect(await postgres.schemaVersion()).toBe(LATEST);
    });

    it('the printed SQL applies and records the versions: migrate() then has nothing to do', async () => {
      const schema = freshSchema();
      const postgres = createPostgres({ sql: db.sql, schema });
      const text = postgres.migrationSql();
      // Run as a team would (psql, or a migration tool): the whole text at once, twice.
      const runScript = (script: string) =>
        kind === 'PGlite'
          ? (db.sql as { exec(text: string): Promise<unknown> }).exec(script)
          : connectAdmin().then(async (client) => {
              try {
                await client.query(script);
              } finally {
                await client.end();
              }
            });
      await runScript(text);
      await runScript(text);
      expect(await postgres.schemaVersion()).toBe(LATEST);
      const recorded = await applied(db, schema);
      expect(recorded).toHaveLength(LATEST);
      expect(await postgres.migrate()).toEqual({ version: LATEST });
      expect(await applied(db, schema)).toEqual(recorded);
    });

    it('an applied migration whose text changed is refused by name, before anything is applied', async () => {
      const schema = freshSchema();
      const postgres = createPostgres({ sql: db.sql, schema });
      await postgres.migrate();
      const edited = MIGRATIONS.map((migration, index) =>
        index === 0
          ? { name: migration.name, sql: (id: string) => `${migration.sql(id)}\n-- edited` }
          : migration,
      );
      const error = await migrate(postgres.executor, schema, edited).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MigrationChangedError);
      expect((error as MigrationChangedError).migration).toBe('0001_booking_ledger');
      expect((error as Error).message).toContain('0001_booking_ledger');
      // A migration added after the edited one is not applied either: the run stopped first.
      const later = [
        ...edited,
        { name: '0099_later', sql: (id: string) => `create table ${id}.later (x int)` },
      ];
      await expect(migrate(postgres.executor, schema, later)).rejects.toBeInstanceOf(MigrationChangedError);
      expect(await tables(db, schema)).not.toContain('later');
    });
  },
);

/** A node-postgres client of its own, for running a whole script as psql would. */
async function connectAdmin() {
  const client = pgClient(server.url);
  await client.connect();
  return client;
}

describe('migrations on the real server', () => {
  const db = useConnection(server, 'pg Pool');
  let postgres: PostgresDatabase;

  it('the checksum stored for a migration is checked: a tampered one names the migration', async () => {
    const schema = freshSchema();
    postgres = createPostgres({ sql: db.sql, schema });
    await postgres.migrate();
    await db.raw(`update "${schema}".schema_migrations set checksum = 'tampered' where version = 1`);
    await expect(postgres.migrate()).rejects.toThrow(
      /Migration 0001_booking_ledger was applied .* with other text/,
    );
  });

  it('a schema holding a migration this package does not know is refused, naming it', async () => {
    const schema = freshSchema();
    postgres = createPostgres({ sql: db.sql, schema });
    await postgres.migrate();
    await db.raw(
      `insert into "${schema}".schema_migrations (version, name, checksum) values (999, '0999_future', 'x')`,
    );
    const error = await postgres.migrate().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MigrationChangedError);
    expect((error as MigrationChangedError).migration).toBe('0999_future');
  });

  it('any schema name, quoted: spaces, capitals, quotes, a reserved word', async () => {
    for (const schema of ['Partner "Data" 2026', 'select', 'ümlaut schéma']) {
      const named = createPostgres({ sql: db.sql, schema });
      expect(await named.migrate()).toEqual({ version: LATEST });
      expect(await tables(db, schema)).toContain('booking_ledger');
      expect(await named.schemaVersion()).toBe(LATEST);
    }
  });

  it('a schema name Postgres would refuse is an input error before any statement', () => {
    for (const schema of ['', 'pg_mine', 'x'.repeat(64), 'nul\0byte', 42]) {
      expect(() => createPostgres({ sql: db.sql, schema: schema as string })).toThrow(InputValidationError);
    }
    expect(() => createPostgres({ sql: {} as never })).toThrow(/sql: expected a node-postgres Pool/);
  });

  it('a table missing from an unmigrated schema is one line naming the migrate step', async () => {
    const schema = freshSchema('unmigrated');
    const executor = migratedExecutor(createPostgres({ sql: db.sql, schema }).executor, schema);
    for (const attempt of [
      executor.query(`select * from "${schema}".booking_ledger`),
      executor.transaction((tx) => tx.query(`select * from "${schema}".booking_ledger`)),
    ]) {
      const error = await attempt.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SchemaNotMigratedError);
      expect((error as Error).message).toBe(
        `The tables of restaurant-partner-sdk are missing from schema "${schema}": run db.migrate() (or apply db.migrationSql()) before using it`,
      );
    }
  });

  it('names no role: no GRANT, OWNER or ROLE in any migration', () => {
    const text = createPostgres({ sql: db.sql }).migrationSql();
    expect(text).not.toMatch(/\b(grant|revoke|owner|role|authorization)\b/i);
    expect(text).toContain('"restaurant_partner"');
  });

  it('several processes migrating one new schema at once: each migration applied once, every process succeeds', async () => {
    const schema = freshSchema('together');
    const script = fileURLToPath(new URL('./support/migrate-process.mjs', import.meta.url));
    const source = fileURLToPath(new URL('../../src', import.meta.url));
    const runs = Array.from(
      { length: 4 },
      (_, index) =>
        new Promise<{ code: number | null; out: string }>((resolve) => {
          const child = spawn(process.execPath, ['--import', 'tsx', script], {
            env: {
              ...process.env,
              SDK_SOURCE: source,
              DATABASE_URL: server.url,
              SCHEMA: schema,
              DRIVER: index % 2 ? 'postgres.js' : 'pg',
            },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let out = '';
          child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
          child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
          child.on('exit', (code) => resolve({ code, out }));
        }),
    );
    const results = await Promise.all(runs);
    for (const result of results) {
      expect(result.code, result.out).toBe(0);
      expect(JSON.parse(result.out.trim().split('\n').at(-1)!)).toEqual({ version: LATEST });
    }
    expect((await applied(db, schema)).map((row) => Number(row.version))).toEqual(
      MIGRATIONS.map((_, index) => index + 1),
    );
  }, 60_000);
});
