/**
 * The standalone fake (seed demo, no rate limit) holding `--bookings N` reservations made through
 * the in-process API, for the figures that need a large world. Prints `{"url"}` once listening.
 *
 * Usage: node fake-with-bookings.mjs --bookings 10000
 */
import { parseArgs } from 'node:util';
import { startFakeServer } from '../../dist/testing/node.js';

const { values } = parseArgs({ options: { bookings: { type: 'string', default: '10000' } } });
const server = await startFakeServer({ seed: 'demo', rateLimit: false });
const total = Number(values.bookings);
const times = [
  '12:00',
  '12:15',
  '12:30',
  '12:45',
  '13:00',
  '13:15',
  '13:30',
  '18:00',
  '18:15',
  '18:30',
  '18:45',
  '19:00',
  '19:15',
  '19:30',
  '19:45',
  '20:00',
  '20:15',
  '20:30',
  '20:45',
  '21:00',
];
const firstDay = Date.now() + 2 * 86_400_000;
let made = 0;
// One cover each, over the demo restaurants' days and slots, until a slot is full (409) or enough are made.
for (let day = 0; made < total && day < 85; day += 1) {
  const date = new Date(firstDay + day * 86_400_000).toISOString().slice(0, 10);
  for (const [restaurantId, time] of [1, 2, 3].flatMap((id) => times.map((slot) => [id, slot]))) {
    for (let seat = 0; seat < 40 && made < total; seat += 1) {
      try {
        server.fake.addOtherChannelBooking(restaurantId, { start_time: `${date}T${time}:00`, adults: 1 });
        made += 1;
      } catch {
        break;
      }
    }
  }
}
process.stdout.write(`${JSON.stringify({ url: server.url, bookings: made })}\n`);
// Ends the process once the server has closed; nothing awaits the handler.
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
