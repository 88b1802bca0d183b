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
 *   a check: 3 to 7 us, more than the guards' 16 ns, the rest a difference between two copies
 *   of the same code (where each was compiled and placed) that the bare baseline carries into
 *   every figure, the subscribed one included.
 *
 * A call is `client.reservations.retrieve` with a `fetch` answering from memory on the next turn
 * of the event loop (no network: its cost would drown the difference) and a limiter that grants
 * every slot at once: the same call in every variant. Three choices keep the figure the
 * instrumentation's, each found by a profile of an earlier version that measured something else:
 *
 * - Subscribed once, for the whole run (as a partner does at start-up). Subscribing before each
 *   subscribed batch and unsubscribing after changed the channel objects' shape under the SDK's
 *   optimised code, which was thrown away and compiled again in each batch of the copy that
 *   publishes (unsubscribed batches included). The unsubscribed variant is a second copy of the
 *   package publishing on channels of another name, which nobody subscribes to.
 * - No pacing. The in-process limiter at 10^6 requests per second (the earlier choice, "so every
 *   call waits for its slot") set a timer for every call and kept a second's requests in its
 *   window: bare calls cost 140-385 us of CPU with it against 100-205 us without, and how much
 *   depended on how fast the last second's calls
 *   had been, so a slower variant paid less for its limiter. The wait is still observed (its span
 *   and its metric) with a limiter that grants at once.
 * - Answers from the event loop, as from a socket (see makeClient).
 *
 * CPU is the whole process's (`process.cpuUsage()`: the collector's helper threads included, since
 * the partner pays for them too); the calling thread's alone (`process.threadCpuUsage()`) is
 * printed beside it.
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
 *   node bench/otel-overhead.mjs   (after npm run build; PROCESSES default 3, ROUNDS default 20, PER_BATCH default 1000)
 */
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadWithoutDiagnostics, measureGuards, summarize } from './otel-guards.mjs';
import { sdkFloor } from './support/otel-floor.mjs';

const VARIANTS = ['bare', 'unsubscribed', 'subscribed', 'floor'];
const GUARD_ROUNDS = 40;
const PER_BATCH = Number(process.env.PER_BATCH ?? 1000);
const WARMUP = 2000;

/**
 * A limiter that grants every slot at once: each call still waits for its slot (observed: its span,
 * its metric), but no pacing runs (see the module's comment).
 */
const grantsAtOnce = () => ({ queueDepth: 0, acquire: () => Promise.resolve(), pause() {} });

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
    rateLimit: grantsAtOnce(),
    logger: silentLogger,
    // The answer comes from the event loop, as from a socket: answered in a microtask, a batch of
    // calls would run as one job of the event loop, and the targets of WeakRefs made during a job
    // (AbortSignal.any makes some per request) stay alive until it ends: the heap grew by 2.4 KB
    // per call and the collector's work with it, in every variant.
    fetch: () =>
      new Promise((resolve) =>
        setImmediate(() =>
          resolve(new Response(body, { status: 200, headers: { 'content-type': 'application/json' } })),
        ),
      ),
  });
}

/** The bench's copy of the package at `dist` (beside the package, so that it finds the same node_modules). */
function copyDist(root, name, edit = (text) => text) {
  const copy = join(root, 'bench', name);
  rmSync(copy, { recursive: true, force: true });
  cpSync(join(root, 'dist'), copy, { recursive: true });
  for (const file of readdirSync(copy))
    if (file.endsWith('.js')) {
      const path = join(copy, file);
      writeFileSync(path, edit(readFileSync(path, 'utf8')));
    }
  return copy;
}

/** One process: every variant in turns; prints each round's CPU nanoseconds per call by variant as JSON. */
async function child(root, copies, rounds, bareFirst) {
  const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { MeterProvider, PeriodicExportingMetricReader } = await import('@opentelemetry/sdk-metrics');
  const entry = (dist, path) => pathToFileURL(join(dist, path)).href;
  // Each client makes its first call at once: the bare copy looks for diagnostics_channel there.
  const clientOf = async (dist, partnerId) => {
    const client = makeClient(await import(entry(dist, 'index.js')), partnerId);
    await client.reservations.retrieve(12, 7);
    return client;
  };
  const loadBare = () =>
    loadWithoutDiagnostics(() => clientOf(copies.bare, '5b0c2f8e-3a41-4c6e-9f1d-7e2a8b4c6d11'));
  const loadPublishing = async () => ({
    subscribed: await clientOf(join(root, 'dist'), '5b0c2f8e-3a41-4c6e-9f1d-7e2a8b4c6d10'),
    unsubscribed: await clientOf(copies.unsubscribed, '5b0c2f8e-3a41-4c6e-9f1d-7e2a8b4c6d12'),
  });
  // Which copy loads first alternates between processes: the first copy loaded may run its calls
  // at another speed than the second (code placement, the shared dependencies' inline caches).
  let bare;
  let clients;
  if (bareFirst) {
    bare = await loadBare();
    clients = await loadPublishing();
  } else {
    clients = await loadPublishing();
    bare = await loadBare();
  }
  // Before anything subscribes: the guards are measured as a partner without a subscriber runs them.
  const guards = await measureGuards(join(root, 'dist'), copies.bare, GUARD_ROUNDS);
  const dropping = { export: (_items, done) => done({ code: 0 }), shutdown: async () => {} };
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping)] });
  const reader = new PeriodicExportingMetricReader({ exporter: dropping, exportIntervalMillis: 1000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  // Subscribed once, for the whole run, as a partner does at start-up. Subscribing and
  // unsubscribing around each batch changed the channels' shapes under the SDK's optimised code,
  // which was then thrown away and compiled again in every batch of both copies that publish: an
  // earlier version of this bench measured that, not the instrumentation.
  const { instrument } = await import(entry(join(root, 'dist'), 'otel/index.js'));
  instrument({ tracerProvider, meterProvider });
  const floor = sdkFloor(tracerProvider, meterProvider);
  const retrieve = (of) => () => of.reservations.retrieve(12, 7);
  const variants = {
    bare: retrieve(bare),
    unsubscribed: retrieve(clients.unsubscribed),
    subscribed: retrieve(clients.subscribed),
    floor: () => floor(retrieve(bare)),
  };
  const batch = async (name, calls) => {
    const call = variants[name];
    const started = process.cpuUsage();
    const startedHere = process.threadCpuUsage();
    for (let index = 0; index < calls; index += 1) await call();
    const used = process.cpuUsage(started);
    const usedHere = process.threadCpuUsage(startedHere);
    return {
      process: ((used.user + used.system) * 1000) / calls,
      thread: ((usedHere.user + usedHere.system) * 1000) / calls,
    };
  };
  for (const name of VARIANTS) await batch(name, WARMUP);
  const perRound = [];
  for (let round = 0; round < rounds; round += 1) {
    // Each variant goes first, second, third and fourth in turn.
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
  rounds = Number(process.env.ROUNDS ?? 20),
) {
  const copies = {
    bare: copyDist(root, '.otel-bare-dist'),
    // The same code publishing on channels of another name, which nobody subscribes to.
    unsubscribed: copyDist(root, '.otel-unsubscribed-dist', (text) =>
      text.replaceAll('"restaurant-partner-sdk:"', '"restaurant-partner-sdk-unsubscribed:"'),
    ),
  };
  const all = [];
  const guards = [];
  try {
    for (let index = 0; index < processes; index += 1) {
      const result = spawnSync(
        process.execPath,
        [
          fileURLToPath(import.meta.url),
          'child',
          JSON.stringify(copies),
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
    for (const copy of Object.values(copies)) rmSync(copy, { recursive: true, force: true });
  }
  const over = (name, cpu = 'process') => summarize(all.map((round) => round[name][cpu] - round.bare[cpu]));
  return {
    ...Object.fromEntries(VARIANTS.map((name) => [name, median(all.map((round) => round[name].process))])),
    guards: summarize(guards),
    unsubscribedEndToEnd: over('unsubscribed'),
    subscribedOverhead: over('subscribed'),
    subscribedOverheadMainThread: over('subscribed', 'thread'),
    floorOverhead: over('floor'),
    floorOverheadMainThread: over('floor', 'thread'),
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
    `on the calling thread alone (the collector's helper threads left out): subscribed ${us(ns.subscribedOverheadMainThread.median)} us (${spread(ns.subscribedOverheadMainThread)} us), the SDK's floor ${us(ns.floorOverheadMainThread.median)} us`,
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
    await child(
      root,
      JSON.parse(process.argv[3]),
      Number(process.argv[4]),
      process.argv[5] !== 'instrumented-first',
    );
  else for (const line of describe(measureOtelOverhead(root))) console.log(line);
}
