/**
 * `fake_rps_ratio`: requests per second the standalone fake serves for a list of 50 reservations,
 * over what a bare `node:http` server sending the very same bytes serves, in the same run, under
 * the same load (one load process each, 32 keep-alive connections each, both at once). Absolute
 * req/s swing with the machine's load; the ratio holds.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs a load process against `url` and resolves with its result (`{rps, requests, errors, ...}`). */
function load(root, url, authorization, durationMs) {
  const child = spawn(process.execPath, [join(root, 'bench/support/load.mjs'), '--url', url, '--authorization', authorization, '--concurrency', '32', '--duration', String(durationMs), '--warmup', '500'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(stdout.trim().split('\n').at(-1))) : reject(new Error(`load process failed: ${stderr}`)))),
  );
}

/**
 * Measures the ratio. `startProcess(script, args)` starts a node script and resolves with
 * `{info, stop}` (its first stdout line as JSON); `notes` collects remarks for the table.
 */
export async function measureFakeRpsRatio({ root, startProcess, notes, rounds = 9, durationMs = 2000 }) {
  const fake = await startProcess(join(root, 'dist/bin/restaurant-partner-fake.js'), ['--port', '0', '--rate-limit', 'off', '--seed', 'none', '--quiet']);
  const scratch = mkdtempSync(join(tmpdir(), 'fake-ratio-'));
  let bare;
  try {
    const url = fake.info.url;
    const control = async (path, body) => (await fetch(`${url}/_fake/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
    const partner = await control('partners', { name: 'Ratio partner' });
    const restaurant = await control('restaurants', { display_name: 'Ratio Bistro', partnerIds: [partner.partnerId] });
    const authorization = `Basic ${Buffer.from(`${partner.partnerId}:${partner.apiToken}`).toString('base64')}`;
    const collection = `${url}/api/v1/partnership/restaurants/${restaurant.id}/reservations/`;
    for (let index = 0; index < 50; index += 1) {
      const day = new Date(Date.now() + (3 + index) * 86_400_000).toISOString().slice(0, 10);
      const created = await fetch(collection, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ start_time: `${day}T19:00:00`, adults: 2 }) });
      if (created.status !== 201) throw new Error(`seeding the fake answered ${created.status}: ${await created.text()}`);
    }
    const listUrl = `${collection}?page_size=50`;
    const sample = await fetch(listUrl, { headers: { authorization } });
    const bytes = Buffer.from(await sample.arrayBuffer());
    if (JSON.parse(bytes.toString()).results.length !== 50) throw new Error('expected a list of 50');
    const headers = Object.fromEntries([...sample.headers].filter(([name]) => !/^(content-length|date|connection|keep-alive|transfer-encoding)$/i.test(name)));
    const answerFile = join(scratch, 'answer.json');
    writeFileSync(answerFile, JSON.stringify({ status: sample.status, headers, body: bytes.toString('base64') }));
    bare = await startProcess(join(root, 'bench/support/bare-server.mjs'), ['--answer', answerFile]);
    const bareUrl = `${bare.info.url}${new URL(listUrl).pathname}${new URL(listUrl).search}`;

    const fakeRates = [];
    const bareRates = [];
    const ratios = [];
    for (let round = 0; round < rounds; round += 1) {
      // Both servers under load at the same time, each from its own load process: whatever else
      // the machine is doing hits both alike, and the server needing less CPU per answer serves
      // more. The median of the rounds' ratios shrugs off a disturbed round.
      const [fakeResult, bareResult] = await Promise.all([load(root, listUrl, authorization, durationMs), load(root, bareUrl, authorization, durationMs)]);
      for (const [side, result] of [['fake', fakeResult], ['bare', bareResult]]) {
        if (result.errors > 0) notes.push(`fake_rps_ratio, ${side}: ${result.errors} non-200 answers of ${result.requests}`);
      }
      fakeRates.push(fakeResult.rps);
      bareRates.push(bareResult.rps);
      ratios.push(fakeResult.rps / bareResult.rps);
    }
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    notes.push(
      `fake_rps_ratio: median of ${rounds} simultaneous rounds ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}; fake ${Math.round(median(fakeRates))} req/s, bare node:http ${Math.round(median(bareRates))} req/s (medians; same ${bytes.byteLength}-byte answer)`,
    );
    return median(ratios);
  } finally {
    await bare?.stop();
    await fake.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}
