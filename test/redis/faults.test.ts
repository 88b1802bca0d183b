/**
 * Calm through Redis faults, with real processes: four child processes (two on ioredis, two on
 * node-redis), three callers each always waiting, share one partner's budget in a real
 * redis-server against the fake at its strict 1 request/second. The real server is paused
 * (`CLIENT PAUSE`), hung (`DEBUG SLEEP`) or stopped and started again on the same port. The
 * server's own record must show no 429 and no gap over 2 s between two accepted requests: the
 * processes fall back to pacing alone without bursting, and rejoin the shared budget as calmly.
 * Real clock on purpose (a real-time limit through real faults): about 20 s per proof.
 */
import { describe, expect, it } from 'vitest';
import { describeProof, runProof, proofWorldForFile, type ProofRun } from './support/budget-proofs.js';
import { startRedisServer } from './support/redis-server.js';

// Process start-up under tsx (seconds on a busy machine) comes on top of the run.
const PROOF_TIMEOUT_MS = 90_000;
// The promise is "no gap over 2 s". The 150 ms on top is load, not the limiter: on this 2-core
// machine shared by several sessions, a process's timer or a request's handling in the server can
// come that late while 4 processes under tsx run; a lost slot would add a whole second.
const MAX_GAP_MS = 2000 + 150;

const processes = [
  { client: 'ioredis' as const },
  { client: 'node-redis' as const },
  { client: 'ioredis' as const },
  { client: 'node-redis' as const },
];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const world = proofWorldForFile(startRedisServer);

/** What every fault must leave: every process exited cleanly, no 429, no gap over 2 s, no failed call. */
function expectCalm(proof: ProofRun): string {
  const context = describeProof(proof);
  expect(
    proof.summary.reports.map((report) => report.exit),
    context,
  ).toEqual([0, 0, 0, 0]);
  expect(proof.server.refused, context).toBe(0);
  expect(proof.server.maxGap, context).toBeLessThanOrEqual(MAX_GAP_MS);
  for (const report of proof.summary.reports) expect(report.done?.failed, context).toBe(0);
  return context;
}

describe('four processes through a Redis fault (real time, strict 1 request per second)', () => {
  it(
    'CLIENT PAUSE 3000: no 429 and no gap over 2 s between accepted requests',
    async () => {
      let faultAt = 0;
      const proof = await runProof(world, {
        processes,
        runMs: 18_000,
        during: async () => {
          await sleep(6000);
          faultAt = Date.now();
          await world.redis.pause(3000);
        },
      });
      const context = expectCalm(proof);
      // Calls went on through the pause and after it.
      expect(
        proof.summary.accepted.filter((at) => at > faultAt + 3000).length,
        context,
      ).toBeGreaterThanOrEqual(5);
    },
    PROOF_TIMEOUT_MS,
  );

  it(
    'two CLIENT PAUSE 3000 in a row (the second after the first recovery): no 429 and no gap over 2 s',
    async () => {
      const proof = await runProof(world, {
        processes,
        runMs: 24_000,
        during: async () => {
          await sleep(5000);
          await world.redis.pause(3000);
          // Redis answers again at 8 s; the processes are back in the queue a few seconds later.
          await sleep(11_000);
          await world.redis.pause(3000);
        },
      });
      expectCalm(proof);
    },
    PROOF_TIMEOUT_MS,
  );

  it(
    'DEBUG SLEEP 3 (the whole server hangs): no 429 and no gap over 2 s between accepted requests',
    async () => {
      const proof = await runProof(world, {
        processes,
        runMs: 18_000,
        during: async () => {
          await sleep(6000);
          await world.redis.sleep(3000);
        },
      });
      expectCalm(proof);
    },
    PROOF_TIMEOUT_MS,
  );

  it(
    'Redis stopped for 5 s, then started again on the same port: no 429, no gap over 2 s, and every process rejoins the shared budget',
    async () => {
      let restartedAt = 0;
      const proof = await runProof(world, {
        processes,
        runMs: 22_000,
        during: async () => {
          await sleep(5000);
          await world.redis.outage(5000);
          restartedAt = Date.now();
        },
      });
      const context = expectCalm(proof);
      for (const report of proof.summary.reports)
        expect(report.done, context).toMatchObject({ shared: true });
      // Calls went on after the restart, at the shared pace again.
      expect(
        proof.summary.accepted.filter((at) => at > restartedAt + 1000).length,
        context,
      ).toBeGreaterThanOrEqual(5);
    },
    PROOF_TIMEOUT_MS,
  );
});
