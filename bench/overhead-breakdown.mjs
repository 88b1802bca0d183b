/**
 * `node bench/overhead-breakdown.mjs` (after `npm run build`): where `overhead_ratio_single` goes.
 * It splits the client's time per call into what ky costs on its own and what the client's own
 * layers cost, side by side in one process, in two ways:
 *
 * - on loopback (`startCannedServer` of bench/support/servers.mjs, in its own process), wall time AND this
 *   process's CPU time per call, for raw `fetch` + `JSON.parse`, ky alone with the options the
 *   client gives it, and `client.reservations.retrieve`;
 * - with a stub `fetch` (no network; it builds a `Request` from what it is given, as undici's
 *   `fetch` does, and answers a fixed body), CPU time per call of the same three.
 *
 * Rounds alternate the order (ABC, CBA) so load from other processes hits all alike; figures are
 * medians of rounds. Not part of `npm run bench` (its figures are diagnostics, not claims).
 * Options (environment): ROUNDS (default 40), PER_ROUND (default 40).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startCannedServer, startProcess } from './support/servers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { PartnerClient, silentLogger } = await import(pathToFileURL(join(root, 'dist/index.js')).href);
const { default: ky } = await import('ky');

const PARTNER_ID = '5b0c2f8e-3a41-4c6e-9f1d-7e2a8b4c6d10';
const API_TOKEN = 'bench-token-not-a-secret';
const authorization = `Basic ${Buffer.from(`${PARTNER_ID}:${API_TOKEN}`).toString('base64')}`;
const rounds = Number(process.env.ROUNDS ?? 40);
const perRound = Number(process.env.PER_ROUND ?? 40);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** ky as `src/transport/http.ts` calls it for a GET, body read as the client reads a sized body. */
const viaKy = (url, fetchFunction) => async () => {
  const response = await ky(url, {
    method: 'GET',
    headers: { accept: 'application/json', authorization },
    retry: 0,
    timeout: 30_000,
    throwHttpErrors: false,
    redirect: 'manual',
    ...(fetchFunction ? { fetch: fetchFunction } : {}),
  });
  return JSON.parse(await response.text());
};

/** Medians of wall and CPU microseconds per call of each variant, in alternating rounds. */
async function measure(variants) {
  const names = Object.keys(variants);
  const wall = Object.fromEntries(names.map((name) => [name, []]));
  const cpu = Object.fromEntries(names.map((name) => [name, []]));
  const batch = async (name, calls, keep) => {
    const cpuStart = process.cpuUsage();
    const started = performance.now();
    for (let call = 0; call < calls; call += 1) await variants[name]();
    const elapsed = performance.now() - started;
    const used = process.cpuUsage(cpuStart);
    if (keep) {
      wall[name].push((elapsed * 1000) / calls);
      cpu[name].push((used.user + used.system) / calls);
    }
  };
  for (const name of names) await batch(name, perRound * 5, false);
  for (let round = 0; round < rounds; round += 1) {
    for (const name of round % 2 ? [...names].reverse() : names) await batch(name, perRound, true);
  }
  return names.map((name) => ({ name, wallUs: median(wall[name]), cpuUs: median(cpu[name]) }));
}

function print(title, rows) {
  const raw = rows[0];
  console.log(`\n${title}`);
  for (const row of rows) {
    console.log(
      `  ${row.name.padEnd(8)} wall ${row.wallUs.toFixed(0).padStart(5)} µs (${(row.wallUs / raw.wallUs).toFixed(2)} × raw)` +
        `  cpu ${row.cpuUs.toFixed(0).padStart(5)} µs (${(row.cpuUs / raw.cpuUs).toFixed(2)} × raw)`,
    );
  }
}

// Loopback, server in its own process.
const server = await startCannedServer({
  root,
  startProcess,
  partner: { partnerId: PARTNER_ID, apiToken: API_TOKEN },
  listSize: 10,
});
try {
  const url = `${server.url}/api/v1/partnership/restaurants/${server.restaurantId}/reservations/${server.reservationId}/`;
  const client = new PartnerClient({
    baseUrl: server.url,
    partnerId: PARTNER_ID,
    apiToken: API_TOKEN,
    rateLimit: false,
    logger: silentLogger,
  });
  print(
    'loopback (canned answers of the fake, in their own process)',
    await measure({
      raw: async () =>
        JSON.parse(
          await (await fetch(url, { headers: { authorization, accept: 'application/json' } })).text(),
        ),
      ky: viaKy(url),
      client: () => client.reservations.retrieve(server.restaurantId, server.reservationId),
    }),
  );
} finally {
  await server.stop();
}

// No network: what each layer costs in this process alone.
const body = JSON.stringify({
  id: 1,
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.com',
  phone: '+32 2 555 01 23',
  start_time: '2026-06-02T19:30:00+02:00',
  duration: 'PT2H',
  adults: 3,
  children: 1,
  status: 'confirmed',
});
const stubFetch = (input, init) => {
  const request = new Request(input, init);
  void request.signal;
  return Promise.resolve(
    new Response(body, {
      status: 200,
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    }),
  );
};
const stubBase = 'http://127.0.0.1:9';
const stubClient = new PartnerClient({
  baseUrl: stubBase,
  partnerId: PARTNER_ID,
  apiToken: API_TOKEN,
  rateLimit: false,
  logger: silentLogger,
  fetch: stubFetch,
});
const stubUrl = `${stubBase}/api/v1/partnership/restaurants/1/reservations/1/`;
print(
  'stub fetch (no network)',
  await measure({
    raw: async () =>
      JSON.parse(
        await (await stubFetch(stubUrl, { headers: { authorization, accept: 'application/json' } })).text(),
      ),
    ky: viaKy(stubUrl, stubFetch),
    client: () => stubClient.reservations.retrieve(1, 1),
  }),
);
