/**
 * The other entries' errors and their guards work across copies of the package (two versions side
 * by side, or one bundled into a dependency), where `instanceof` fails: `isWebhookError`,
 * `isSyncStoppedError`, `isMigrationChangedError`, `isSchemaNotMigratedError`, and
 * `isPartnerSdkError(error, SomeClass)` for every class of those entries.
 */
import { build } from 'esbuild';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isPartnerSdkError, type PartnerSdkError } from 'restaurant-partner-sdk';
import * as postgres from 'restaurant-partner-sdk/postgres';
import * as redis from 'restaurant-partner-sdk/redis';
import * as sync from 'restaurant-partner-sdk/sync';
import * as webhooks from 'restaurant-partner-sdk/webhooks';

const root = fileURLToPath(new URL('../..', import.meta.url));
const entries = { webhooks, sync, postgres, redis };
type Entries = typeof entries;

/** A second copy of the four entries, bundled and minified as a dependency would carry them. */
async function loadSecondCopy(): Promise<Entries> {
  const result = await build({
    stdin: {
      contents: Object.keys(entries)
        .map((name) => `export * as ${name} from './src/${name}/index.ts';`)
        .join('\n'),
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    minify: true,
    write: false,
    logLevel: 'silent',
    // The optional peers stay dynamic imports, never reached by these tests.
    external: ['pg', 'postgres', '@electric-sql/pglite', '@opentelemetry/api'],
  });
  const directory = await mkdtemp(join(tmpdir(), 'sdk-second-copy-'));
  const file = join(directory, 'entries.mjs');
  await writeFile(file, result.outputFiles[0]!.text);
  try {
    return (await import(/* @vite-ignore */ pathToFileURL(file).href)) as Entries;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

describe('the entries’ errors across copies of the package', () => {
  it('are recognised by their guards and by isPartnerSdkError, where instanceof fails', async () => {
    const other = await loadSecondCopy();
    const refused = new other.webhooks.WebhookVerificationError('mismatch');
    expect(refused instanceof webhooks.WebhookError).toBe(false);
    expect(webhooks.isWebhookError(refused)).toBe(true);
    expect(isPartnerSdkError(refused, webhooks.WebhookVerificationError)).toBe(true);
    expect(isPartnerSdkError(refused, webhooks.WebhookPayloadError)).toBe(false);
    expect(refused.status).toBe(401);

    const stopped = new other.sync.SyncStoppedError();
    expect(sync.isSyncStoppedError(stopped)).toBe(true);
    expect(webhooks.isWebhookError(stopped)).toBe(false);

    const changed = new other.postgres.MigrationChangedError('changed', { migration: '0001_x' });
    const notMigrated = new other.postgres.SchemaNotMigratedError({ schema: 'app' });
    expect(postgres.isMigrationChangedError(changed)).toBe(true);
    expect(postgres.isMigrationChangedError(notMigrated)).toBe(false);
    expect(postgres.isSchemaNotMigratedError(notMigrated)).toBe(true);
    expect(postgres.isSchemaNotMigratedError(changed)).toBe(false);
    // Every error class of the four entries, by its name, without constructing it.
    for (const [entry, exports] of Object.entries(other)) {
      for (const [name, value] of Object.entries(exports as Record<string, unknown>)) {
        if (typeof value !== 'function' || !(value.prototype instanceof Error)) continue;
        const mine = (entries as Record<string, Record<string, unknown>>)[entry]![name] as abstract new (
          ...args: never[]
        ) => PartnerSdkError;
        const theirs = Object.create(value.prototype) as unknown;
        expect(theirs instanceof mine, `${entry}.${name}`).toBe(false);
        expect(isPartnerSdkError(theirs, mine), `${entry}.${name}`).toBe(true);
      }
    }
  });

  it('keep their class names in print and in JSON', () => {
    const error = new webhooks.WebhookPayloadTooLargeError(10);
    expect(error.name).toBe('WebhookPayloadTooLargeError');
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ name: 'WebhookPayloadTooLargeError' });
    expect(error.stack).toMatch(/^WebhookPayloadTooLargeError: /);
    expect(new postgres.SchemaNotMigratedError({ schema: 'app' }).name).toBe('SchemaNotMigratedError');
  });
});
