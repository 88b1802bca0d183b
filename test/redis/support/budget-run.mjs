/**
 * Runs several partner processes (test/redis/support/budget-process.mjs) against one server and one
 * Redis and gathers what they report: answers, 429s, and each wait for a slot from asking to being
 * granted, per process and per caller. Used by bench/redis-budget.mjs and the test/redis/ process
 * proofs (processes, faults, fairness, priority).
 */
import { spawn } from 'node:child_process';
import { availableParallelism, getPriority, setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const defaultWorker = fileURLToPath(new URL('./budget-process.mjs', import.meta.url));

/**
 * A process's callers as budget-process.mjs takes them (CALLERS): `callers` is a count (each with
 * the process's `priority`, if any, and `pauseMs`) or a list of `{ priority?, pauseMs? }`.
 */
function callersOf(spec) {
  if (Array.isArray(spec.callers)) return spec.callers;
  const caller = {
    ...(spec.priority ? { priority: spec.priority } : {}),
    ...(spec.pauseMs ? { pauseMs: spec.pauseMs } : {}),
  };
  return Array.from({ length: spec.callers ?? 3 }, () => caller);
}

/** How much higher than the partner processes the judging server (this process) runs. */
const JUDGE_ABOVE = 10;

/**
 * Puts the strict server (the calling process: its main thread, which answers the requests) at a
 * higher scheduling priority than the partner processes, as a remote service does not share their
 * CPU: its record of when each request came is then not the machine's load but the partners'
 * timing. Raises this process where allowed (root); otherwise the partner processes run lower.
 * Returns the niceness the partner processes take (budget-process.mjs reads WORKER_NICE).
 * Call it before starting Redis and the server: what this process starts inherits its priority.
 */
let partnersNice;
export function judgeAbovePartners() {
  if (partnersNice !== undefined) return partnersNice;
  const own = getPriority();
  try {
    setPriority(Math.max(-20, own - JUDGE_ABOVE));
    partnersNice = own;
  } catch {
    // Not allowed to raise it: the partners go lower instead.
    partnersNice = Math.min(19, own + JUDGE_ABOVE);
  }
  return partnersNice;
}

/**
 * Starts `count` CPU-bound neighbours (Node busy loops) at the ordinary priority of the partner
 * processes, keeping the machine's load above its core count; `stop()` ends them.
 * @param {number} [count] default one per core, plus one
 * @param {number} [nice] their niceness (the partners', default 0)
 */
export function startCpuNeighbours(count = availableParallelism() + 1, nice = 0) {
  const hogs = Array.from({ length: count }, () => {
    const hog = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    try {
      if (hog.pid !== undefined) setPriority(hog.pid, nice);
    } catch {
      // It keeps this process's priority.
    }
    return hog;
  });
  return {
    count,
    stop: () => {
      for (const hog of hogs) hog.kill('SIGKILL');
    },
  };
}

/**
 * @param {object} options
 * @param {{ dist?: string, source?: string }} options.sdk where the package is (built, or source run under tsx)
 * @param {string} options.baseUrl
 * @param {{ partnerId: string, apiToken: string }} options.partner
 * @param {string} options.redisUrl
 * @param {{ client?: 'ioredis' | 'node-redis', skewMs?: number, callers?: number | { priority?: 'interactive' | 'background', pauseMs?: number }[], priority?: 'interactive' | 'background', pauseMs?: number }[]} options.processes
 *   each process's Redis client, clock skew and callers (default 3 callers without a priority option)
 * @param {number} options.runMs
 * @param {number} [options.rate]
 * @param {(run: { kill: (index: number) => void, startedAt: number }) => Promise<void>} [options.during] runs while the processes do
 * @param {string} [options.worker] another process script speaking the same lines (the bench's Bottleneck side)
 * @param {Record<string, string>} [options.env] more environment for every process
 * @param {number} [options.workerNice] the processes' niceness (what {@link judgeAbovePartners} returned)
 */
export async function runBudgetProcesses({
  sdk,
  baseUrl,
  partner,
  redisUrl,
  processes,
  runMs,
  rate = 1,
  during,
  worker = defaultWorker,
  env = {},
  workerNice = 0,
}) {
  const loader = sdk.dist ? [] : ['--import', 'tsx'];
  const spawnedAt = Date.now();
  let startedAt = spawnedAt;
  const children = processes.map((spec, index) => {
    const child = spawn(process.execPath, [...loader, worker], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        ...process.env,
        ...(sdk.dist ? { SDK_DIST: sdk.dist } : { SDK_SOURCE: sdk.source }),
        BASE_URL: baseUrl,
        PARTNER_ID: partner.partnerId,
        API_TOKEN: partner.apiToken,
        REDIS_URL: redisUrl,
        REDIS_CLIENT: spec.client ?? 'ioredis',
        SKEW_MS: String(spec.skewMs ?? 0),
        RUN_MS: String(runMs),
        RATE: String(rate),
        CALLERS: JSON.stringify(callersOf(spec)),
        WORKER_NICE: String(workerNice),
        ...env,
      },
    });
    let markReady;
    const ready = new Promise((resolve) => (markReady = resolve));
    const report = {
      index,
      client: spec.client ?? 'ioredis',
      skewMs: spec.skewMs ?? 0,
      callers: callersOf(spec),
      ok: [],
      refused: 0,
      grants: [],
      gaveUp: [],
      warnings: [],
      errors: [],
      done: undefined,
      exit: undefined,
      stderr: '',
    };
    child.stderr.on('data', (chunk) => (report.stderr = (report.stderr + chunk).slice(-4000)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        return;
      }
      if (message.ready) markReady();
      else if (message.ok) report.ok.push(message.ok);
      else if (message.grant) report.grants.push(message.grant);
      else if (message.gaveUp) report.gaveUp.push(message.gaveUp);
      else if (message.status === 429) report.refused += 1;
      else if (message.warn) report.warnings.push(message.warn);
      else if (message.error) report.errors.push(message.error);
      else if (message.done) report.done = message.done;
    });
    const exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => resolve((report.exit = signal ?? code))),
    );
    return { child, report, exited, ready };
  });
  try {
    // Start-up (a second or more under tsx; measured at a load of 15-20 on 2 cores: 15 s for four
    // processes, 63 s for sixteen) is not part of the run.
    const startTimeout = new Promise((_, reject) =>
      setTimeout(
        () =>
          reject(
            new Error(
              `processes not ready in 120 s: ${children.map(({ report }) => report.stderr).join('\n')}`,
            ),
          ),
        120_000,
      ).unref(),
    );
    await Promise.race([Promise.all(children.map(({ ready }) => ready)), startTimeout]);
    for (const { child } of children) child.stdin.end('go\n');
    startedAt = Date.now();
    await during?.({ kill: (index) => children[index].child.kill('SIGKILL'), startedAt });
    // Process start-up (a second or two under tsx on a loaded machine) plus the run, bounded.
    const timeout = new Promise((resolve) => setTimeout(resolve, runMs + 15_000).unref());
    await Promise.race([Promise.all(children.map(({ exited }) => exited)), timeout]);
  } finally {
    for (const { child } of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  return {
    ...summarise(
      children.map(({ report }) => report),
      rate,
    ),
    // Where the time went: start-up (not part of the run) and the run to the last exit.
    startedAt,
    startupMs: startedAt - spawnedAt,
    runToExitMs: Date.now() - startedAt,
  };
}

/** The `p`-quantile (0 to 1) of `values` (nearest rank), or 0 for none. */
export function quantile(values, p) {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

/**
 * Waits for a slot, from asking to being granted, of some of the reports' grants: max and p95 of
 * the granted ones; a wait cut short by the end of the run (or an error) counts in `max` with the
 * time it had waited, a lower bound, so a caller that never got a slot shows.
 */
function waitFigures(grants, gaveUp) {
  const granted = grants.map((grant) => grant.waitMs);
  const all = [...granted, ...gaveUp.map((wait) => wait.waitMs)];
  return {
    grants: granted.length,
    max: all.length ? Math.max(...all) : 0,
    p95: quantile(granted, 0.95),
    unfinished: gaveUp.length,
  };
}

/** Accepted calls of all processes in time order, 429s, the share of the limit they used together, and waits. */
export function summarise(reports, rate = 1) {
  const accepted = reports.flatMap((report) => report.ok).sort((a, b) => a - b);
  const gaps = accepted.slice(1).map((at, index) => at - accepted[index]);
  const efficiency =
    accepted.length > 1 ? (((accepted.length - 1) / (accepted.at(-1) - accepted[0])) * 1000) / rate : 0;
  const shares = reports.map((report) => report.ok.length);
  const byPriority = (priority) =>
    waitFigures(
      reports.flatMap((report) => report.grants.filter((grant) => grant.priority === priority)),
      reports.flatMap((report) => report.gaveUp.filter((wait) => wait.priority === priority)),
    );
  return {
    reports,
    accepted,
    gaps,
    efficiency,
    refused: reports.reduce((sum, report) => sum + report.refused, 0),
    shares,
    /** The smallest share over the largest, across processes (1 when every process got as much). */
    shareRatio: Math.max(...shares) > 0 ? Math.min(...shares) / Math.max(...shares) : 0,
    /** Per process: its waits for a slot. */
    waits: reports.map((report) => waitFigures(report.grants, report.gaveUp)),
    interactiveWaits: byPriority('interactive'),
    backgroundWaits: byPriority('background'),
  };
}

/**
 * What the server saw, from its own record: the times it accepted the partner's requests (epoch
 * ms, its clock) and how many it refused with 429. Efficiency is the accepted rate over the limit.
 */
export function serverFigures({ acceptedAt, refused, refusedAt = [] }, rate = 1) {
  const times = [...acceptedAt].sort((a, b) => a - b);
  const gaps = times.slice(1).map((at, index) => at - times[index]);
  return {
    acceptedAt: times,
    refusedAt,
    accepted: times.length,
    refused,
    gaps,
    maxGap: gaps.length ? Math.max(...gaps) : 0,
    efficiency: times.length > 1 ? (((times.length - 1) / (times.at(-1) - times[0])) * 1000) / rate : 0,
  };
}
