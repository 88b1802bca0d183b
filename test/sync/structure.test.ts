/**
 * The /sync entry uses Web APIs only, like the core: no Node built-in, nothing of the fake or of
 * /redis, and from the receiver only its types (so it loads where the core loads).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const folder = fileURLToPath(new URL('../../src/sync/', import.meta.url));
const sources = readdirSync(folder).filter((name) => name.endsWith('.ts'));

describe('the /sync entry', () => {
  it('imports no Node built-in, nothing of /testing or /redis, and only types of the receiver', () => {
    expect(sources).toContain('index.ts');
    for (const name of sources) {
      const text = readFileSync(join(folder, name), 'utf8');
      const imports = [...text.matchAll(/^(import|export)(\s+type)?\s[^;]*?from\s+'([^']+)'/gm)].map(
        ([, , typeOnly, target]) => ({ typeOnly: Boolean(typeOnly), target: target! }),
      );
      expect(
        imports.filter(({ target }) => target.startsWith('node:') || /\/(testing|redis)\//.test(target)),
        name,
      ).toEqual([]);
      expect(
        imports.filter(({ target, typeOnly }) => target.includes('/webhooks/') && !typeOnly),
        name,
      ).toEqual([]);
      expect(
        imports.filter(({ target }) => !target.startsWith('.')),
        `${name} imports packages`,
      ).toEqual([]);
    }
  });
});
