/**
 * `npm run test:fast` runs the `fast` project on a machine without redis-server or Chromium, so a
 * test that needs one must be in the `system` project: one that slipped into `fast` would install
 * the program (or fail) in the inner loop, and one wrongly in `system` would leave the inner loop.
 * The few heavy Node-only files the inner loop leaves out run in the `slow` project of `npm test`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FULL_LANE_ONLY, NEEDS_SYSTEM_PROGRAMS } from '../../vitest.config.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** What a test file imports when it starts redis-server, PostgreSQL or Chromium. */
const STARTS_A_PROGRAM =
  /from '[^']*(?:\/(?:redis|postgres)-server\.m?js|\/browser\.js|playwright-core)'|ensureSystemPackages\(/;

function testFiles(folder: string, ending = '.test.ts'): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(ending))
    .map((name) => relative(root, join(root, folder, name)));
}

describe('test lanes', () => {
  it('puts exactly the tests that start redis-server, PostgreSQL or Chromium in the system project', () => {
    const inSystem = (file: string) => NEEDS_SYSTEM_PROGRAMS.some((glob) => globMatches(glob, file));
    const files = [...testFiles('test'), ...testFiles('examples')];
    const starting = files.filter((file) => STARTS_A_PROGRAM.test(readFileSync(join(root, file), 'utf8')));
    expect(starting.length, 'the detector finds the Redis and browser tests').toBeGreaterThanOrEqual(4);
    expect(files.filter((file) => inSystem(file) !== starting.includes(file))).toEqual([]);
  });

  it('leaves out of the fast lane only existing Node-only files, each with its reason', () => {
    const files = [...testFiles('test'), ...testFiles('examples')];
    for (const [file, reason] of Object.entries(FULL_LANE_ONLY)) {
      expect(files, `${file} exists, so npm test still runs it`).toContain(file);
      expect(
        NEEDS_SYSTEM_PROGRAMS.some((glob) => globMatches(glob, file)),
        `${file} is not also in system`,
      ).toBe(false);
      expect(reason.length, `${file} says why`).toBeGreaterThan(20);
    }
  });

  it("keeps every test that starts a process (itself or through its folder's support) out of the fast lane", () => {
    const startsAProcess = (path: string) =>
      /^import [^;]*from 'node:child_process';/m.test(readFileSync(join(root, path), 'utf8'));
    const spawningSupport = testFiles('test', '.ts').filter(
      (file) => !file.endsWith('.test.ts') && startsAProcess(file),
    );
    const usesSpawningSupport = (file: string) =>
      spawningSupport.some((support) => {
        const text = readFileSync(join(root, file), 'utf8');
        return text.includes(`/${basename(support, '.ts')}.js'`) && dirname(support) === dirname(file);
      });
    const fast = [...testFiles('test'), ...testFiles('examples')].filter(
      (file) => !NEEDS_SYSTEM_PROGRAMS.some((glob) => globMatches(glob, file)) && !(file in FULL_LANE_ONLY),
    );
    expect(fast.length, 'the fast lane is found').toBeGreaterThan(50);
    expect(fast.filter((file) => startsAProcess(file) || usesSpawningSupport(file))).toEqual([]);
  });
});

/** `**` any folders, `*` any name part: enough for the globs of vitest.config.ts. */
function globMatches(glob: string, file: string): boolean {
  const pattern = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*\*\//g, '(?:.*/)?')
    .replace(/\*/g, '[^/]*');
  return new RegExp(`^${pattern}$`).test(file);
}
