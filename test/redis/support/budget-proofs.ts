/**
 * What the real-process budget proofs share (faults, fairness, priority): one real redis-server
 * and one fake server at its strict 1 request/second (a sliding one-second window: a request past
 * it is answered 429 and not counted), a fresh partner per run, and the server's own record of
 * the run: the times it accepted the partner's requests, and its 429s.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { startFakeServer, type RunningFakeServer } from 'restaurant-partner-sdk/testing/node';
import {
  judgeAbovePartners,
  runBudgetProcesses,
  serverFigures,
  type ProcessSpec,
  type RunResult,
  type ServerFigures,
} from './budget-run.mjs';
import type { TestRedis } from './redis-server.js';

export type { ProcessSpec, RunResult, ServerFigures };

const source = fileURLToPath(new URL('../../../src', import.meta.url));

export interface ProofWorld {
  redis: TestRedis;
  server: RunningFakeServer;
  /** The partner processes' niceness: the server (this process) runs at a higher priority. */
  workerNice: number;
  stop(): Promise<void>;
}

/** The fake at 1 request/second beside `redis`, its journal long enough for every run of a file. */
async function startProofWorld(redis: TestRedis, workerNice: number): Promise<ProofWorld> {
  const server = await startFakeServer({ rateLimit: 1, journalLimit: 20_000 });
  // The server's own first-request work (in this process) is done before any counted request.
  await fetch(new URL('/api/v1/partnership/profile/', server.url)).then((response) =>
    response.body?.cancel(),
  );
  return {
    redis,
    server,
    workerNice,
    stop: async () => void (await Promise.all([redis.stop(), server.close()])),
  };
}

/**
 * The proof world of one test file: the Redis `startRedis` starts (the file passes
 * `startRedisServer`, so it shows what it starts) and the fake, started before the file's tests
 * and stopped after them. The object is filled in once they are up. The server (and Redis, which
 * this process starts) runs at a higher priority than the partner processes: a remote service
 * does not share their CPU, and what it records is then the partners' timing, not the machine's.
 */
export function proofWorldForFile(startRedis: () => Promise<TestRedis>): ProofWorld {
  const world = {} as ProofWorld;
  beforeAll(async () => {
    const workerNice = judgeAbovePartners();
    Object.assign(world, await startProofWorld(await startRedis(), workerNice));
  });
  afterAll(async () => {
    await world.stop?.();
  });
  return world;
}

export interface ProofRun {
  summary: RunResult;
  /** The server's record of the run's partner: accepted times, gaps between them, 429s. */
  server: ServerFigures;
}

/** Runs `processes` (each its own PartnerClient on its own Redis connection) for one new partner. */
export async function runProof(
  world: ProofWorld,
  options: {
    processes: ProcessSpec[];
    runMs: number;
    during?: (run: { kill: (index: number) => void; startedAt: number }) => Promise<void>;
  },
): Promise<ProofRun> {
  const partner = world.server.fake.addPartner();
  const summary = await runBudgetProcesses({
    sdk: { source },
    baseUrl: world.server.url,
    partner,
    redisUrl: world.redis.url,
    workerNice: world.workerNice,
    ...options,
  });
  const entries = world.server.fake.requests.filter(
    (entry) => entry.face === 'partner' && entry.partnerId === partner.partnerId,
  );
  const accepted = entries.filter((entry) => entry.status !== 429);
  return {
    summary,
    server: serverFigures({
      acceptedAt: accepted.map((entry) => Date.parse(entry.at)),
      refused: entries.length - accepted.length,
      refusedAt: entries.filter((entry) => entry.status === 429).map((entry) => Date.parse(entry.at)),
    }),
  };
}

/** What a failed expectation prints: the figures that tell what happened in the run. */
export function describeProof({ summary, server }: ProofRun): string {
  return JSON.stringify({
    startupMs: summary.startupMs,
    runToExitMs: summary.runToExitMs,
    server: {
      accepted: server.accepted,
      refused: server.refused,
      efficiency: Number(server.efficiency.toFixed(3)),
      maxGap: Math.round(server.maxGap),
      gaps: server.gaps.map(Math.round),
      // When each request was accepted, and each 429, in ms from the start of the run.
      acceptedAt: server.acceptedAt.map((at) => at - summary.startedAt),
      refusedAt: server.refusedAt.map((at) => at - summary.startedAt),
    },
    shares: summary.shares,
    shareRatio: Number(summary.shareRatio.toFixed(2)),
    waits: summary.waits.map(({ max, p95, grants, unfinished }) => ({
      max: Math.round(max),
      p95: Math.round(p95),
      grants,
      unfinished,
    })),
    interactive: summary.interactiveWaits,
    background: summary.backgroundWaits,
    // Each interactive wait, where the run mixes priorities (the priority proofs' evidence).
    interactiveAsks: summary.reports.flatMap((report) =>
      [...report.grants, ...report.gaveUp]
        .filter(
          (wait) =>
            wait.priority === 'interactive' &&
            summary.backgroundWaits.grants + summary.backgroundWaits.unfinished > 0,
        )
        .map((wait) => ({
          process: report.index,
          at: wait.askedAt - summary.startedAt,
          waitMs: Math.round(wait.waitMs),
          ...(wait.reason ? { reason: wait.reason } : {}),
        })),
    ),
    exits: summary.reports.map((report) => report.exit),
    errors: summary.reports.flatMap((report) => report.errors).slice(0, 10),
    warnings: summary.reports.map((report) => report.warnings.length),
    // What the limiters logged (Redis unreachable, back again...), first few of each process.
    warningTexts: summary.reports.flatMap((report) =>
      report.warnings.slice(0, 3).map((warning) => `${report.index}: ${warning.slice(0, 160)}`),
    ),
    stderr: summary.reports.map((report) => report.stderr.slice(-300)).filter(Boolean),
  });
}
