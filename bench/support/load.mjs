/**
 * A separate load process: keeps CONCURRENCY keep-alive connections busy with GET requests for
 * DURATION ms and prints `{"requests", "ok", "errors", "elapsedMs", "rps", "bytes", "p50Ms", "p95Ms",
 * "p99Ms"}` as one JSON line. Running apart from the server under test keeps the load generator's
 * CPU off its event loop. Several `--url` are requested in turn (one world each, say).
 *
 * Usage: node load.mjs --url URL [--url URL ...] [--authorization HEADER] [--concurrency 32] [--duration 5000] [--warmup 1000]
 */
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    url: { type: 'string', multiple: true },
    authorization: { type: 'string', default: '' },
    concurrency: { type: 'string', default: '32' },
    duration: { type: 'string', default: '5000' },
    warmup: { type: 'string', default: '1000' },
  },
});
const targets = values.url.map((url) => new URL(url));
let turn = 0;
const concurrency = Number(values.concurrency);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const headers = values.authorization ? { authorization: values.authorization } : {};

function once() {
  const target = targets[turn++ % targets.length];
  return new Promise((resolve) => {
    const call = request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: 'GET',
        headers,
      },
      (response) => {
        let bytes = 0;
        response.on('data', (chunk) => (bytes += chunk.length));
        response.on('end', () => resolve({ ok: response.statusCode === 200, bytes }));
        response.on('error', () => resolve({ ok: false, bytes }));
      },
    );
    call.on('error', () => resolve({ ok: false, bytes: 0 }));
    call.end();
  });
}

async function run(durationMs) {
  const counts = { requests: 0, ok: 0, errors: 0, bytes: 0 };
  const latencies = [];
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const sent = performance.now();
        const result = await once();
        latencies.push(performance.now() - sent);
        counts.requests += 1;
        counts.bytes += result.bytes;
        if (result.ok) counts.ok += 1;
        else counts.errors += 1;
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  latencies.sort((a, b) => a - b);
  const percentile = (share) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))] ?? null;
  return {
    ...counts,
    elapsedMs,
    rps: counts.ok / (elapsedMs / 1000),
    p50Ms: percentile(0.5),
    p95Ms: percentile(0.95),
    p99Ms: percentile(0.99),
  };
}

await run(Number(values.warmup));
const result = await run(Number(values.duration));
agent.destroy();
process.stdout.write(`${JSON.stringify(result)}\n`);
