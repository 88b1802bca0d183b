/**
 * `single` part of `npm run bench`: one process, 500 callers at once, 50 requests/second, against
 * the STRICT server (the fake with its rate limit, `startStrictFake`). Our side is a `PartnerClient`
 * from the BUILT package with `rateLimit: { requestsPerSecond: 50 }`; the baseline is Bottleneck's
 * in-process limiter (`minTime: 20`, `maxConcurrent: null`) around raw `fetch` + `response.json()`
 * of the same URL. Each side runs in its own child process (this file with `--child`) for the same
 * duration against the same server, one after the other (ours, Bottleneck, then reversed), and
 * reports its peak RSS (`process.resourceUsage().maxRSS`). Efficiency and 429s are counted on the
 * server's clock, from its request journal.
 *
 * Environment: BENCH_SINGLE_SECONDS (default 20) per side and round, BENCH_SINGLE_ROUNDS (default 2).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { journalCollector } from './support/servers.mjs';

const RPS = 50;
const CALLERS = 500;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** The child: `callers` loops, each sending the next request as soon as its last one is answered, until `duration` ms. */
async function child(options) {
  const { side, url, restaurantId, reservationId, partnerId, apiToken, root } = options;
  const duration = Number(options.duration);
  let send;
  if (side === 'ours') {
    const { PartnerClient, silentLogger } = await import(pathToFileURL(join(root, 'dist/index.js')).href);
    const client = new PartnerClient({
      baseUrl: url,
      partnerId,
      apiToken,
      rateLimit: { requestsPerSecond: RPS },
      maxRetries: 5,
      logger: silentLogger,
    });
    send = () => client.reservations.retrieve(restaurantId, reservationId);
  } else {
    const { default: Bottleneck } = await import('bottleneck');
    const limiter = new Bottleneck({ minTime: 1000 / RPS, maxConcurrent: null });
    const target = `${url}/api/v1/partnership/restaurants/${restaurantId}/reservations/${reservationId}/`;
    const authorization = `Basic ${Buffer.from(`${partnerId}:${apiToken}`).toString('base64')}`;
    send = () =>
      limiter.schedule(async () => {
        const response = await fetch(target, { headers: { authorization, accept: 'application/json' } });
        const body = await response.json();
        if (!response.ok) throw new Error(`answered ${response.status}`);
        return body;
      });
  }
  const end = Date.now() + duration;
  let answered = 0;
  let failed = 0;
  const caller = async () => {
    while (Date.now() < end) {
      try {
        await send();
        answered += 1;
      } catch {
        failed += 1;
      }
    }
  };
  for (let index = 0; index < CALLERS; index += 1) void caller();
  await new Promise((resolve) => setTimeout(resolve, duration));
  const usage = process.resourceUsage();
  process.stdout.write(`${JSON.stringify({ side, answered, failed, maxRssKb: usage.maxRSS })}\n`);
  // Callers still queued in the limiter are abandoned: the measured window is over.
  process.exit(0);
}

/** Runs one side in its own process and answers its report with the server's view of that run. */
async function runSide(side, { root, server, partner, duration }) {
  // The journal keeps its latest 500 entries (10 s at 50 req/s): read every 2 s during the run.
  const collector = journalCollector(server.url);
  await collector.read();
  collector.entries.clear();
  const args = Object.entries({
    side,
    url: server.url,
    restaurantId: server.restaurantId,
    reservationId: server.reservationId,
    partnerId: partner.partnerId,
    apiToken: partner.apiToken,
    root,
    duration,
  }).flatMap(([name, value]) => [`--${name}`, String(value)]);
  const run = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  run.stdout.on('data', (chunk) => (stdout += chunk));
  run.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = new Promise((resolve) => run.once('exit', resolve));
  let polling = true;
  const poller = (async () => {
    while (polling) {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      await collector.read();
    }
  })();
  const status = await exited;
  polling = false;
  await poller;
  if (status !== 0) throw new Error(`${side} process failed (${status}): ${stderr}`);
  const report = JSON.parse(stdout.trim().split('\n').at(-1));
  // Requests the child sent just before it exited reach the journal; let them land and the window empty.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await collector.read();
  const partnerEntries = [...collector.entries.values()].filter((entry) => entry.face === 'partner');
  const times = partnerEntries.filter((entry) => entry.status !== 429).map((entry) => Date.parse(entry.at));
  const refused = partnerEntries.length - times.length;
  const efficiency = ((times.length - 1) / (times.at(-1) - times[0])) * (1000 / RPS);
  process.stderr.write(
    `    ${side}: ${times.length} accepted, ${refused} refused (429), efficiency ${efficiency.toFixed(3)}, ` +
      `peak RSS ${(report.maxRssKb / 1024).toFixed(0)} MB, ${report.failed} failed calls\n`,
  );
  return { efficiency, refused, maxRssKb: report.maxRssKb };
}

export async function benchSingle({ root, record, startProcess, startStrictFake, partner }) {
  const duration = Number(process.env.BENCH_SINGLE_SECONDS ?? 20) * 1000;
  const rounds = Number(process.env.BENCH_SINGLE_ROUNDS ?? 2);
  process.stderr.write(
    `one process, ${CALLERS} callers, ${RPS} req/s: ours against Bottleneck, ${duration / 1000} s each, ${rounds} round(s)\n`,
  );
  const server = await startStrictFake({ root, startProcess, partner, requestsPerSecond: RPS });
  const ours = [];
  const theirs = [];
  try {
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? ['ours', 'bottleneck'] : ['bottleneck', 'ours'];
      for (const side of order) {
        const result = await runSide(side, { root, server, partner, duration });
        (side === 'ours' ? ours : theirs).push(result);
      }
    }
  } finally {
    await server.stop();
  }
  const sum = (results) => results.reduce((total, result) => total + result.refused, 0);
  const against = `${CALLERS} callers in one process, ${RPS} req/s limit, strict server, ${rounds} × ${duration / 1000} s`;
  record(
    'single_efficiency_50rps',
    median(ours.map((result) => result.efficiency)),
    `ratio of limit (${against}; median)`,
    '>= 0.97',
  );
  record('single_429_count_50rps', sum(ours), '429s (all rounds)', '== 0');
  record(
    'single_rss_ratio_bottleneck',
    median(ours.map((result, index) => result.maxRssKb / theirs[index].maxRssKb)),
    "our process's peak RSS over Bottleneck's (same job, same run; median of rounds)",
    '<= 1.2',
  );
  record(
    'bottleneck_single_efficiency_50rps',
    median(theirs.map((result) => result.efficiency)),
    'ratio of limit (Bottleneck minTime 20, maxConcurrent null; median)',
  );
  record('bottleneck_single_429_count_50rps', sum(theirs), '429s (Bottleneck, all rounds)');
}

if (process.argv[2] === '--child') {
  const options = {};
  for (let index = 3; index < process.argv.length; index += 2)
    options[process.argv[index].slice(2)] = process.argv[index + 1];
  await child(options);
}
