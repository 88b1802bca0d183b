/**
 * The standalone fake against baselines running side by side in the same run, each loaded alone
 * in turns by the same load process: `fake_rps_ratio` (a list of 50 reservations, 32
 * connections), `fake_rps_ratio_small` (the small restaurant list, 50 connections),
 * `fake_sandboxes_ratio` (20 sandboxes at once against one world) and the partner API's p95 with
 * a simulator page open. Absolute req/s swing with the machine's load; the ratios hold.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runToLastJsonLine } from './support/servers.mjs';

/**
 * Runs a load process against `urls` (requested in turn) and resolves with its result
 * (`{rps, requests, errors, p95Ms, ...}`).
 */
function load(root, urls, authorization, durationMs, concurrency = 32) {
  const urlArguments = (Array.isArray(urls) ? urls : [urls]).flatMap((url) => ['--url', url]);
  return runToLastJsonLine(
    join(root, 'bench/support/load.mjs'),
    [
      ...urlArguments,
      '--authorization',
      authorization,
      '--concurrency',
      String(concurrency),
      '--duration',
      String(durationMs),
      '--warmup',
      '500',
    ],
    'load process',
  );
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Loads two servers running side by side one at a time, in turns (the order alternating), for
 * `rounds` rounds, and answers the median of the rounds' ratios (measured over baseline): each
 * round's two figures come from the same minute of the machine. Loading both at once put four busy
 * processes on two cores, and a round's ratio then followed where the scheduler placed them (0.45
 * to 0.88 in one run). `name` labels the note.
 */
async function inTurns({
  root,
  name,
  notes,
  measured,
  baseline,
  measuredProcess,
  baselineProcess,
  authorization,
  rounds,
  durationMs,
  concurrency,
}) {
  const measuredRates = [];
  const baselineRates = [];
  const ratios = [];
  const cpuRatios = [];
  // A load, with the CPU its server used per request (the load's warm-up counted in the time;
  // undefined where /proc does not tell).
  const loadCounted = async (urls, server) => {
    const before = server.cpuMicros();
    const result = await load(root, urls, authorization, durationMs, concurrency);
    const after = server.cpuMicros();
    const cpuMicros =
      before === undefined || after === undefined ? undefined : (after - before) / result.requests;
    return { ...result, cpuMicros };
  };
  for (let round = 0; round < rounds; round += 1) {
    const loadMeasured = () => loadCounted(measured, measuredProcess);
    const loadBaseline = () => loadCounted(baseline, baselineProcess);
    let measuredResult;
    let baselineResult;
    if (round % 2 === 0) {
      measuredResult = await loadMeasured();
      baselineResult = await loadBaseline();
    } else {
      baselineResult = await loadBaseline();
      measuredResult = await loadMeasured();
    }
    for (const [side, result] of [
      ['measured', measuredResult],
      ['baseline', baselineResult],
    ]) {
      if (result.errors > 0)
        notes.push(`${name}, ${side}: ${result.errors} non-200 answers of ${result.requests}`);
    }
    measuredRates.push(measuredResult.rps);
    baselineRates.push(baselineResult.rps);
    ratios.push(measuredResult.rps / baselineResult.rps);
    if (measuredResult.cpuMicros !== undefined && baselineResult.cpuMicros !== undefined)
      cpuRatios.push(measuredResult.cpuMicros / baselineResult.cpuMicros);
  }
  // What the measured server costs per request over the baseline: on two cores the load process
  // may be the limit of the req/s figures.
  if (cpuRatios.length > 0)
    notes.push(
      `${name}: CPU per request over the baseline's, median of the rounds: ${median(cpuRatios).toFixed(2)}`,
    );
  return {
    ratio: median(ratios),
    ratios,
    measuredRps: median(measuredRates),
    baselineRps: median(baselineRates),
  };
}

/** A bare server answering every request with the status, headers and bytes of `sample`. */
async function bareServerFor(root, startProcess, scratch, sample) {
  const bytes = Buffer.from(await sample.arrayBuffer());
  const headers = Object.fromEntries(
    [...sample.headers].filter(
      ([name]) => !/^(content-length|date|connection|keep-alive|transfer-encoding)$/i.test(name),
    ),
  );
  const answerFile = join(scratch, 'answer.json');
  writeFileSync(
    answerFile,
    JSON.stringify({ status: sample.status, headers, body: bytes.toString('base64') }),
  );
  return {
    server: await startProcess(join(root, 'bench/support/bare-server.mjs'), ['--answer', answerFile]),
    bytes: bytes.byteLength,
  };
}

const DEMO_AUTHORIZATION = `Basic ${Buffer.from('3f6c2a4e-9b1d-4c7e-8a5f-2d4b6c8e0a12:demo-api-token-not-a-secret').toString('base64')}`;
const RESTAURANTS = '/api/v1/partnership/restaurants/';

/**
 * `fake_rps_ratio_small`: the demo partner's restaurant list (three restaurants, a few hundred
 * bytes), where JSON costs little and the fake's own per-request work shows, against a bare
 * `node:http` server sending the same bytes; 50 connections each, in turns.
 */
export async function measureFakeRpsRatioSmall({
  root,
  startProcess,
  notes,
  rounds = 11,
  durationMs = 2000,
}) {
  const fake = await startProcess(join(root, 'dist/bin/restaurant-partner-fake.js'), [
    '--port',
    '0',
    '--rate-limit',
    'off',
    '--seed',
    'demo',
    '--quiet',
  ]);
  const scratch = mkdtempSync(join(tmpdir(), 'fake-ratio-small-'));
  let bare;
  try {
    const url = `${fake.info.url}${RESTAURANTS}`;
    const sample = await fetch(url, { headers: { authorization: DEMO_AUTHORIZATION } });
    if (sample.status !== 200) throw new Error(`the fake answered ${sample.status} to the restaurant list`);
    const made = await bareServerFor(root, startProcess, scratch, sample);
    bare = made.server;
    const result = await inTurns({
      root,
      name: 'fake_rps_ratio_small',
      notes,
      measured: url,
      baseline: `${bare.info.url}${RESTAURANTS}`,
      measuredProcess: fake,
      baselineProcess: bare,
      authorization: DEMO_AUTHORIZATION,
      rounds,
      durationMs,
      concurrency: 50,
    });
    notes.push(
      `fake_rps_ratio_small: median of ${rounds} rounds in turns ${result.ratios.map((ratio) => ratio.toFixed(2)).join(', ')}; fake ${Math.round(result.measuredRps)} req/s, bare node:http ${Math.round(result.baselineRps)} req/s (medians; same ${made.bytes}-byte restaurant list, 50 connections each)`,
    );
    return result.ratio;
  } finally {
    await bare?.stop();
    await fake.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * `fake_sandboxes_ratio`: one standalone fake serving the restaurant list from 20 sandboxes at
 * once (the load takes them in turn), against another serving it from its one world, loaded in
 * turns with 50 connections each.
 */
export async function measureFakeSandboxesRatio({
  root,
  startProcess,
  notes,
  rounds = 11,
  durationMs = 2000,
  sandboxes = 20,
}) {
  const arguments_ = ['--port', '0', '--rate-limit', 'off', '--seed', 'demo', '--quiet'];
  const [oneWorld, withSandboxes] = await Promise.all([
    startProcess(join(root, 'dist/bin/restaurant-partner-fake.js'), arguments_),
    startProcess(join(root, 'dist/bin/restaurant-partner-fake.js'), arguments_),
  ]);
  try {
    const urls = [];
    for (let index = 0; index < sandboxes; index += 1) {
      const response = await fetch(`${withSandboxes.info.url}/_fake/sandboxes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ seed: 'demo', rateLimit: false }),
      });
      if (response.status !== 201)
        throw new Error(`creating a sandbox answered ${response.status}: ${await response.text()}`);
      urls.push(`${(await response.json()).url}${RESTAURANTS}`);
    }
    const result = await inTurns({
      root,
      name: 'fake_sandboxes_ratio',
      notes,
      measured: urls,
      baseline: `${oneWorld.info.url}${RESTAURANTS}`,
      measuredProcess: withSandboxes,
      baselineProcess: oneWorld,
      authorization: DEMO_AUTHORIZATION,
      rounds,
      durationMs,
      concurrency: 50,
    });
    notes.push(
      `fake_sandboxes_ratio: median of ${rounds} rounds in turns ${result.ratios.map((ratio) => ratio.toFixed(2)).join(', ')}; ${sandboxes} sandboxes ${Math.round(result.measuredRps)} req/s, one world ${Math.round(result.baselineRps)} req/s (medians, 50 connections each)`,
    );
    return result.ratio;
  } finally {
    await withSandboxes.stop();
    await oneWorld.stop();
  }
}

/**
 * `fake_api_p95_ms` without and `_with_page_open`: the partner API's p95 latency (restaurant list,
 * 8 connections, a suite's pace) on a fake holding `bookings` reservations, alone, then while a
 * simulator page polls `GET /_fake/state` once a second as the page does (If-None-Match) and one
 * change a second makes each poll a full answer. Rounds alternate the two; medians of each.
 */
export async function measureFakeApiP95WithPage({
  root,
  startProcess,
  notes,
  rounds = 5,
  durationMs = 3000,
  bookings = 10_000,
}) {
  const fake = await startProcess(join(root, 'bench/support/fake-with-bookings.mjs'), [
    '--bookings',
    String(bookings),
  ]);
  try {
    const url = `${fake.info.url}${RESTAURANTS}`;
    const without = [];
    const withPage = [];
    for (let round = 0; round < rounds; round += 1) {
      without.push((await load(root, url, DEMO_AUTHORIZATION, durationMs, 8)).p95Ms);
      const page = pollLikeThePage(fake.info.url);
      try {
        withPage.push((await load(root, url, DEMO_AUTHORIZATION, durationMs, 8)).p95Ms);
      } finally {
        await page.stop();
      }
    }
    notes.push(
      `fake_api_p95_ms_with_page_open: ${bookings} bookings; p95 per round without the page ${without.map((value) => value.toFixed(1)).join(', ')} ms, with it ${withPage.map((value) => value.toFixed(1)).join(', ')} ms`,
    );
    return { without: median(without), withPage: median(withPage) };
  } finally {
    await fake.stop();
  }
}

/** What an open simulator page does: `GET /_fake/state` each second with If-None-Match, here with one change before each. */
function pollLikeThePage(base) {
  let stopped = false;
  let tag = null;
  let day = 0;
  const loop = (async () => {
    while (!stopped) {
      const start = `${new Date(Date.now() + (100 + (day++ % 60)) * 86_400_000).toISOString().slice(0, 10)}T12:00:00`;
      await fetch(`${base}/_fake/restaurants/4/reservations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ start_time: start, adults: 1 }),
      }).then((response) => response.arrayBuffer());
      const state = await fetch(`${base}/_fake/state?deliveries=100`, {
        headers: tag ? { 'if-none-match': tag } : {},
      });
      tag = state.headers.get('etag') ?? tag;
      await state.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  return { stop: async () => ((stopped = true), await loop) };
}

/**
 * Measures the ratio. `startProcess(script, args)` starts a node script and resolves with
 * `{info, cpuMicros, stop}` (its first stdout line as JSON); `notes` collects remarks for the table.
 */
export async function measureFakeRpsRatio({ root, startProcess, notes, rounds = 9, durationMs = 2000 }) {
  const fake = await startProcess(join(root, 'dist/bin/restaurant-partner-fake.js'), [
    '--port',
    '0',
    '--rate-limit',
    'off',
    '--seed',
    'none',
    '--quiet',
  ]);
  const scratch = mkdtempSync(join(tmpdir(), 'fake-ratio-'));
  let bare;
  try {
    const url = fake.info.url;
    const control = async (path, body) =>
      (
        await fetch(`${url}/_fake/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json();
    const partner = await control('partners', { name: 'Ratio partner' });
    const restaurant = await control('restaurants', {
      display_name: 'Ratio Bistro',
      partnerIds: [partner.partnerId],
    });
    const authorization = `Basic ${Buffer.from(`${partner.partnerId}:${partner.apiToken}`).toString('base64')}`;
    const collection = `${url}/api/v1/partnership/restaurants/${restaurant.id}/reservations/`;
    for (let index = 0; index < 50; index += 1) {
      const day = new Date(Date.now() + (3 + index) * 86_400_000).toISOString().slice(0, 10);
      const created = await fetch(collection, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ start_time: `${day}T19:00:00`, adults: 2 }),
      });
      if (created.status !== 201)
        throw new Error(`seeding the fake answered ${created.status}: ${await created.text()}`);
    }
    const listUrl = `${collection}?page_size=50`;
    const sample = await fetch(listUrl, { headers: { authorization } });
    if ((await sample.clone().json()).results.length !== 50) throw new Error('expected a list of 50');
    const made = await bareServerFor(root, startProcess, scratch, sample);
    bare = made.server;
    const bareUrl = `${bare.info.url}${new URL(listUrl).pathname}${new URL(listUrl).search}`;

    const result = await inTurns({
      root,
      name: 'fake_rps_ratio',
      notes,
      measured: listUrl,
      baseline: bareUrl,
      measuredProcess: fake,
      baselineProcess: bare,
      authorization,
      rounds,
      durationMs,
      concurrency: 32,
    });
    notes.push(
      `fake_rps_ratio: median of ${rounds} rounds in turns ${result.ratios.map((ratio) => ratio.toFixed(2)).join(', ')}; fake ${Math.round(result.measuredRps)} req/s, bare node:http ${Math.round(result.baselineRps)} req/s (medians; same ${made.bytes}-byte answer)`,
    );
    return result.ratio;
  } finally {
    await bare?.stop();
    await fake.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}
