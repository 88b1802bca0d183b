/**
 * The largest answer the client allows (`maxResponseBytes` of 10 MiB), nested as deep as its size
 * permits, is refused before it is parsed, within bounded memory. Parsed, 9 MiB of `[[[[...]]]]`
 * peaked at about 700 MB of resident memory and `{"a":{"a":...}}` at about 340 MB. Measured in a
 * child process (its peak `maxRSS`, which sees inside a synchronous `JSON.parse`), against a real
 * node:http server.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_API, startHostileServer, type HostileServer } from '../support/hostile-server.js';
import { createManualClock } from '../support/manual-clock.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const NINE_MIB = 9 * 1024 * 1024;
const PEAK_LIMIT_BYTES = 256 * 1024 * 1024;

/** Each shape's body and the rule its refusal names. */
const bodies: Record<string, { body: string; rule: RegExp }> = {
  'nested arrays': {
    body: '['.repeat(NINE_MIB / 2) + ']'.repeat(NINE_MIB / 2),
    rule: /JSON nested more than 128 levels deep/,
  },
  'nested objects': {
    body: '{"a":'.repeat(Math.floor(NINE_MIB / 6)) + '1' + '}'.repeat(Math.floor(NINE_MIB / 6)),
    rule: /JSON nested more than 128 levels deep/,
  },
  // Wide instead of deep: three million empty objects peaked at 1.3 GB once parsed.
  'wide, empty objects': {
    body: `[${'{},'.repeat(Math.floor(NINE_MIB / 3) - 1)}{}]`,
    rule: /more than 200000 objects and arrays/,
  },
};

interface ChildReport {
  name: string;
  message: string;
  baselineBytes: number;
  peakBytes: number;
}

/** Runs the client in a child process against `url`; resolves with what it printed. */
function runClient(url: string): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/transport/support/deep-json-client.ts', url],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        resolve(JSON.parse(output) as ChildReport);
      } catch {
        reject(new Error(`the client process exited with ${code} and printed: ${output}`));
      }
    });
  });
}

describe('a 9 MiB JSON answer built to blow memory', () => {
  let server: HostileServer;
  beforeAll(async () => {
    server = await startHostileServer(createManualClock({ autoAdvance: true }));
  });
  afterAll(() => server.close());

  for (const shape of Object.keys(bodies)) {
    it(`${shape}: refused as a ResponseValidationError naming the rule, at under 256 MB of peak memory`, async () => {
      server.setHandler((_request, tools) => {
        const { body } = bodies[shape]!;
        tools.response.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        });
        tools.response.end(body);
      });
      const report = await runClient(`${server.url}${HOSTILE_API}`);
      console.log(
        `${shape}: peak ${(report.peakBytes / 2 ** 20).toFixed(0)} MiB (at start ${(report.baselineBytes / 2 ** 20).toFixed(0)} MiB)`,
      );
      expect(report.peakBytes).toBeLessThan(PEAK_LIMIT_BYTES);
      expect(report.name).toBe('ResponseValidationError');
      expect(report.message).toMatch(bodies[shape]!.rule);
    }, 60_000);
  }
});
