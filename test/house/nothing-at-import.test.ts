/**
 * Importing any entry of the package does nothing: no file or network I/O, no timer, no schema
 * built. Partners on serverless and edge platforms pay every import on each cold start, and an
 * import that starts a timer keeps a process alive. A fresh child process counts, with hooks on
 * timers, the file system, the network and zod's schema construction, what each import does.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
// Every entry in package.json `exports`, by its source file.
const ENTRIES = [
  'src/index.ts',
  'src/webhooks/index.ts',
  'src/testing/index.ts',
  'src/testing/node.ts',
  'src/sync/index.ts',
  'src/redis/index.ts',
  'src/postgres/index.ts',
  'src/otel/index.ts',
];

describe('nothing at import', () => {
  it('importing every entry does no I/O, starts no timer and builds no schema until first use', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'test/house/support/import-probe.mjs', ...ENTRIES],
      { cwd: root, timeout: 90_000 },
    );
    const result = JSON.parse(stdout) as {
      entries: Record<string, { timers: string[]; io: string[]; schemas: number }>;
      schemasOnFirstUse: number;
    };
    expect(Object.keys(result.entries)).toEqual(ENTRIES);
    for (const [entry, did] of Object.entries(result.entries))
      expect(did, `importing ${entry}`).toEqual({ timers: [], io: [], schemas: 0 });
    // The counter works: the first parse builds the schema (and its parts).
    expect(result.schemasOnFirstUse).toBeGreaterThan(5);
  }, 120_000);
});
