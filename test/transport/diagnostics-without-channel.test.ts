/**
 * A runtime without `diagnostics_channel` (Cloudflare Workers without nodejs_compat) books the same
 * and publishes nothing. It needs a process whose `node:diagnostics_channel` was never there, so
 * it runs test/transport/support/no-diagnostics.ts as a child (the slow lane: a process per test).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe('diagnostics channels', () => {
  it('without diagnostics_channel (Workers without nodejs_compat) a booking works and nothing is published', () => {
    const script = fileURLToPath(new URL('./support/no-diagnostics.ts', import.meta.url));
    const output = execFileSync(process.execPath, ['--import', 'tsx', script], {
      encoding: 'utf8',
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
    });
    expect(JSON.parse(output)).toEqual({ booked: true, published: 0 });
  });
});
