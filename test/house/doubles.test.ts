/**
 * Test doubles are written once: one test clock (test/support/manual-clock.ts), one reservation
 * fixture (test/support/reservation-wire.mjs, shared with the bench), one Basic auth helper (test/support/basic-auth.ts). A
 * copy written inline drifts from the original (a field added to the reservation, a clock that
 * forgets abort), so each check below fails when another file of test/ writes its own again.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const HERE = 'test/house/doubles.test.ts';

/** Every source file of `folder` (TypeScript and plain JavaScript), relative to the repository. */
function testSources(folder = 'test'): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(?:m?ts|mjs)$/.test(name))
    .map((name) => `${folder}/${name}`);
}

/** The lines of test/ matching `pattern` (and `keep`) outside the `owners` files, each with its file. */
function offenders(
  pattern: RegExp,
  owners: string[],
  keep: (line: string) => boolean = () => true,
): string[] {
  return testSources()
    .filter((file) => !owners.includes(file))
    .flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .filter((line) => pattern.test(line) && keep(line))
        .map((line) => `${file}: ${line.trim()}`),
    );
}

describe('test doubles, each written once', () => {
  it('Basic credentials are encoded only by test/support/basic-auth.ts', () => {
    // Base64 of a text holding a colon: a `user:password` pair encoded by hand.
    const pair = String.raw`(?:\x60[^\x60]*:[^\x60]*\x60|'[^']*:[^']*')`;
    const encodesAPair = new RegExp(
      String.raw`btoa\(\s*${pair}|Buffer\.from\(\s*${pair}[^)]*\)\.toString\(\s*'base64'`,
    );
    expect(
      encodesAPair.test("Buffer.from(`${id}:${token}`).toString('base64')"),
      'the check sees a copy',
    ).toBe(true);
    expect(encodesAPair.test("Buffer.from('Authorization: tok').byteLength"), 'bytes, not a header').toBe(
      false,
    );
    expect(offenders(encodesAPair, ['test/support/basic-auth.ts', HERE])).toEqual([]);
  });

  it('one test clock: no other file implements sleep (adapters that delegate to a clock are fine)', () => {
    // `sleep(ms) {`, `async sleep(ms, signal) {`, `sleep: (ms) => ...`, `sleep: async (ms) => ...`
    const definesSleep = /\bsleep\s*(?:\([^)]*\)\s*\{|:\s*(?:async\s*)?(?:\([^)]*\)|\w+)\s*=>)/;
    const delegates = (line: string) => !/\.sleep\(/.test(line);
    expect(definesSleep.test('  async sleep(ms, signal) {'), 'the check sees a copy').toBe(true);
    expect(definesSleep.test('  sleep: (ms, signal) => world.clock.sleep(ms, signal),')).toBe(true);
    expect(
      offenders(
        definesSleep,
        // The fake's clock followed step by step: the sync's tests and the bench share it (plain JavaScript).
        ['test/support/manual-clock.ts', 'test/sync/support/follower-clock.mjs', HERE],
        delegates,
      ),
    ).toEqual([]);
  });

  it('one reservation fixture: no other file of test/ or bench/ writes out a whole reservation', () => {
    // A written-out reservation sets its moments together: three of them within ten lines.
    const moment = /\b(cancelled_at|confirmed_at|arrived_at|no_show_at):\s*(?:null\b|')/;
    const writesOne = (text: string) => {
      const keys = text.split('\n').map((line) => moment.exec(line)?.[1]);
      return keys.some((_, at) => new Set(keys.slice(at, at + 10).filter(Boolean)).size >= 3);
    };
    expect(writesOne("{\n cancelled_at: null,\n confirmed_at: '2026-11-23',\n arrived_at: null,\n}")).toBe(
      true,
    );
    expect(
      writesOne('cancelled_at: nullable(a),\nconfirmed_at: nullable(a),\narrived_at: nullable(a),'),
    ).toBe(false);
    const copies = [...testSources(), ...testSources('bench')].filter(
      (file) =>
        file !== 'test/support/reservation-wire.mjs' &&
        file !== HERE &&
        writesOne(readFileSync(join(root, file), 'utf8')),
    );
    expect(copies).toEqual([]);
  });

  it('test/support/mock-api.ts, a leftover re-export, stays gone; no support file re-exports another', () => {
    expect(existsSync(join(root, 'test/support/mock-api.ts'))).toBe(false);
    expect(offenders(/^export \* from /, [HERE])).toEqual([]);
  });
});
