/**
 * `npm run bench`: measures the SDK side by side in one run, prints a table and writes
 * bench/results.json. Every speed claim is a ratio against a baseline measured in the same run on
 * the same machine (throttle against the server's limit, client against raw fetch, import against
 * bare node), so figures compare across machines better than absolute times do.
 *
 * It runs the BUILT package (dist/), as partners get it; `npm run bench` builds first. Servers and
 * the load generator run as separate processes, so a server never shares an event loop with the
 * code being measured. Whole run: about one minute. bench/README.md explains each figure.
 *
 * Options (environment): BENCH_ONLY=throttle,overhead,import,size,bundle,cold,workerd,fake,receiver,redis,bottleneck,sync,listen,otel,create,mirror,single
 * (comma list; `redis` is redis-4proc,redis-16proc,redis-fault,redis-20rps, each also by name) runs only those
 * parts and prints them without touching bench/results.json.
 */
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, release, type as osType, arch } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { startCannedServer, startProcess, startStrictFake } from './support/servers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (path) => pathToFileURL(join(root, 'dist', path)).href;
const only = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : undefined;
const wanted = (part) => !only || only.has(part);

const { PartnerClient, silentLogger, Reservation } = await import(dist('index.js'));

const PARTNER_ID = '5b0c2f8e-3a41-4c6e-9f1d-7e2a8b4c6d10';
const API_TOKEN = 'bench-token-not-a-secret';
const figures = [];
const notes = [];

/**
 * Records one figure. `goal` is a comparison like ">= 0.97", or null for a figure reported without a goal.
 * @param {string} name
 * @param {number} value
 * @param {string} unit
 * @param {string | null} goal
 */
function record(name, value, unit, goal = null) {
  const shown = Number.isInteger(value) || !Number.isFinite(value) ? value : Number(value.toPrecision(4));
  figures.push({ name, value: shown, unit, goal });
  process.stderr.write(
    `  ${name} = ${Number.isFinite(value) ? Number(value.toPrecision(4)) : value} ${unit}${goal ? `  (goal ${goal})` : ''}\n`,
  );
}

function meets(value, goal) {
  if (!goal) return '';
  const match = /^(<=|>=|==)\s*([\d.]+)/.exec(goal);
  if (!match) return '';
  const target = Number(match[2]);
  const ok = match[1] === '<=' ? value <= target : match[1] === '>=' ? value >= target : value === target;
  return ok ? 'yes' : 'NO';
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const partner = { partnerId: PARTNER_ID, apiToken: API_TOKEN };
const authorization = `Basic ${Buffer.from(`${PARTNER_ID}:${API_TOKEN}`).toString('base64')}`;

// --- throttle efficiency --------------------------------------------------------------------

/**
 * Sends `calls` requests through one client at `rps` against a server that 429s anything faster
 * than `rps`, all queued at once (the worst case for a limiter). Efficiency is the rate the
 * server accepted, from its own clock ((n - 1) intervals between the first and last accepted
 * request), over the limit.
 */
async function throttleRun(rps, calls) {
  const server = await startStrictFake({ root, startProcess, partner, requestsPerSecond: rps });
  try {
    let rateLimited = 0;
    const client = new PartnerClient({
      baseUrl: server.url,
      partnerId: PARTNER_ID,
      apiToken: API_TOKEN,
      rateLimit: { requestsPerSecond: rps },
      maxRetries: 5,
      logger: silentLogger,
      hooks: { onRateLimited: () => (rateLimited += 1) },
    });
    await Promise.all(
      Array.from({ length: calls }, () =>
        client.reservations.retrieve(server.restaurantId, server.reservationId),
      ),
    );
    const stats = await server.stats();
    const times = stats.acceptedAt;
    const achieved = ((times.length - 1) / (times.at(-1) - times[0])) * 1000;
    const gaps = times.slice(1).map((time, index) => time - times[index]);
    process.stderr.write(
      `    ${rps} req/s: ${stats.accepted} accepted, ${stats.refused} refused (429); gaps between accepted requests ms: ` +
        `min ${Math.min(...gaps).toFixed(1)}, median ${median(gaps).toFixed(1)}, max ${Math.max(...gaps).toFixed(1)}\n`,
    );
    return {
      efficiency: achieved / rps,
      rateLimited: Math.max(rateLimited, stats.refused),
      accepted: stats.accepted,
    };
  } finally {
    await server.stop();
  }
}

async function benchThrottle() {
  process.stderr.write('throttle efficiency against a strict server-side limiter\n');
  const slow = await throttleRun(1, 10);
  const fast = await throttleRun(20, 120);
  record('throttle_efficiency_1rps', slow.efficiency, 'ratio of limit', '>= 0.98');
  record('throttle_efficiency_fast', fast.efficiency, 'ratio of limit (20 req/s)', '>= 0.97');
  record('throttle_429_count', slow.rateLimited + fast.rateLimited, '429s (both runs)', '== 0');
}

// --- client overhead --------------------------------------------------------------------------

async function timePerCall(fn, calls) {
  const started = performance.now();
  for (let index = 0; index < calls; index += 1) await fn();
  return (performance.now() - started) / calls;
}

/**
 * Alternates small raw and client batches (ABBA order, so neither always runs first) so that load
 * from other processes on a shared machine hits both alike. The ratio is the median of the
 * per-round ratios; the times are medians of batch means.
 */
async function sideBySide(raw, viaClient, { rounds, perRound, warmup }) {
  await timePerCall(raw, warmup);
  await timePerCall(viaClient, warmup);
  const rawTimes = [];
  const clientTimes = [];
  const ratios = [];
  for (let round = 0; round < rounds; round += 1) {
    let rawTime;
    let clientTime;
    if (round % 2 === 0) {
      rawTime = await timePerCall(raw, perRound);
      clientTime = await timePerCall(viaClient, perRound);
    } else {
      clientTime = await timePerCall(viaClient, perRound);
      rawTime = await timePerCall(raw, perRound);
    }
    rawTimes.push(rawTime);
    clientTimes.push(clientTime);
    ratios.push(clientTime / rawTime);
  }
  return { raw: median(rawTimes), client: median(clientTimes), ratio: median(ratios) };
}

async function benchOverhead() {
  process.stderr.write(
    'client overhead against raw fetch + JSON.parse (loopback server in its own process)\n',
  );
  const server = await startCannedServer({ root, startProcess, partner, listSize: 1000 });
  try {
    const base = server.url;
    const { restaurantId, reservationId } = server;
    const client = new PartnerClient({
      baseUrl: base,
      partnerId: PARTNER_ID,
      apiToken: API_TOKEN,
      rateLimit: false,
      logger: silentLogger,
    });
    const detailUrl = `${base}/api/v1/partnership/restaurants/${restaurantId}/reservations/${reservationId}/`;
    const listUrl = `${base}/api/v1/partnership/restaurants/${restaurantId}/reservations/`;
    const rawGet = async (url) => {
      const response = await fetch(url, { headers: { authorization, accept: 'application/json' } });
      if (!response.ok) throw new Error(`raw fetch answered ${response.status}`);
      return JSON.parse(await response.text());
    };

    const single = await sideBySide(
      () => rawGet(detailUrl),
      () => client.reservations.retrieve(restaurantId, reservationId),
      { rounds: 60, perRound: 50, warmup: 500 },
    );
    const firstPage = await client.reservations.list(restaurantId).toArray();
    if (firstPage.length !== 1000)
      throw new Error(`expected 1000 reservations through the client, got ${firstPage.length}`);
    const list = await sideBySide(
      async () => (await rawGet(listUrl)).results,
      () => client.reservations.list(restaurantId).toArray(),
      { rounds: 30, perRound: 4, warmup: 20 },
    );
    record('raw_fetch_ms_single', single.raw, 'ms per call');
    record('client_ms_single', single.client, 'ms per call');
    record('overhead_ratio_single', single.ratio, 'client / raw (median of rounds)', '<= 1.3');
    record('raw_fetch_ms_list_1000', list.raw, 'ms per call');
    record('client_ms_list_1000', list.client, 'ms per call');
    record('overhead_ratio_list_1000', list.ratio, 'client / raw (median of rounds)');
    record(
      'client_extra_us_per_reservation',
      ((list.client - list.raw) * 1000) / 1000,
      'µs per item (client list minus raw, /1000)',
    );

    // The validation itself, apart from the network: the exported schema over the same 1000 items.
    if (Reservation) {
      const items = (await rawGet(listUrl)).results;
      for (const item of items) Reservation.parse(item);
      const times = [];
      for (let round = 0; round < 15; round += 1) {
        const started = performance.now();
        for (const item of items) Reservation.parse(item);
        times.push(((performance.now() - started) * 1000) / items.length);
      }
      record('parse_us_per_reservation', median(times), 'µs per item (Reservation schema)');
    } else {
      record('parse_us_per_reservation', ((list.client - list.raw) * 1000) / 1000, 'µs per item (derived)');
    }
  } finally {
    await server.stop();
  }
}

// --- import cost and size ----------------------------------------------------------------------

async function benchImport() {
  process.stderr.write(
    'import cost of the core entry and of openai against bare node (alternating runs, medians)\n',
  );
  const { importCosts } = await import('./import-cost.mjs');
  // The SDK partners compare us with, imported the same way in the same loop (goal: ours no higher).
  const { bareMs, costs } = importCosts({ ours: dist('index.js'), openai: import.meta.resolve('openai') });
  record('node_bare_ms', bareMs, 'ms (node -e "")');
  record('import_cost_ms', costs.ours, 'ms over bare node', '<= 60');
  record('import_cost_openai_ms', costs.openai, 'ms over bare node (openai package, same loop)');
}

async function benchSize() {
  process.stderr.write('core entry size, minified and gzipped (esbuild)\n');
  const esbuild = await import('esbuild');
  const dependencies = ['zod', 'p-retry', 'luxon'];
  const bundle = async (external) => {
    const result = await esbuild.build({
      entryPoints: [join(root, 'dist/index.js')],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'neutral',
      mainFields: ['module', 'main'],
      external,
      write: false,
      logLevel: 'silent',
    });
    const code = result.outputFiles.map((file) => file.contents);
    return gzipSync(Buffer.concat(code)).length;
  };
  record('core_gzip_bytes', await bundle(dependencies), 'bytes min+gz, dependencies external');
  record('core_gzip_bytes_with_deps', await bundle([]), 'bytes min+gz, dependencies bundled');
}

// --- the fake -------------------------------------------------------------------------------------

async function benchFake() {
  process.stderr.write(
    'standalone fake throughput (separate load process) and an in-process suite of 100 calls\n',
  );
  const testing = await import(dist('testing/index.js'));

  // 100 calls through the client with the fake's own options: 1 req/s limit on, virtual clock.
  {
    const fake = testing.createFakeService();
    const partner = fake.addPartner({ name: 'Bench partner' });
    const restaurant = fake.addRestaurant({ display_name: 'Bench Bistro' });
    fake.link(partner.partnerId, restaurant.id);
    const client = new PartnerClient({ ...fake.clientOptions(partner), logger: silentLogger });
    const started = performance.now();
    const created = [];
    const day = (offset) => new Date(fake.clock.now() + offset * 86_400_000).toISOString().slice(0, 10);
    for (let index = 0; index < 40; index += 1) {
      created.push(
        await client.reservations.create(restaurant.id, {
          start_time: { date: day(3 + index), time: '19:30' },
          adults: 2,
        }),
      );
    }
    for (const reservation of created.slice(0, 30))
      await client.reservations.retrieve(restaurant.id, reservation.id);
    for (const reservation of created.slice(0, 20))
      await client.reservations.cancel(restaurant.id, reservation.id);
    for (let index = 0; index < 10; index += 1)
      await client.reservations.list(restaurant.id, { page_size: 50 });
    record(
      'fake_suite_100_calls_ms',
      performance.now() - started,
      'ms wall (1 req/s limit on, virtual clock)',
    );
  }

  // `npx restaurant-partner-fake --seed demo` as a newcomer types it: spawn to JSON start line.
  {
    const times = [];
    for (let run = 0; run < 3; run += 1) {
      const started = performance.now();
      // Its own process group: npx runs the fake as a grandchild, and the whole group must stop.
      const child = spawn(
        'npx',
        ['--no-install', 'restaurant-partner-fake', '--seed', 'demo', '--port', '0'],
        { cwd: root, stdio: ['ignore', 'pipe', 'ignore'], detached: true },
      );
      await new Promise((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', (code) =>
          reject(new Error(`restaurant-partner-fake exited (${code}) before its start line`)),
        );
      });
      times.push(performance.now() - started);
      child.removeAllListeners('exit');
      process.kill(-Number(child.pid), 'SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    record(
      'fake_start_ms',
      median(times),
      'ms from `npx restaurant-partner-fake --seed demo` to its JSON start line',
      '<= 2000',
    );
  }

  // As a partner starts it (request log on stderr), and with --quiet.
  for (const [name, extra] of [
    ['fake_rps_list50', []],
    ['fake_rps_list50_quiet', ['--quiet']],
  ]) {
    record(
      name,
      await fakeThroughput(extra),
      `req/s (list of 50, rate limit off, 32 connections${extra.length ? ', --quiet' : ''})`,
      name === 'fake_rps_list50' ? '>= 5000' : null,
    );
  }
  // A create's cost as the world grows: 100,000 bookings against 100, same run.
  {
    const { measureCreateGrowth } = await import('./fake-growth.mjs');
    const growth = await measureCreateGrowth(testing);
    record(
      'fake_create_ms_100k_over_100',
      growth.ratio,
      `create at 100,000 bookings over at 100 (${growth.largeMs.toFixed(3)} ms / ${growth.smallMs.toFixed(3)} ms, in-process)`,
      '<= 2',
    );
  }
  const {
    measureFakeRpsRatio,
    measureFakeRpsRatioSmall,
    measureFakeSandboxesRatio,
    measureFakeApiP95WithPage,
  } = await import('./fake-ratio.mjs');
  record(
    'fake_rps_ratio',
    await measureFakeRpsRatio({ root, startProcess, notes }),
    'fake req/s over a bare node:http server sending the same bytes (--quiet, same load, in turns)',
    '>= 0.5',
  );
  record(
    'fake_rps_ratio_small',
    await measureFakeRpsRatioSmall({ root, startProcess, notes }),
    'fake req/s over a bare node:http server, small restaurant list (50 connections, same run, in turns)',
    '>= 0.6',
  );
  record(
    'fake_sandboxes_ratio',
    await measureFakeSandboxesRatio({ root, startProcess, notes }),
    'req/s of 20 sandboxes at once over one world (50 connections, same run, in turns)',
    '>= 0.9',
  );
  const p95 = await measureFakeApiP95WithPage({ root, startProcess, notes });
  record(
    'fake_api_p95_ms',
    p95.without,
    'ms p95 of the partner API on a fake of 10,000 bookings (8 connections)',
    null,
  );
  record(
    'fake_api_p95_ms_with_page_open',
    p95.withPage,
    'ms p95 of the same while a simulator page polls /_fake/state each second and the state changes',
    null,
  );
}

/** Requests per second the standalone fake serves for a list of 50, measured by a separate load process. */
async function fakeThroughput(extraArguments) {
  const server = await startProcess(join(root, 'dist/bin/restaurant-partner-fake.js'), [
    '--port',
    '0',
    '--rate-limit',
    'off',
    '--seed',
    'none',
    ...extraArguments,
  ]);
  try {
    const url = server.info.url;
    const control = async (path, body) => {
      const response = await fetch(`${url}/_fake/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body ?? {}),
      });
      if (!response.ok)
        throw new Error(`control ${path} answered ${response.status}: ${await response.text()}`);
      return response.json();
    };
    const partner = await control('partners', { name: 'Load partner' });
    const restaurant = await control('restaurants', { display_name: 'Load Bistro' });
    await control('links', { partnerId: partner.partnerId, restaurantId: restaurant.id });
    const client = new PartnerClient({
      baseUrl: url,
      partnerId: partner.partnerId,
      apiToken: partner.apiToken,
      rateLimit: false,
      logger: silentLogger,
    });
    const day = 24 * 3600_000;
    for (let index = 0; index < 50; index += 1) {
      await client.reservations.create(restaurant.id, {
        start_time: {
          date: new Date(Date.now() + (3 + index) * day).toISOString().slice(0, 10),
          time: '19:00',
        },
        adults: 2,
      });
    }
    const listUrl = `${url}/api/v1/partnership/restaurants/${restaurant.id}/reservations/?page_size=50`;
    const basic = `Basic ${Buffer.from(`${partner.partnerId}:${partner.apiToken}`).toString('base64')}`;
    const sample = await (await fetch(listUrl, { headers: { authorization: basic } })).json();
    const items = Array.isArray(sample) ? sample : sample.results;
    if (items.length !== 50) throw new Error(`expected a list of 50, got ${items.length}`);

    const load = spawnSync(
      process.execPath,
      [
        join(root, 'bench/support/load.mjs'),
        '--url',
        listUrl,
        '--authorization',
        basic,
        '--concurrency',
        '32',
        '--duration',
        '6000',
        '--warmup',
        '1500',
      ],
      { encoding: 'utf8' },
    );
    if (load.status !== 0) throw new Error(`load process failed: ${load.stderr}`);
    const result = JSON.parse(load.stdout.trim().split('\n').at(-1));
    if (result.errors > 0)
      notes.push(
        `fake load${extraArguments.length ? ' (quiet)' : ''}: ${result.errors} non-200 answers of ${result.requests}`,
      );
    return result.rps;
  } finally {
    await server.stop();
  }
}

/** The webhook receiver on node:http against a bare node:http handler, side by side (bench/receiver-ratio.mjs). */
async function benchReceiver() {
  const { measureReceiverRatios } = await import('./receiver-ratio.mjs');
  const { rpsRatio, p99Ratio, rssRatio, cpuRatio, busyRatio } = await measureReceiverRatios({ root, notes });
  const against =
    'the same deliveries to a bare node:http handler that reads the body and compares the header, same run, in turns, 50 connections';
  record('receiver_rps_ratio', rpsRatio, `receiver deliveries/s over ${against}`, '>= 0.8');
  record(
    'receiver_p99_ratio',
    p99Ratio,
    `receiver p99 latency over the bare handler's (${against})`,
    '<= 1.5',
  );
  record('receiver_rss_ratio', rssRatio, "receiver process's peak RSS over the bare handler's", '<= 1.5');
  // On two cores one load process is about as fast as the bare handler, so the req/s ratio also
  // shows the load's own limit. What the receiver itself costs per delivery: its process's CPU
  // (GC helper threads and the kernel included), and its event loop's busy time, which bounds
  // the deliveries per second one process can take.
  record(
    'receiver_cpu_ratio',
    cpuRatio,
    "receiver CPU per delivery over the bare handler's (median of rounds)",
  );
  record(
    'receiver_busy_ratio',
    busyRatio,
    "receiver event-loop busy time per delivery over the bare handler's (median of rounds)",
  );
}

// --- run ------------------------------------------------------------------------------------------

const startedAt = performance.now();
if (wanted('throttle')) await benchThrottle();
if (wanted('overhead')) await benchOverhead();
if (wanted('import')) await benchImport();
if (wanted('size')) await benchSize();
if (wanted('bundle')) await (await import('./bundle-size.mjs')).benchBundles({ root, record });
if (wanted('cold'))
  (await import('./cold-start.mjs')).benchColdStart({ root, distIndex: dist('index.js'), record });
if (wanted('workerd')) await (await import('./workerd-startup.mjs')).benchWorkerd({ root, record });
if (wanted('fake')) await benchFake();
if (wanted('receiver')) await benchReceiver();
{
  // `redis` runs every part of ours; each also runs by its own name; `bottleneck` is the anchor beside them.
  const { benchRedisBudget, REDIS_PARTS } = await import('./redis-budget.mjs');
  const wantedRedisPart = (part) => wanted(part) || (part !== 'bottleneck' && wanted('redis'));
  if ([...REDIS_PARTS, 'bottleneck'].some(wantedRedisPart))
    await benchRedisBudget({ root, record, startProcess, partner, wanted: wantedRedisPart });
}
if (wanted('sync')) await (await import('./sync.mjs')).benchSync({ root, record });
if (wanted('listen')) await (await import('./listen-forward.mjs')).benchListen({ root, record });
if (wanted('create')) await (await import('./create-repeat.mjs')).benchCreateRepeat({ dist, record });
if (wanted('otel')) (await import('./otel-overhead.mjs')).benchOtel({ root, record });
if (wanted('create')) await (await import('./create-first-key.mjs')).benchCreateFirstKey({ dist, record });
if (wanted('mirror')) await (await import('./postgres-mirror.mjs')).benchPostgresMirror({ root, record });
if (wanted('single'))
  await (
    await import('./single-process.mjs')
  ).benchSingle({ root, record, startProcess, startStrictFake, partner });

const machine = {
  node: process.version,
  cpus: cpus().length,
  cpu_model: cpus()[0]?.model.trim() ?? 'unknown',
  os: `${osType()} ${release()} ${arch()}`,
};
const results = { machine, at: new Date().toISOString(), figures };
// A partial run (BENCH_ONLY) prints its figures but leaves the full run's results.json as it was.
if (!only) writeFileSync(join(root, 'bench/results.json'), `${JSON.stringify(results, null, 2)}\n`);

const rows = [
  ['figure', 'value', 'unit', 'goal', 'met'],
  ...figures.map((figure) => [
    figure.name,
    String(figure.value),
    figure.unit,
    figure.goal ?? '',
    meets(figure.value, figure.goal),
  ]),
];
const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
const line = (row) => `| ${row.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
console.log(
  `\nMachine: Node ${machine.node}, ${machine.cpus} × ${machine.cpu_model}, ${machine.os}; ${results.at}`,
);
console.log(line(rows[0]));
console.log(`| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`);
for (const row of rows.slice(1)) console.log(line(row));
for (const note of notes) console.log(`note: ${note}`);
console.log(
  `\n${only ? 'partial run: bench/results.json left as it was' : 'bench/results.json written'}; bench took ${((performance.now() - startedAt) / 1000).toFixed(0)} s`,
);
