/**
 * The tables of docs/fake.md say what the code does: each is compared with a rendering of
 * the table the code decides with (routes, dialects, limits, transitions, fault operations).
 * `npx tsx test/testing/support/readme-tables.ts --write` rewrites them after a change.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAKE_DOCS, TABLES, readmeBlock } from './support/readme-tables.js';

describe('docs/fake.md tables', () => {
  const readme = readFileSync(FAKE_DOCS, 'utf8');
  it.each(Object.keys(TABLES))('%s matches the code', (name) => {
    expect(readmeBlock(readme, name), `docs/fake.md lacks the ${name} block`).toBeDefined();
    expect(readmeBlock(readme, name)).toBe(TABLES[name]!());
  });

  it('names every option of the bin', () => {
    for (const option of [
      '--port',
      '--host',
      '--seed',
      '--rate-limit',
      '--dialect',
      '--allow-remote-control',
      '--max-sandboxes',
      '--sandbox-idle-minutes',
      '--quiet',
    ])
      expect(readme).toContain(option);
  });
});
