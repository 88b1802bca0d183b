/**
 * The bin's help, as a newcomer reads it: `restaurant-partner --help` lists the commands, each
 * dev-loop command's `--help` shows its usage with an example and exits 0, an unknown option is
 * a usage mistake (exit 2), and every one of them has its worked session in docs/cli.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root, run, stopAll } from './support.js';

const DEV_LOOP = ['fake', 'listen', 'trigger', 'resend', 'tail', 'certify'];
afterAll(stopAll);

describe('restaurant-partner --help', { timeout: 90_000 }, () => {
  it('lists every dev-loop command; each has --help with an example, exit 2 on an unknown option, and a section in docs/cli.md', async () => {
    const top = await run(['--help']);
    expect(top.code).toBe(0);
    for (const name of DEV_LOOP) expect(top.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    const docs = readFileSync(join(root, 'docs/cli.md'), 'utf8');
    for (const name of DEV_LOOP) {
      const help = await run([name, '--help']);
      expect(help.code, name).toBe(0);
      expect(help.stdout, name).toMatch(/^Usage: restaurant-partner /);
      expect(help.stdout, name).toMatch(new RegExp(`Examples?:\\n  (\\S+=\\S+ )?restaurant-partner ${name}`));
      expect(docs, name).toContain(`## \`${name}\``);
      expect(docs, name).toContain(`npx restaurant-partner ${name}`);
      if (name === 'fake') continue;
      const wrong = await run([name, '--no-such-option']);
      expect(wrong.code, name).toBe(2);
      expect(wrong.stderr, name).toMatch(/Unknown option '--no-such-option'[\s\S]*Usage:/);
    }
  });
});
