/**
 * The `/testing` entry loads neither `node:http` nor `msw` at import, and `clientOptions()` works
 * with msw not installed: seen from a fresh child process (test/testing/support/import-probe.mjs),
 * so it runs in the slow lane.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe("the fake's structure", () => {
  it('/testing loads neither node:http nor msw at import, and clientOptions() works with msw not installed', () => {
    const output = execFileSync(
      process.execPath,
      ['--import', 'tsx', join(root, 'test/testing/support/import-probe.mjs')],
      { cwd: root, encoding: 'utf8' },
    );
    const probe = JSON.parse(output.trim().split('\n').pop()!);
    expect(
      probe.atImport.filter((specifier: string) => /^(node:)?(http|https|net)$|^msw/.test(specifier)),
    ).toEqual([]);
    expect(probe.restaurants).toBe(3);
    expect(probe.handlersError).toMatch(/needs msw.*npm install --save-dev msw/);
  });
});
