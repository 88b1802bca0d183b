/**
 * No file in src/ past 400 lines, counted as `wc -l` counts them (comments and blank lines
 * included), the simulator page's CSS and scripts included: a file a reader takes in at one
 * sitting, split by purpose when it grows (CONTRIBUTING, "Style").
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const MAX_LINES = 400;

/** Every file under `directory`, recursively. */
function files(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(directory, entry.name)) : [join(directory, entry.name)],
  );
}

/** Lines as `wc -l` counts them: newline characters. */
const lines = (path: string): number => readFileSync(path, 'utf8').split('\n').length - 1;

describe('file size', () => {
  it(`keeps every file in src/ at ${MAX_LINES} lines or fewer (wc -l)`, () => {
    const sources = files(join(root, 'src'));
    expect(sources.length).toBeGreaterThan(100);
    const tooLong = sources
      .map((path) => ({ file: relative(root, path), lines: lines(path) }))
      .filter((entry) => entry.lines > MAX_LINES)
      .map((entry) => `${entry.file}: ${entry.lines}`);
    expect(tooLong).toEqual([]);
  });
});
