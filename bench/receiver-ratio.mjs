/**
 * `receiver_rps_ratio`, `receiver_p99_ratio`, `receiver_rss_ratio`: the webhook receiver
 * (`nodeHandler()` on `node:http`, default options) against a bare `node:http` handler that reads
 * the body and compares the authorization header, in the same run. Both servers are loaded at the
 * same time, each by its own autocannon process (50 connections, a fresh delivery id per
 * request), so whatever else the machine does hits both alike; the ratios are medians over rounds.
 * Peak RSS is each server process's own, over all the rounds.
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

/** Measures the three ratios; `notes` collects remarks for the table. */
export async function measureReceiverRatios({ root, notes, rounds = 5, durationMs = 3000 }) {
  const [receiver, bare] = await Promise.all([startServer(root, 'receiver'), startServer(root, 'bare')]);
  try {
    const rates = { receiver: [], bare: [] };
    const p99s = { receiver: [], bare: [] };
    const rpsRatios = [];
    const p99Ratios = [];
    const cpuBefore = await Promise.all([receiver.stats(), bare.stats()]);
    let requests = { receiver: 0, bare: 0 };
    for (let round = 0; round < rounds; round += 1) {
      const [receiverResult, bareResult] = await Promise.all([
        load(root, receiver.url, durationMs, round === 0 ? 2000 : 500),
        load(root, bare.url, durationMs, round === 0 ? 2000 : 500),
      ]);
      for (const [side, result] of [
        ['receiver', receiverResult],
        ['bare', bareResult],
      ]) {
        if (result.non2xx > 0 || result.errors > 0)
          notes.push(
            `receiver ratios, ${side}: ${result.non2xx} non-2xx answers and ${result.errors} errors of ${result.requests}`,
          );
      }
      requests = {
        receiver: requests.receiver + receiverResult.requests,
        bare: requests.bare + bareResult.requests,
      };
      rates.receiver.push(receiverResult.rps);
      rates.bare.push(bareResult.rps);
      p99s.receiver.push(receiverResult.p99);
      p99s.bare.push(bareResult.p99);
      rpsRatios.push(receiverResult.rps / bareResult.rps);
      p99Ratios.push(receiverResult.p99 / Math.max(bareResult.p99, 1));
    }
    const [receiverStats, bareStats] = await Promise.all([receiver.stats(), bare.stats()]);
    // CPU per request (warm-ups included in the time, not in the count: an upper bound), for the notes.
    const cpuPerRequest = (after, before, count) => Math.round((after.cpuMicros - before.cpuMicros) / count);
    const result = {
      rpsRatio: median(rpsRatios),
      p99Ratio: median(p99Ratios),
      rssRatio: receiverStats.maxRssKb / bareStats.maxRssKb,
    };
    notes.push(
      `receiver ratios: median of ${rounds} simultaneous rounds, req/s ratios ${rpsRatios.map((ratio) => ratio.toFixed(2)).join(', ')}; ` +
        `receiver ${Math.round(median(rates.receiver))} req/s p99 ${median(p99s.receiver)} ms peak RSS ${Math.round(receiverStats.maxRssKb / 1024)} MB, ` +
        `bare node:http ${Math.round(median(rates.bare))} req/s p99 ${median(p99s.bare)} ms peak RSS ${Math.round(bareStats.maxRssKb / 1024)} MB; ` +
        `CPU per request ${cpuPerRequest(receiverStats, cpuBefore[0], requests.receiver)} µs against ${cpuPerRequest(bareStats, cpuBefore[1], requests.bare)} µs`,
    );
    return result;
  } finally {
    await Promise.all([receiver.stop(), bare.stop()]);
  }
}

// Run alone: `node bench/receiver-ratio.mjs` (after `npm run build`) prints the figures.
if (import.meta.url === `file://${process.argv[1]}`) {
  const notes = [];
  const root = join(new URL('.', import.meta.url).pathname, '..');
  const result = await measureReceiverRatios({ root, notes, rounds: Number(process.env.ROUNDS ?? 5) });
  console.log(JSON.stringify(result), '\n' + notes.join('\n'));
}
