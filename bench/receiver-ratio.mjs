/**
 * `receiver_rps_ratio`, `receiver_p99_ratio`, `receiver_rss_ratio`: the webhook receiver
 * (`nodeHandler()` on `node:http`, default options) against a bare `node:http` handler that reads
 * the body and compares the authorization header, in the same run: autocannon (50 connections, a
 * fresh delivery id per request) loads one and then the other, in turns; the ratios are medians of
 * the rounds' ratios. Peak RSS is each server process's own, over the whole run.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { runToLastJsonLine } from './support/servers.mjs';
import { createInterface } from 'node:readline';

const TOKEN = 'whk_bench_4f9c2b7e1d8a6035e2c94b1f7a0d3e6c';

/** Starts a server process with an IPC channel; resolves with its URL, a stats query and stop. */
function startServer(root, kind) {
  const child = spawn(
    process.execPath,
    [join(root, 'bench/support/receiver-server.mjs'), '--kind', kind, '--token', TOKEN],
    { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`receiver-server ${kind} exited (${code}): ${stderr}`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      resolve({
        url: JSON.parse(line).url,
        stats: () =>
          new Promise((done) => {
            child.once('message', done);
            child.send('stats');
          }),
        stop: () =>
          new Promise((done) => {
            child.removeAllListeners('exit');
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

function load(root, url, durationMs, warmupMs) {
  return runToLastJsonLine(
    join(root, 'bench/support/delivery-load.mjs'),
    [
      '--url',
      url,
      '--token',
      TOKEN,
      '--connections',
      '50',
      '--duration',
      String(durationMs),
      '--warmup',
      String(warmupMs),
    ],
    'delivery load',
  );
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/**
 * Measures the three ratios; `notes` collects remarks for the table. The two servers run side by
 * side for the whole run and are loaded one at a time, in turns (receiver then bare, then bare
 * then receiver, ...), so that each round's two figures come from the same minute of the machine.
 * Loading both at once put four busy processes on two cores, and each round's ratio then said more
 * about where the scheduler placed them than about the receiver (rounds from 0.54 to 1.40 in one
 * run, medians of 0.57 and 0.98 in two runs back to back).
 */
export async function measureReceiverRatios({ root, notes, rounds = 7, durationMs = 3000 }) {
  const servers = await Promise.all([startServer(root, 'receiver'), startServer(root, 'bare')]);
  try {
    const [receiver, bare] = servers;
    // Warm-up: each server alone for 3 s (2 s of warm-up, 1 s measured and dropped), long enough
    // for its hot paths to be optimised.
    for (const server of servers) await load(root, server.url, 1000, 2000);
    const figures = { receiver: [], bare: [] };
    for (let round = 0; round < rounds; round += 1) {
      const turns = round % 2 === 0 ? [receiver, bare] : [bare, receiver];
      for (const server of turns) {
        const before = await server.stats();
        const result = await load(root, server.url, durationMs, 300);
        const after = await server.stats();
        const side = server === receiver ? 'receiver' : 'bare';
        if (result.non2xx > 0 || result.errors > 0)
          notes.push(
            `receiver ratios, ${side}: ${result.non2xx} non-2xx answers and ${result.errors} errors of ${result.requests}`,
          );
        // Per request: the load's warm-up is counted in the time, not in the requests (an upper bound).
        figures[side].push({
          ...result,
          cpuMicros: (after.cpuMicros - before.cpuMicros) / result.requests,
          busyMicros: (after.busyMicros - before.busyMicros) / result.requests,
        });
      }
    }
    const ratios = (pick) =>
      figures.receiver.map((figure, round) => pick(figure) / pick(figures.bare[round]));
    const rpsRatios = ratios((figure) => figure.rps);
    const [receiverStats, bareStats] = await Promise.all([receiver.stats(), bare.stats()]);
    const result = {
      rpsRatio: median(rpsRatios),
      p99Ratio: median(ratios((figure) => figure.p99)),
      rssRatio: receiverStats.maxRssKb / bareStats.maxRssKb,
      cpuRatio: median(ratios((figure) => figure.cpuMicros)),
      busyRatio: median(ratios((figure) => figure.busyMicros)),
    };
    const medianOf = (side, pick) => median(figures[side].map(pick));
    notes.push(
      `receiver ratios: median of ${rounds} rounds, each server loaded alone in turn, req/s ratios ${rpsRatios.map((ratio) => ratio.toFixed(2)).join(', ')}; ` +
        `receiver ${Math.round(medianOf('receiver', (figure) => figure.rps))} req/s p99 ${medianOf('receiver', (figure) => figure.p99)} ms peak RSS ${Math.round(receiverStats.maxRssKb / 1024)} MB, ` +
        `bare node:http ${Math.round(medianOf('bare', (figure) => figure.rps))} req/s p99 ${medianOf('bare', (figure) => figure.p99)} ms peak RSS ${Math.round(bareStats.maxRssKb / 1024)} MB; ` +
        `CPU per request ${Math.round(medianOf('receiver', (figure) => figure.cpuMicros))} µs against ${Math.round(medianOf('bare', (figure) => figure.cpuMicros))} µs, ` +
        `event loop busy per request ${medianOf('receiver', (figure) => figure.busyMicros).toFixed(1)} µs against ${medianOf('bare', (figure) => figure.busyMicros).toFixed(1)} µs`,
    );
    return result;
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

// Run alone: `node bench/receiver-ratio.mjs` (after `npm run build`) prints the figures.
if (import.meta.url === `file://${process.argv[1]}`) {
  const notes = [];
  const root = join(new URL('.', import.meta.url).pathname, '..');
  const result = await measureReceiverRatios({ root, notes, rounds: Number(process.env.ROUNDS ?? 5) });
  console.log(JSON.stringify(result), '\n' + notes.join('\n'));
}
