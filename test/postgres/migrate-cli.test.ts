/**
 * `restaurant-partner migrate` against a real PostgreSQL server, as a deploy step runs it: the
 * status of an empty database, the migrations applied once and then nothing, the printed SQL run
 * by a tool of the partner's own (then the command has nothing to apply), and usage errors.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/postgres/migrations.js';
import { freshSchema, pgClient, usePostgresServer } from './support/postgres-server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const LATEST = MIGRATIONS.length;

const server = usePostgresServer();

/** Runs the bin from source; resolves with its exit code and output (never rejects on a non-zero exit). */
async function migrate(args: string[], env: Record<string, string | undefined> = {}) {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/bin/restaurant-partner.ts', 'migrate', ...args],
      { cwd: root, timeout: 60_000, env: { ...process.env, DATABASE_URL: undefined, ...env } },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('restaurant-partner migrate', () => {
  it('reports version 0, applies every migration once, then has nothing to apply', async () => {
    const schema = freshSchema('cli');
    const status = await migrate(['--status', '--schema', schema, '--json'], { DATABASE_URL: server.url });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual({ schema, version: 0 });

    const first = await migrate(['--schema', schema, '--database-url', server.url, '--json']);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ schema, before: 0, version: LATEST });

    const again = await migrate(['--schema', schema], { DATABASE_URL: server.url });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`at version ${LATEST}, nothing to apply`);
  }, 120_000);

  it('prints SQL that a tool of your own runs; the command then has nothing to apply', async () => {
    const schema = freshSchema('printed');
    const printed = await migrate(['--print', '--schema', schema]);
    expect(printed.code).toBe(0);
    const client = pgClient(server.url);
    await client.connect();
    try {
      await client.query(printed.stdout);
      const { rows } = await client.query<{ version: number }>(
        `select version from "${schema}".schema_migrations order by version`,
      );
      expect(rows.map((row) => row.version)).toEqual(MIGRATIONS.map((_, index) => index + 1));
    } finally {
      await client.end();
    }
    const after = await migrate(['--schema', schema, '--json'], { DATABASE_URL: server.url });
    expect(JSON.parse(after.stdout)).toEqual({ schema, before: LATEST, version: LATEST });
  }, 120_000);

  it('without a database says where to give it (exit 1); an unknown option is usage (exit 2)', async () => {
    const missing = await migrate([]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--database-url URL or DATABASE_URL');
    const usage = await migrate(['--no-such-option']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Usage: restaurant-partner migrate');
  }, 120_000);

  it('never prints the password of the database URL, even when the server refuses it', async () => {
    const url = new URL(server.url);
    url.username = 'no_such_role';
    url.password = 'S3cret-Pa55word';
    const refused = await migrate(['--status'], { DATABASE_URL: url.href });
    expect(refused.code).toBe(1);
    expect(refused.stderr.length).toBeGreaterThan(0);
    expect(refused.stderr + refused.stdout).not.toContain('S3cret-Pa55word');
  }, 120_000);
});
