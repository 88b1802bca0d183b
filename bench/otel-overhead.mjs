/**
 * What the instrumentation costs per call, side by side in one run (part `otel` of `npm run bench`):
 *
 * - `otel_overhead_ns_unsubscribed`: CPU per call of the built package with no subscriber, minus
 *   the same in a process where the runtime has no `diagnostics_channel` (`process.getBuiltinModule`
 *   removed before the SDK loads, as on Workers without `nodejs_compat`): the channels' guards,
 *   all that is left of the instrumentation when no one listens. Goal <= 1000 ns.
 * - `otel_overhead_us_subscribed`: CPU per call with `instrument()` on the OpenTelemetry SDK (a
 *   `BasicTracerProvider` with a `BatchSpanProcessor` and an exporter that drops everything, a
 *   `MeterProvider` with a periodic reader and a dropping exporter), minus the same without
 *   `diagnostics_channel`. Goal <= 20 us.
 *
 * Each variant runs in its own process (a process cannot have both a runtime with and without
 * `diagnostics_channel`): `client.reservations.retrieve` with a `fetch` answering in memory (no
 * network: its cost would drown the difference), a limiter of 10^6 requests per second (so every
 * call also waits for its slot, as in production), batches of calls timed with
 * `process.cpuUsage()`. Rounds run the three variants in turn, the order alternating; each
 * variant's figure is its fastest batch over all rounds: load from other processes on a shared
 * machine only ever adds time, so the fastest batch is the one closest to the code's own cost.
 *
 *   node bench/otel-overhead.mjs   (after npm run build; ROUNDS, default 4)
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const VARIANTS = ['bare', 'unsubscribed', 'subscribed'];
const BATCHES = 10;
const PER_BATCH = 1000;
const WARMUP = 2000;

/** One variant in this process: prints the CPU nanoseconds per call of each batch as JSON. */
async function child(variant, root) {
  if (variant === 'bare') process.getBuiltinModule = undefined;
  const dist = (path) => pathToFileURL(join(root, 'dist', path)).href;
  if (variant === 'subscribed') {
    const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
    const { MeterProvider, PeriodicExportingMetricReader } = await import('@opentelemetry/sdk-metrics');
    const { instrument } = await import(dist('otel/index.js'));
    const dropping = { export: (_items, done) => done({ code: 0 }), shutdown: async () => {} };
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping)] });
    const reader = new PeriodicExportingMetricReader({ exporter: dropping, exportIntervalMillis: 1000 });
    instrument({ tracerProvider, meterProvider: new MeterProvider({ readers: [reader] }) });
  }
  const { PartnerClient, silentLogger } = await import(dist('index.js'));
  const body = JSON.stringify({
    id: 7,
    first_name: 'Ada',
    last_name: 'Lovelace',
    start_time: '2026-12-05T19:30:00+01:00',
    adults: 2,
    confirmed: true,
    cancelled: false,
  });
  const client = new PartnerClient({
    baseUrl: 'https://partner-api.bench.invalid',
    partnerId: '5b0c2f8e-3a41-4c6e-9f1d-7e2a8b4c6d10',
    apiToken: 'bench-token-not-a-secret',
    rateLimit:
      process.env.OTEL_BENCH_LIMITER === 'off' ? false : { requestsPerSecond: 1_000_000, maxQueue: 10 },
    logger: silentLogger,
    fetch: () =>
      Promise.resolve(new Response(body, { status: 200, headers: { 'content-type': 'application/json' } })),
  });
  const batch = async (calls) => {
    const started = process.cpuUsage();
    for (let call = 0; call < calls; call += 1) await client.reservations.retrieve(12, 7);
    const used = process.cpuUsage(started);
    return ((used.user + used.system) * 1000) / calls;
  };
  await batch(WARMUP);
  const perCall = [];
  for (let index = 0; index < BATCHES; index += 1) perCall.push(await batch(PER_BATCH));
  process.stdout.write(JSON.stringify(perCall));
  // The SDK's export timers would keep the process alive.
  process.exit(0);
}

/** Runs the three variants `rounds` times each, in turns; returns each variant's batches. */
export function measureOtelOverhead(root, rounds = Number(process.env.ROUNDS ?? 4)) {
  const batches = Object.fromEntries(VARIANTS.map((variant) => [variant, []]));
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 ? [...VARIANTS].reverse() : VARIANTS;
    for (const variant of order) {
      const result = spawnSync(process.execPath, [fileURLToPath(import.meta.url), variant], {
        cwd: root,
        encoding: 'utf8',
        timeout: 120_000,
      });
      if (result.status !== 0) throw new Error(`otel overhead (${variant}) failed: ${result.stderr}`);
      batches[variant].push(...JSON.parse(result.stdout));
    }
  }
  return Object.fromEntries(VARIANTS.map((variant) => [variant, Math.min(...batches[variant])]));
}

/** Part `otel` of bench/run.mjs. */
export function benchOtel({ root, record }) {
  const ns = measureOtelOverhead(root);
  record(
    'otel_overhead_ns_unsubscribed',
    ns.unsubscribed - ns.bare,
    'ns CPU per call, no subscriber',
    '<= 1000',
  );
  record(
    'otel_overhead_us_subscribed',
    (ns.subscribed - ns.bare) / 1000,
    'us CPU per call, OpenTelemetry SDK subscribed',
    '<= 20',
  );
  return ns;
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const variant = process.argv[2];
  if (variant) await child(variant, root);
  else {
    const ns = measureOtelOverhead(root);
    console.log(
      `per call (CPU): bare ${(ns.bare / 1000).toFixed(2)} us, unsubscribed ${(ns.unsubscribed / 1000).toFixed(2)} us, subscribed ${(ns.subscribed / 1000).toFixed(2)} us`,
    );
    console.log(
      `otel_overhead_ns_unsubscribed ${(ns.unsubscribed - ns.bare).toFixed(0)} ns, otel_overhead_us_subscribed ${((ns.subscribed - ns.bare) / 1000).toFixed(2)} us`,
    );
  }
}
