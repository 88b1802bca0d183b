/**
 * Runs several partner processes (test/redis/support/budget-process.mjs) against one server and one
 * Redis and gathers what they report. Used by bench/redis-budget.mjs and
 * test/redis/processes.test.ts.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const worker = fileURLToPath(new URL('./budget-process.mjs', import.meta.url));

/**
 * @param {object} options
 * @param {{ dist?: string, source?: string }} options.sdk where the package is (built, or source run under tsx)
 * @param {string} options.baseUrl
 * @param {{ partnerId: string, apiToken: string }} options.partner
 * @param {string} options.redisUrl
 * @param {{ client?: 'ioredis' | 'node-redis', skewMs?: number }[]} options.processes
 * @param {number} options.runMs
 * @param {number} [options.rate]
 * @param {(run: { kill(index: number): void, startedAt: number }) => Promise<void>} [options.during] runs while the processes do
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
}) {
  const loader = sdk.dist ? [] : ['--import', 'tsx'];
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
      },
    });
    let markReady;
    const ready = new Promise((resolve) => (markReady = resolve));
    const report = {
      index,
      client: spec.client ?? 'ioredis',
      skewMs: spec.skewMs ?? 0,
      ok: [],
      refused: 0,
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
    // Start-up (a second or more under tsx on a loaded machine) is not part of the run.
    const startTimeout = new Promise((_, reject) =>
      setTimeout(
        () =>
          reject(
            new Error(
              `processes not ready in 60 s: ${children.map(({ report }) => report.stderr).join('\n')}`,
            ),
          ),
        60_000,
      ).unref(),
    );
    await Promise.race([Promise.all(children.map(({ ready }) => ready)), startTimeout]);
    for (const { child } of children) child.stdin.end('go\n');
    const startedAt = Date.now();
    await during?.({ kill: (index) => children[index].child.kill('SIGKILL'), startedAt });
    // Process start-up (a second or two under tsx on a loaded machine) plus the run, bounded.
    const timeout = new Promise((resolve) => setTimeout(resolve, runMs + 15_000).unref());
    await Promise.race([Promise.all(children.map(({ exited }) => exited)), timeout]);
  } finally {
    for (const { child } of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  return summarise(
    children.map(({ report }) => report),
    rate,
  );
}

/** Accepted calls of all processes in time order, 429s, and the share of the limit they used together. */
export function summarise(reports, rate = 1) {
  const accepted = reports.flatMap((report) => report.ok).sort((a, b) => a - b);
  const gaps = accepted.slice(1).map((at, index) => at - accepted[index]);
  const efficiency =
    accepted.length > 1 ? (((accepted.length - 1) / (accepted.at(-1) - accepted[0])) * 1000) / rate : 0;
  return {
    reports,
    accepted,
    gaps,
    efficiency,
    refused: reports.reduce((sum, report) => sum + report.refused, 0),
    shares: reports.map((report) => report.ok.length),
  };
}
