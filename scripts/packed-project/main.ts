// A partner's program, type-checked and run against the packed tarball, as users install it.
import * as z from 'zod/mini';
import {
  PartnerClient,
  InputValidationError,
  NoAvailabilityError,
  readStartTime,
  Reservation,
} from 'restaurant-partner-sdk';
import { createFakeService } from 'restaurant-partner-sdk/testing';
import { startFakeServer } from 'restaurant-partner-sdk/testing/node';
import {
  buildDeliveryRequest,
  createWebhookReceiver,
  type WebhookEvent,
} from 'restaurant-partner-sdk/webhooks';
import {
  createMemorySyncStore,
  createReservationSync,
  type ReservationChange,
} from 'restaurant-partner-sdk/sync';
import {
  createRedisDuplicateStore,
  createRedisRateLimiter,
  type RedisClient,
  type RedisRateLimiter,
} from 'restaurant-partner-sdk/redis';

const fake = createFakeService({ seed: 'demo', clock: { frozen: true, startAt: '2030-01-07T08:00:00Z' } });
const client = new PartnerClient(fake.clientOptions(fake.describeSeed().partners[0]!));

const [restaurant] = await client.restaurants.list().toArray();
const reservation: z.infer<typeof Reservation> = await client.reservations.create(restaurant!.id, {
  start_time: { date: '2030-01-08', time: '19:30' },
  adults: 2,
});
const local: string = readStartTime(reservation, restaurant!.timezone).toFormat('HH:mm');
if (local !== '19:30' || !(NoAvailabilityError.prototype instanceof Error))
  throw new Error(`unexpected booking ${local}`);

const seen: WebhookEvent[] = [];
const receiver = createWebhookReceiver({ tokens: ['t0ken'] }).on('RESERVATION_CONFIRMED', (event) => {
  seen.push(event);
});
const answer = await receiver.handle(
  buildDeliveryRequest(
    'http://localhost/hooks',
    { event: 'RESERVATION_CONFIRMED', reservation, restaurantId: restaurant!.id },
    't0ken',
  ),
);
if (answer.status !== 200 || seen.length !== 1) throw new Error(`receiver answered ${answer.status}`);

// The /sync entry: the booking above, read back as one `created` change.
const changes: ReservationChange[] = [];
const sync = createReservationSync({
  client,
  onChange: (change) => void changes.push(change),
  store: createMemorySyncStore(),
  restaurantIds: [restaurant!.id],
  clock: fake.clock,
});
await sync.settled();
await sync.stop();
if (changes.length !== 1 || changes[0]!.kind !== 'created' || changes[0]!.reservation.id !== reservation.id)
  throw new Error(`sync announced ${JSON.stringify(changes)}`);

// The package carries the part of zod it uses in its own files; the partner's own zod composes with
// its schemas, and a partner's `z.config` locale reaches the SDK's messages.
const bookings = z.array(Reservation).safeParse([reservation, { ...reservation, adults: 'two' }]);
if (bookings.success || bookings.error.issues[0]?.path.join('.') !== '1.adults')
  throw new Error(`zod/mini over the SDK's schema: ${JSON.stringify(bookings)}`);
z.config(z.locales.fr());
const french = await client.reservations
  .create(restaurant!.id, { start_time: { date: '2030-01-08', time: '19:30' }, adults: 0 })
  .catch((error: unknown) => error);
z.config(z.locales.en());
if (!(french instanceof InputValidationError) || !/trop petit/i.test(french.message))
  throw new Error(`a partner's zod locale did not reach the SDK: ${String(french)}`);
fake.dispose();

// The /redis entry resolves and its types check; it needs no Redis package until given a client.
const useSharedBudget = (redis: RedisClient): RedisRateLimiter =>
  createRedisRateLimiter({ redis, partnerId: 'partner' });
if (typeof useSharedBudget !== 'function' || typeof createRedisDuplicateStore !== 'function')
  throw new Error('redis entry is missing');

// The standalone fake from its own entry, over real HTTP.
const server = await startFakeServer({ seed: 'demo', rateLimit: false });
const overHttp = new PartnerClient({
  baseUrl: server.url,
  ...server.fake.describeSeed().partners[0]!,
  rateLimit: false,
});
const served = (await overHttp.restaurants.list().toArray()).length;
// The simulator page's assets ship in the tarball and the standalone server finds them where npm installs them.
for (const path of ['/_fake/ui', '/_fake/ui/simulator.js', '/_fake/ui/simulator.css']) {
  const page = await fetch(`${server.url}${path}`);
  if (page.status !== 200 || (await page.text()).length < 1000)
    throw new Error(`GET ${path} answered ${page.status}`);
}
await server.close();
if (served !== 3) throw new Error(`the standalone fake served ${served} restaurants and the simulator page`);
console.log(
  `packed package works: booked #${reservation.id} at ${local} local time, webhook handled, sync announced it, standalone fake served ${served} restaurants and the simulator page`,
);
