/**
 * A separate load process for the receiver comparison: autocannon with CONNECTIONS keep-alive
 * connections POSTing webhook deliveries (each with its own delivery id, as the service sends
 * them) for DURATION ms, after a warm-up. Prints `{"rps", "p99", "requests", "non2xx", "errors"}`.
 *
 * Usage: node delivery-load.mjs --url URL --token TOKEN [--connections 50] [--duration 3000] [--warmup 1000]
 */
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { RESERVATION } from '../../test/support/reservation-wire.mjs';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    token: { type: 'string' },
    connections: { type: 'string', default: '50' },
    duration: { type: 'string', default: '3000' },
    warmup: { type: 'string', default: '1000' },
  },
});

// A reservation delivery as the service sends one (the tests' reservation, so its shape lives once);
// only the delivery id changes from one delivery to the next.
const tail = JSON.stringify({
  event: 'RESERVATION_CONFIRMED',
  created_at: '2026-11-23T10:00:00.000Z',
  restaurant_id: 1,
  reservation: RESERVATION,
}).slice(1);
const prefix = `evt_${process.pid}_`;
let next = 0;

function run(durationMs) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: values.url,
        connections: Number(values.connections),
        duration: durationMs / 1000,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${values.token}` },
        requests: [
          { setupRequest: (request) => ({ ...request, body: `{"id":"${prefix}${(next += 1)}",${tail}` }) },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

await run(Number(values.warmup));
const result = await run(Number(values.duration));
process.stdout.write(
  `${JSON.stringify({ rps: result.requests.total / (Number(values.duration) / 1000), p99: result.latency.p99, requests: result.requests.total, non2xx: result.non2xx, errors: result.errors })}\n`,
);
