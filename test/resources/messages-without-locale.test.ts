/**
 * The schemas are zod's tree-shakeable form, which installs no locale: a partner who never imports
 * zod's full form would read "Invalid input" for every refusal unless the SDK gives the messages
 * itself. Tests that share a process with zod's full form cannot see that, so this one runs the
 * SDK alone in a child process and reads the messages a partner reads.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('messages without zod full form in the process', () => {
  it('name the field and the rule in English, from the client and from an exported schema', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'test/resources/support/messages-probe.mjs'],
      { cwd: root, timeout: 60_000 },
    );
    const result = JSON.parse(stdout) as Record<string, unknown>;
    expect(result).toEqual({
      localeInstalled: false,
      client: [
        {
          field: 'start_time_after',
          message: 'Invalid input',
        },
        { field: 'page_size', message: 'Too small: expected number to be >=1' },
      ],
      schema: [
        { path: ['adults'], message: 'Invalid input: expected int, received number' },
        { path: ['phone'], message: 'Invalid input: expected string, received number' },
      ],
      url: [{ path: ['url'], message: 'expected an http or https URL' }],
    });
  }, 90_000);
});
