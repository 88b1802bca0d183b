/**
 * CONTRIBUTING's layout names every folder of src/ and test/, so a contributor finds where a thing
 * lives (and where a new one goes) from one page; a folder added without its line fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function folders(top: string): string[] {
  return readdirSync(join(root, top), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${join(entry.parentPath, entry.name).slice(root.length)}/`)
    .concat(`${top}/`);
}

describe("CONTRIBUTING's layout", () => {
  it('has a line for every folder of src/ and test/', () => {
    const text = readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8');
    const section = /^## Layout\n[\s\S]*?^```\n([\s\S]*?)^```/m.exec(text)?.[1] ?? '';
    const listed = section.split('\n').map((line) => /^(\S+\/)\s/.exec(line)?.[1]);
    const covered = (folder: string) =>
      listed.includes(folder) ||
      listed.includes(folder.replace(/^test\/[^/]+\/support\/$/, 'test/*/support/'));
    expect(listed.length, 'the layout block is found').toBeGreaterThan(20);
    expect([...folders('src'), ...folders('test')].filter((folder) => !covered(folder))).toEqual([]);
  });
});
