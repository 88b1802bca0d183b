/**
 * Quick start: list restaurants, book a table in the restaurant's own timezone, see it confirmed
 * (synchronously, and asynchronously once the restaurant confirms), then cancel.
 *
 *   npm run example                       # against the embedded fake: no credentials, no setup
 *   PARTNER_BASE_URL=https://... PARTNER_ID=... PARTNER_TOKEN=... npm run example   # live service
 */
import { DateTime } from 'luxon';
import {
  PartnerClient,
  readStartTime,
  type ClientOptions,
  type Reservation,
  type Restaurant,
} from 'restaurant-partner-sdk';
import { createFakeService } from 'restaurant-partner-sdk/testing';

const liveSettings = ['PARTNER_BASE_URL', 'PARTNER_ID', 'PARTNER_TOKEN'] as const;
const missing = liveSettings.filter((name) => !process.env[name]);
// Some but not all set is a typo, not a wish to use the fake: say so instead of quietly falling back.
if (missing.length > 0 && missing.length < liveSettings.length) {
  console.error(
    `To talk to the live service set ${liveSettings.join(', ')}; missing: ${missing.join(', ')}. Unset them all to use the fake.`,
  );
  process.exit(1);
}
const live = missing.length === 0;
// Without credentials the fake plays the service (and, below, the restaurant).
const fake = live ? undefined : createFakeService({ seed: 'demo' });
const options: ClientOptions = live
  ? {
      baseUrl: process.env.PARTNER_BASE_URL!,
      partnerId: process.env.PARTNER_ID!,
      apiToken: process.env.PARTNER_TOKEN!,
    }
  : fake!.clientOptions(fake!.describeSeed().partners[0]!);
const client = new PartnerClient(options);

const show = (reservation: Reservation, timezone: string) =>
  `#${reservation.id} ${readStartTime(reservation, timezone).toFormat("ccc d LLL HH:mm 'UTC'ZZ")}, ` +
  `${reservation.adults} adults, ${reservation.confirmed ? 'confirmed' : 'awaiting the restaurant'}` +
  `${reservation.cancelled ? ', cancelled' : ''}`;

console.log(`Talking to ${live ? options.baseUrl : 'the embedded fake service'}\n`);

const restaurants = await client.restaurants.list().toArray();
console.log(`Restaurants (${restaurants.length}):`);
for (const restaurant of restaurants) {
  console.log(`  ${String(restaurant.id).padStart(3)}  ${restaurant.display_name}  (${restaurant.timezone})`);
}

async function bookAndCancel(restaurant: Restaurant) {
  const timezone = restaurant.timezone ?? 'UTC';
  // Tomorrow at 19:30 on the restaurant's wall clock, whatever the zone this script runs in.
  const date = DateTime.now().setZone(timezone).plus({ days: 1 }).toISODate()!;
  console.log(`\nBooking at ${restaurant.display_name}, ${date} 19:30 local time`);
  let reservation = await client.reservations.create(restaurant.id, {
    start_time: { date, time: '19:30' },
    adults: 2,
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
  });
  console.log(`  booked     ${show(reservation, timezone)} (${reservation.confirmation_mode})`);

  if (!reservation.confirmed) {
    // Asynchronous mode: the restaurant confirms later. Here the fake plays the restaurant.
    if (fake) await fake.asRestaurant.confirm(restaurant.id, reservation.id);
    reservation = await client.reservations.waitForConfirmation(restaurant.id, reservation.id, {
      timeoutMs: 10 * 60_000,
    });
    console.log(`  confirmed  ${show(reservation, timezone)}`);
  }

  const cancelled = await client.reservations.cancel(restaurant.id, reservation.id);
  console.log(`  cancelled  ${cancelled ? show(cancelled, timezone) : `#${reservation.id}`}`);
}

// The demo's first restaurant confirms at once (synchronous mode); the second confirms later.
for (const restaurant of restaurants.slice(0, 2)) await bookAndCancel(restaurant);

fake?.dispose();
console.log('\nDone.');
