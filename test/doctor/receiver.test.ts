/**
 * `doctor --webhook-url URL`: the partner's receiver reached through a temporary webhook's test
 * delivery, created, tested, read and deleted, also when the receiver fails. The webhook token
 * the delivery carried (the temporary webhook's) is in no output.
 */
import { describe, expect, it } from 'vitest';
import { world } from './support.js';

const RECEIVER = 'https://partner.example.test/webhooks';

describe('doctor --webhook-url', () => {
  it.each([
    [
      200,
      'pass',
      /pass {2}receiver: https:\/\/partner\.example\.test\/webhooks answered the test delivery 200/,
      0,
    ],
    [401, 'pass', /pass {2}receiver: .* was reached and refused the temporary webhook's token \(401\)/, 0],
    [404, 'warn', /WARN {2}receiver: .* answered the test delivery 404/, 0],
    [
      500,
      'fail',
      /FAIL {2}receiver: the service could not deliver to https:\/\/partner\.example\.test\/webhooks \(500\)/,
      1,
    ],
  ] as const)(
    'a receiver answering %i: %s, and the temporary webhook is deleted',
    async (status, _, line, exitCode) => {
      const { fake, doctor } = await world();
      const seen: string[] = [];
      fake.registerDeliveryHandler(RECEIVER, async (request) => {
        seen.push(`${request.headers.get('authorization')} ${await request.text()}`);
        return new Response(null, { status });
      });
      const run = await doctor({ probeWrites: false, webhookUrl: RECEIVER });
      expect(run.output).toMatch(line);
      expect(run.result.exitCode).toBe(exitCode);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toContain('"TEST"');
      const token = /^Bearer (\S+)/.exec(seen[0]!)![1]!;
      expect(run.output + JSON.stringify(run.record) + JSON.stringify(run.file)).not.toContain(token);
      const [, id] = /^created webhook (\d+) \(temporary\)$/m.exec(run.output)!;
      expect(run.output).toMatch(new RegExp(`^deleted webhook ${id}$`, 'm'));
      const state = await (await fake.handle(new Request(`${fake.baseUrl}/_fake/state`))).json();
      expect(state.webhooks).toEqual([]);
      expect(run.journalCount).toBe(run.result.requests);
      fake.dispose();
    },
  );
});
