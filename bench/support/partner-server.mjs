/**
 * A loopback stand-in for the partner API, run as its own process so that its work never shares
 * an event loop with the code being measured. Answers are serialised once at start, so the raw
 * fetch baseline and the client pay exactly the same server cost.
 *
 * Usage: node partner-server.mjs [--rate-limit RPS] [--list-size N]
 * Prints one JSON line `{"url": ...}` when listening. `GET /_stats` answers the limiter's counts,
 * `POST /_reset` clears them.
 *
 * With --rate-limit it is STRICT: a sliding window of one second holding at most RPS accepted
 * requests; a request that would exceed it gets 429 with `Retry-After: 1` and does not count.
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { 'rate-limit': { type: 'string', default: '0' }, 'list-size': { type: 'string', default: '1000' } } });
const requestsPerSecond = Number(values['rate-limit']);
const listSize = Number(values['list-size']);
const WINDOW_MS = 1000;

const reservation = (id) => ({
  id,
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.com',
  phone: '+32 2 555 01 23',
  start_time: `2026-06-${String(1 + (id % 28)).padStart(2, '0')}T19:30:00+02:00`,
  duration: 'PT2H',
  adults: 2 + (id % 4),
  children: id % 3,
  comment: 'Window table if possible',
  cancelled: false,
  cancelled_at: null,
  confirmed: true,
  confirmed_at: '2026-05-20T10:00:00+02:00',
  confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS',
  arrived: false,
  arrived_at: null,
  no_show: false,
  no_show_at: null,
  language: 'en',
  metadata: { 'restaurant_partner_sdk.idempotency_key': `key-${id}`, crm_id: `crm-${id}` },
});
const bodies = {
  detail: JSON.stringify(reservation(1)),
  list: JSON.stringify({ count: listSize, next: null, previous: null, results: Array.from({ length: listSize }, (_, index) => reservation(index + 1)) }),
  restaurants: JSON.stringify([{ id: 1, display_name: 'Bench Bistro', schema_name: 'bench_bistro', timezone: 'Europe/Brussels' }]),
};

const accepted = [];
const stats = { accepted: 0, refused: 0, acceptedAt: [] };
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

function admit() {
  if (!(requestsPerSecond > 0)) return true;
  const now = nowMs();
  while (accepted.length > 0 && accepted[0] <= now - WINDOW_MS) accepted.shift();
  if (accepted.length >= requestsPerSecond) return false;
  accepted.push(now);
  return true;
}

function send(response, status, body, headers = {}) {
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  response.end(body);
}

const server = createServer((request, response) => {
  const path = (request.url ?? '/').split('?')[0];
  if (path === '/_stats') return send(response, 200, JSON.stringify(stats));
  if (path === '/_reset') {
    stats.accepted = 0;
    stats.refused = 0;
    stats.acceptedAt = [];
    accepted.length = 0;
    return send(response, 200, '{}');
  }
  request.resume();
  if (!admit()) {
    stats.refused += 1;
    return send(response, 429, '{"detail":"Request was throttled."}', { 'retry-after': '1' });
  }
  stats.accepted += 1;
  if (requestsPerSecond > 0) stats.acceptedAt.push(nowMs());
  if (path === '/api/v1/partnership/restaurants/') return send(response, 200, bodies.restaurants);
  if (/^\/api\/v1\/partnership\/restaurants\/1\/reservations\/$/.test(path)) return send(response, 200, bodies.list);
  if (/^\/api\/v1\/partnership\/restaurants\/1\/reservations\/\d+\/$/.test(path)) return send(response, 200, bodies.detail);
  return send(response, 404, '{"detail":"Not found."}');
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
