/**
 * The servers the bench measures against, both made from the fake, each in its own process (a
 * server never shares an event loop with the code being measured):
 *
 * - `startStrictFake`: the standalone fake with its rate limit, the STRICT server of the throttle
 *   and shared-budget figures: a sliding window of `1 / rps` seconds per request, a request past it
 *   answered 429 with `Retry-After` and not counted. Accepted and refused counts, and the times of
 *   the accepted requests on the server's clock, come from its request journal.
 * - `startCannedServer`: `bare-server.mjs` answering bytes the fake answered once at start (a
 *   reservation, and a list of reservations as one page), so raw `fetch` and the client pay the
 *   same, minimal server cost and the overhead ratio is the client's alone.
 *
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const API = '/api/v1/partnership';

/**
 * Runs a node script to its end (a load generator) and resolves with the JSON of the last line it
 * printed; a non-zero exit rejects with its stderr, named by `what`.
 */
export function runToLastJsonLine(script, args, what) {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(stdout.trim().split('\n').at(-1)))
        : reject(new Error(`${what} failed: ${stderr}`)),
    ),
  );
}

/**
 * The CPU time (user and kernel, every thread) a process has used, in microseconds, from
 * `/proc/<pid>/stat` (clock ticks of 10 ms); undefined where there is no `/proc`.
 */
function processCpuMicros(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are the 14th and 15th fields; the split above starts at the 3rd.
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return undefined;
  }
}

/**
 * Starts a node script as a child process and resolves with the JSON it prints on its first
 * stdout line, `cpuMicros()` (its CPU time so far, where `/proc` tells) and `stop()`.
 */
export function startProcess(script, args) {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  // Keep only the tail of stderr (for the error message if the process dies): the fake logs every request there.
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error(`${script} did not start in 15 s: ${stderr}`)), 15_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      const info = JSON.parse(line);
      resolve({
        info,
        cpuMicros: () => processCpuMicros(child.pid),
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}): ${stderr}`)));
  });
}

/** POSTs a control call to the fake and answers its JSON; any other status than 2xx throws. */
async function control(url, path, body) {
  const response = await fetch(`${url}/_fake/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body ?? {}),
  });
  if (!response.ok) throw new Error(`control ${path} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

const basic = (partner) =>
  `Basic ${Buffer.from(`${partner.partnerId}:${partner.apiToken}`).toString('base64')}`;

/** Books `count` reservations for `partner` through the partner API (the fake's limit off), all on one evening. */
async function book(url, partner, restaurantId, count) {
  const day = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  const ids = [];
  for (let index = 0; index < count; index += 1) {
    const response = await fetch(`${url}${API}/restaurants/${restaurantId}/reservations/`, {
      method: 'POST',
      headers: { authorization: basic(partner), 'content-type': 'application/json' },
      body: JSON.stringify({
        start_time: `${day}T19:30:00`,
        adults: 2 + (index % 4),
        children: index % 3,
        first_name: 'Ada',
        last_name: 'Lovelace',
        email: 'ada@example.com',
        comment: 'Window table if possible',
        metadata: { crm_id: `crm-${index}` },
      }),
    });
    if (response.status !== 201)
      throw new Error(`seeding the fake answered ${response.status}: ${await response.text()}`);
    ids.push((await response.json()).id);
  }
  return ids;
}

/** Starts the fake with no limit, adds `partner` (its own id and token) and a restaurant it may book at. */
async function startSeededFake({ root, startProcess, partner }) {
  const fake = await startProcess(join(root, 'dist/bin/restaurant-partner-fake.js'), [
    '--port',
    '0',
    '--rate-limit',
    'off',
    '--seed',
    'none',
    '--quiet',
  ]);
  try {
    await control(fake.info.url, 'partners', { ...partner, name: 'Bench partner' });
    const restaurant = await control(fake.info.url, 'restaurants', {
      display_name: 'Bench Bistro',
      partnerIds: [partner.partnerId],
      availability: { capacityCovers: 100_000 },
    });
    return { fake, restaurantId: restaurant.id };
  } catch (error) {
    await fake.stop();
    throw error;
  }
}

/**
 * The fake limiting `partner` to `requestsPerSecond`, with one reservation booked before the limit
 * starts. Resolves with `{url, restaurantId, reservationId, stats(), stop()}`; `stats()` answers
 * `{accepted, refused, acceptedAt}` of the partner API requests since the limit started (times in
 * ms, server clock), however many there were.
 */
export async function startStrictFake({ root, startProcess, partner, requestsPerSecond }) {
  const { fake, restaurantId } = await startSeededFake({ root, startProcess, partner });
  const url = fake.info.url;
  try {
    const [reservationId] = await book(url, partner, restaurantId, 1);
    // A new limit starts with an empty window: the booking above is not counted.
    await control(url, 'rate-limit', { requestsPerSecond });
    const journal = journalCollector(url);
    await journal.read();
    journal.entries.clear();
    // The journal keeps its latest 500 entries (25 s at 20 req/s): gathered every 2 s meanwhile.
    const reading = setInterval(() => void journal.read().catch(() => undefined), 2000);
    return {
      url,
      restaurantId,
      reservationId,
      async stats() {
        await journal.read();
        const entries = [...journal.entries.values()].filter((entry) => entry.face === 'partner');
        const accepted = entries.filter((entry) => entry.status !== 429);
        return {
          accepted: accepted.length,
          refused: entries.length - accepted.length,
          acceptedAt: accepted.map((entry) => Date.parse(entry.at)),
        };
      },
      stop: () => {
        clearInterval(reading);
        return fake.stop();
      },
    };
  } catch (error) {
    await fake.stop();
    throw error;
  }
}

/**
 * Gathers the fake's request journal (`GET /_fake/requests`, its latest 500 entries) by sequence
 * number across reads: `read()` often enough and `entries` holds them all; a gap between two
 * reads throws rather than undercount.
 */
export function journalCollector(url) {
  const entries = new Map();
  let lastSequence = 0;
  const read = async () => {
    const journal = await (await fetch(`${url}/_fake/requests`)).json();
    if (lastSequence > 0 && journal.length > 0 && journal[0].sequence > lastSequence + 1)
      throw new Error(
        `the journal dropped entries ${lastSequence + 1}-${journal[0].sequence - 1} between reads`,
      );
    for (const entry of journal) if (entry.sequence > lastSequence) entries.set(entry.sequence, entry);
    lastSequence = journal.at(-1)?.sequence ?? lastSequence;
  };
  return { read, entries };
}

/**
 * A bare server answering what the fake answered to a retrieve and to a list of `listSize`
 * reservations (gathered from the fake's pages into one page, `next: null`). Resolves with
 * `{url, restaurantId, reservationId, stop()}`; the paths are the fake's.
 */
export async function startCannedServer({ root, startProcess, partner, listSize }) {
  const { fake, restaurantId } = await startSeededFake({ root, startProcess, partner });
  const scratch = mkdtempSync(join(tmpdir(), 'bench-canned-'));
  try {
    const ids = await book(fake.info.url, partner, restaurantId, listSize);
    const collection = `${API}/restaurants/${restaurantId}/reservations/`;
    const get = async (path) => {
      const response = await fetch(`${fake.info.url}${path}`, { headers: { authorization: basic(partner) } });
      if (response.status !== 200) throw new Error(`the fake answered ${response.status} to GET ${path}`);
      const headers = Object.fromEntries(
        [...response.headers].filter(
          ([name]) => !/^(content-length|date|connection|keep-alive|transfer-encoding|etag)$/i.test(name),
        ),
      );
      return { headers, json: await response.json() };
    };
    const detail = await get(`${collection}${ids[0]}/`);
    const results = [];
    for (let next = `${collection}?page_size=100`; next;) {
      const page = await get(next);
      results.push(...page.json.results);
      next =
        page.json.next &&
        new URL(page.json.next, fake.info.url).pathname + new URL(page.json.next, fake.info.url).search;
    }
    if (results.length !== listSize)
      throw new Error(`expected ${listSize} reservations from the fake, got ${results.length}`);
    const answer = (headers, value) => ({
      status: 200,
      headers,
      body: Buffer.from(JSON.stringify(value)).toString('base64'),
    });
    const answers = {
      [`${collection}${ids[0]}/`]: answer(detail.headers, detail.json),
      [collection]: answer(detail.headers, { count: listSize, next: null, previous: null, results }),
    };
    const answerFile = join(scratch, 'answers.json');
    writeFileSync(answerFile, JSON.stringify(answers));
    const canned = await startProcess(join(root, 'bench/support/bare-server.mjs'), ['--answer', answerFile]);
    return { url: canned.info.url, restaurantId, reservationId: ids[0], stop: () => canned.stop() };
  } finally {
    await fake.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}
