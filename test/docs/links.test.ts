/**
 * The docs ship in the package: each relative link in docs/ (and CONTRIBUTING) reaches a file that
 * exists, relative to the doc it is in, and each file a shipped doc links to ships too.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const shippedDocs = readdirSync(join(root, 'docs'))
  .filter((file) => file.endsWith('.md'))
  .map((file) => `docs/${file}`);
const { files } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };

/** The relative link targets of a Markdown file (no anchors, no URLs), from the repository root. */
function linkTargets(doc: string): string[] {
  const text = readFileSync(join(root, doc), 'utf8');
  return [...text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)]
    .map(([, target]) => target!)
    .filter((target) => !/^[a-z]+:/i.test(target))
    .map((target) => normalize(join(dirname(doc), target)));
}

/** Whether a path matches an entry of package.json `files` (a folder, a file, or `folder/*.ext`). */
const ships = (path: string): boolean =>
  files.some((entry) =>
    entry.includes('*')
      ? new RegExp(`^${entry.replace(/\./g, '\\.').replace(/\*/g, '[^/]+')}$`).test(path)
      : path === entry || path.startsWith(`${entry}/`),
  );

describe('links in the docs', () => {
  it('reach files that exist, relative to the doc', () => {
    const broken = [...shippedDocs, 'CONTRIBUTING.md'].flatMap((doc) =>
      linkTargets(doc)
        .filter((target) => !existsSync(join(root, target)))
        .map((target) => `${doc} -> ${target}`),
    );
    expect(broken).toEqual([]);
  });

  it('reach only files the package ships, from a doc it ships', () => {
    const missing = shippedDocs.flatMap((doc) =>
      linkTargets(doc)
        .filter((target) => !ships(target))
        .map((target) => `${doc} -> ${target}`),
    );
    expect(missing).toEqual([]);
  });
});
