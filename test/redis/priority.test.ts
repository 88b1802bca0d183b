/**
 * Priority across processes, with real processes: background callers (a sync job's kind) keep
 * the shared budget busy from several child processes, while interactive calls (a guest's
 * booking's kind) come from other processes, and from one process that runs both. Every
 * interactive call must be granted within two of the limiter's intervals of asking, however many
 * background calls wait in this process or any other; the background calls still get the rest.
 * Real Redis, the fake at its strict 1 request/second, real clock: about 30 s.
 */
import { describe, expect, it } from 'vitest';
import { grantSpacingMs } from '../../src/transport/throttle.js';
import { describeProof, runProof, proofWorldForFile, type ProcessSpec } from './support/budget-proofs.js';
import { startRedisServer } from './support/redis-server.js';

const PROOF_TIMEOUT_MS = 120_000;
// Two intervals: the slot being granted when the interactive call asks, then its own. Each goes
// a whole second after the request before it was answered, so on a loaded host an interval is
// the spacing plus that request's trip and the time processes wait for the CPU (up to 1.5 s in
// all, seen with seven processes under tsx on a 2-core machine shared by several sessions, beside
// a CPU-bound process).
const MAX_INTERACTIVE_WAIT_MS = 2 * (grantSpacingMs(1) + 470);

// Interactive calls on a timetable, one every 2 s across the three callers that make them: the
// budget has room for them all (a second call asking while the first still waits would wait
// for it, which is no priority failure), and each asks while 14 background calls wait.
const interactive = (delayMs: number) => ({ priority: 'interactive' as const, everyMs: 6000, delayMs });
const background = { priority: 'background' as const };
const processes: ProcessSpec[] = [
  { client: 'ioredis', callers: [background, background, background] },
  { client: 'node-redis', callers: [background, background, background] },
  { client: 'ioredis', callers: [background, background, background] },
  { client: 'node-redis', callers: [background, background, background] },
  { client: 'ioredis', callers: [interactive(1000)] },
  { client: 'node-redis', callers: [interactive(3000)] },
  // Both kinds in one process: its own background calls must not hold its interactive one back either.
  { client: 'ioredis', callers: [background, background, interactive(5000)] },
];

const world = proofWorldForFile(startRedisServer);

describe('interactive before background, across processes (real time, strict 1 request per second)', () => {
  it(
    'with 14 background calls always waiting in 5 processes, every interactive call from 3 processes is granted within 2 intervals',
    async () => {
      const proof = await runProof(world, { processes, runMs: 30_000 });
      const context = describeProof(proof);
      const { interactiveWaits, backgroundWaits } = proof.summary;
      expect(
        proof.summary.reports.map((report) => report.exit),
        context,
      ).toEqual(Array(7).fill(0));
      expect(proof.server.refused, context).toBe(0);
      // Each interactive call is granted in time (a wait the run's end cut short counts too), and
      // about 14 ask in 30 s.
      expect(interactiveWaits.max, context).toBeLessThanOrEqual(MAX_INTERACTIVE_WAIT_MS);
      expect(interactiveWaits.grants, context).toBeGreaterThanOrEqual(10);
      // The background calls still used the slots left over.
      expect(backgroundWaits.grants, context).toBeGreaterThanOrEqual(8);
    },
    PROOF_TIMEOUT_MS,
  );
});
