/**
 * The doc comments of exported things ship in the `.d.ts` a partner's editor shows, and a partner
 * has the package, not this repository: such a comment never sends them to a source path
 * (`src/...`) or to a document they do not have.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The simulator page's script runs in a browser and ships no `.d.ts`. */
const UNPUBLISHED = 'src/testing/ui/page/';
/**
 * Files another lane of this session rewrites (the module-level memos): their comment is fixed
 * there. Each must still need it, so the entry goes once it is fixed.
 */
const FIXED_ELSEWHERE = new Set(['src/testing/api/restaurants.ts']);
// "Where the interface spec is silent" is the title of a doc partners have.
const NOT_OURS_TO_CITE = /\bsrc\/|interface-spec|interface spec(?! is silent)|design[- ]brief|\bissue \d+/i;

function sourceFiles(): string[] {
  return readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
    .map((name) => `src/${name}`)
    .filter((file) => /\.m?ts$/.test(file) && !file.startsWith(UNPUBLISHED));
}

describe('published doc comments', () => {
  it('cite no source path and no document a partner does not have', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles()) {
      const text = readFileSync(join(root, file), 'utf8');
      // A doc comment of an export, or a module comment (the bundled .d.ts keeps both).
      const exported = text.matchAll(/\/\*\*(?:(?!\*\/)[\s\S])*\*\/(?=\s*(?:\/\/.*\s*)*export\b)/g);
      const modules = text.matchAll(/\/\*\*(?:(?!\*\/)[\s\S])*@module(?:(?!\*\/)[\s\S])*\*\//g);
      for (const [comment] of [...exported, ...modules]) {
        const found = NOT_OURS_TO_CITE.exec(comment);
        if (found) offenders.push(`${file}: ${found[0]}`);
      }
    }
    const files = new Set(offenders.map((offence) => offence.slice(0, offence.indexOf(':'))));
    for (const file of FIXED_ELSEWHERE)
      expect(files.has(file), `${file} is fixed: drop its entry`).toBe(true);
    expect(
      [...new Set(offenders)].filter(
        (offence) => !FIXED_ELSEWHERE.has(offence.slice(0, offence.indexOf(':'))),
      ),
    ).toEqual([]);
  });
});
