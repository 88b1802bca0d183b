/**
 * What the instrumentation costs per call, side by side in one run (part `otel` of `npm run bench`):
 *
 * - `otel_overhead_us_subscribed`: CPU per call with `instrument()` on the OpenTelemetry SDK (a
 *   `BasicTracerProvider` with a `BatchSpanProcessor` and an exporter that drops everything, a
 *   `MeterProvider` with a periodic reader and a dropping exporter), minus the same call of a copy
 *   of the package that found no `diagnostics_channel` (loaded with `process.getBuiltinModule`
 *   removed, as on Workers without `nodejs_compat`). Goal <= 20 us.
 * - `otel_sdk_floor_us_subscribed` (no goal), beside it: the OpenTelemetry SDK's own floor for the
 *   same telemetry, measured the same way: the bare copy's call with, around it, by hand, what
 *   `instrument()` asks of the SDK per call (3 spans with the same attributes, the wait and the
 *   attempt children of the call, and 4 records on instruments with attribute sets made once).
 *   What ours costs above it is ours.
 * - `otel_overhead_ns_unsubscribed`: see otel-guards.mjs (the channels' guards, the only code that
 *   differs when no one listens, in paired batches with a bootstrap interval). The end-to-end
 *   difference of whole calls (unsubscribed minus bare) is printed beside it with its spread, as
 *   a check: it is within its own noise of zero.
 *
 * A call is `client.reservations.retrieve` with a `fetch` answering in memory (no network: its
 * cost would drown the difference) and a limiter of 10^6 requests per second (so every call also
 * waits for its slot, as in production): the same call in every variant.
 *
 * The variants run in ONE process, batch after batch in turns (the order rotating), so that
 * each difference is taken between batches that ran moments apart under the same load, JIT state
 * and heap: an earlier version ran each variant in its own process and compared their fastest
 * batches, and process-to-process spread (tens of us on a loaded machine) swamped a 1 us goal.
 * Each figure is the median, over every round of every process, of the round's paired difference
 * (variant batch minus bare batch): a burst of load from other processes lands in one round and
 * moves the median little. Several processes (PROCESSES) average out one process's luck in
 * code placement.
 *
 *   node bench/otel-overhead.mjs   (after npm run build; PROCESSES default 3, ROUNDS default 12)
 */
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { measureGuards, summarize } from './otel-guards.mjs';
import { sdkFloor } from './support/otel-floor.mjs';

const VARIANTS = ['bare', 'unsubscribed', 'subscribed', 'floor'];
const GUARD_ROUNDS = 40;
const PER_BATCH = 500;
const WARMUP = 2000;

function makeClient({ PartnerClient, silentLogger }, partnerId) {
  const body = JSON.stringify({
    id: 7,
    first_name: 'Ada',
    last_name: 'Lovelace',
    start_time: '2026-12-05T19:30:00+01:00',
    adults: 2,
    confirmed: true,
    cancelled: false,
  });
  return new PartnerClient({
    baseUrl: 'https://partner-api.bench.invalid',
    partnerId,
    apiToken: 'bench-token-not-a-secret',
    rateLimit: { requestsPerSecond: 1_000_000, maxQueue: 10 },
    logger: silentLogger,
    fetch: () =>
      Promise.resolve(new Response(body, { status: 200, headers: { 'content-type': 'application/json' } })),
  });
}

/** One process: every variant in turns; prints each round's CPU nanoseconds per call by variant as JSON. */
async function child(root, bareDist, rounds, bareFirst) {
  const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { MeterProvider, PeriodicExportingMetricReader } = await import('@opentelemetry/sdk-metrics');
  const dist = (path) => pathToFileURL(join(root, 'dist', path)).href;
  // The bare copy finds no diagnostics_channel: it looks once, at its first call, made at once.
  const loadBare = async () => {
    // Kept to be put back below, never called detached.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    const getBuiltinModule = process.getBuiltinModule;
    process.getBuiltinModule = undefined;
    try {
      const bareSdk = await import(pathToFileURL(join(bareDist, 'index.js')).href);
      const bare = makeClient(bareSdk, '5b0c2f8e-3a41-4c6e-9f1d-7e2a8b4c6d11');
      await bare.reservations.retrieve(12, 7);
      return bare;
    } finally {
      process.getBuiltinModule = getBuiltinModule;
    }
  };
  const loadInstrumented = async () =>
    makeClient(await import(dist('index.js')), '5b0c2f8e-3a41-4c6e-9f1d-7e2a8b4c6d10');
  // Which copy loads first alternates between processes: the first copy loaded may run its calls
  // at another speed than the second (code placement, the shared dependencies' inline caches).
  let bare;
  let client;
  if (bareFirst) {
    bare = await loadBare();
    client = await loadInstrumented();
  } else {
    client = await loadInstrumented();
    bare = await loadBare();
  }
  const { instrument } = await import(dist('otel/index.js'));
  const dropping = { export: (_items, done) => done({ code: 0 }), shutdown: async () => {} };
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping)] });
  const reader = new PeriodicExportingMetricReader({ exporter: dropping, exportIntervalMillis: 1000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const guards = await measureGuards(join(root, 'dist'), bareDist, GUARD_ROUNDS);
  let stop = () => undefined;
  const floor = sdkFloor(tracerProvider, meterProvider);
  const retrieve = (of) => () => of.reservations.retrieve(12, 7);
  const variants = {
    bare: { call: retrieve(bare), before() {} },
    unsubscribed: { call: retrieve(client), before() {} },
    subscribed: {
      call: retrieve(client),
      before: () => (stop = instrument({ tracerProvider, meterProvider })),
    },
    floor: { call: () => floor(retrieve(bare)), before() {} },
  };
  const batch = async (name, calls) => {
    const variant = variants[name];
    variant.before();
    const started = process.cpuUsage();
    for (let call = 0; call < calls; call += 1) await variant.call();
    const used = process.cpuUsage(started);
    stop();
    stop = () => undefined;
    return ((used.user + used.system) * 1000) / calls;
  };
  for (const name of VARIANTS) await batch(name, WARMUP);
  const perRound = [];
  for (let round = 0; round < rounds; round += 1) {
    // Each variant goes first, second and third in turn.
    const order = VARIANTS.map((_, index) => VARIANTS[(index + round) % VARIANTS.length]);
    const figures = {};
    for (const name of order) figures[name] = await batch(name, PER_BATCH);
    perRound.push(figures);
  }
  process.stdout.write(JSON.stringify({ perRound, guards }));
  // The SDK's export timers would keep the process alive.
  process.exit(0);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Runs `processes` processes of `rounds` rounds; returns the median per-call CPU (ns) of each variant and of each paired difference. */
export function measureOtelOverhead(
  root,
  processes = Number(process.env.PROCESSES ?? 3),
  rounds = Number(process.env.ROUNDS ?? 12),
) {
  // The copy lives beside the package's own files, so that it finds the same node_modules.
  const bareDist = join(root, 'bench', '.otel-bare-dist');
  rmSync(bareDist, { recursive: true, force: true });
  cpSync(join(root, 'dist'), bareDist, { recursive: true });
  const all = [];
  const guards = [];
  try {
    for (let index = 0; index < processes; index += 1) {
      const result = spawnSync(
        process.execPath,
        [
          fileURLToPath(import.meta.url),
          'child',
          bareDist,
          String(rounds),
          index % 2 ? 'instrumented-first' : 'bare-first',
        ],
        { cwd: root, encoding: 'utf8', timeout: 600_000 },
      );
      if (result.status !== 0) throw new Error(`otel overhead failed: ${result.stderr}`);
      const measured = JSON.parse(result.stdout);
      all.push(...measured.perRound);
      guards.push(...measured.guards);
    }
  } finally {
    rmSync(bareDist, { recursive: true, force: true });
  }
  const over = (name) => summarize(all.map((round) => round[name] - round.bare));
  return {
    ...Object.fromEntries(VARIANTS.map((name) => [name, median(all.map((round) => round[name]))])),
    guards: summarize(guards),
    unsubscribedEndToEnd: over('unsubscribed'),
    subscribedOverhead: over('subscribed'),
    floorOverhead: over('floor'),
  };
}

const us = (ns) => (ns / 1000).toFixed(2);
const spread = ({ iqr, ci95 }, unit = us) =>
  `IQR ${unit(iqr[0])} .. ${unit(iqr[1])}, 95% interval of the median ${unit(ci95[0])} .. ${unit(ci95[1])}`;

/** The lines a reader needs beside the recorded figures: each with its spread. */
function describe(ns) {
  const n = (value) => value.toFixed(1);
  return [
    `per call (CPU, medians): bare ${us(ns.bare)} us, unsubscribed ${us(ns.unsubscribed)} us, subscribed ${us(ns.subscribed)} us, SDK floor ${us(ns.floor)} us`,
    `unsubscribed, the guards: ${n(ns.guards.median)} ns per call (${spread(ns.guards, n)} ns; ${ns.guards.rounds} paired batches)`,
    `unsubscribed, end to end (a check, noisy): ${us(ns.unsubscribedEndToEnd.median)} us (${spread(ns.unsubscribedEndToEnd)} us)`,
    `subscribed: ${us(ns.subscribedOverhead.median)} us (${spread(ns.subscribedOverhead)} us); the SDK's floor for the same telemetry: ${us(ns.floorOverhead.median)} us (${spread(ns.floorOverhead)} us)`,
  ];
}

/** Part `otel` of bench/run.mjs. */
export function benchOtel({ root, record }) {
  const ns = measureOtelOverhead(root);
  for (const line of describe(ns)) process.stderr.write(`  ${line}\n`);
  record('otel_overhead_ns_unsubscribed', ns.guards.median, 'ns CPU per call, no subscriber', '<= 1000');
  record(
    'otel_overhead_us_subscribed',
    ns.subscribedOverhead.median / 1000,
    'us CPU per call, OpenTelemetry SDK subscribed',
    '<= 20',
  );
  record(
    'otel_sdk_floor_us_subscribed',
    ns.floorOverhead.median / 1000,
    "us CPU per call, the OpenTelemetry SDK's own work for the same spans and records",
  );
  return ns;
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === 'child')
    await child(root, process.argv[3], Number(process.argv[4]), process.argv[5] !== 'instrumented-first');
  else for (const line of describe(measureOtelOverhead(root))) console.log(line);
}
