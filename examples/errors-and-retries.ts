/**
 * Errors and retries: what a partner sees when the service says no, and what the client does for
 * it. The fake injects the faults; the same code handles the live service.
 *
 *   npx tsx examples/errors-and-retries.ts
 */
import { DateTime } from 'luxon';
import {
  AmbiguousCreateError,
  InputValidationError,
  NoAvailabilityError,
  NotFoundError,
  PartnerClient,
} from 'restaurant-partner-sdk';
import { createFakeService } from 'restaurant-partner-sdk/testing';

const fake = createFakeService({ seed: 'demo' });
// One set of options (and so one rate limiter) for every client of this partner.
const options = fake.clientOptions(fake.describeSeed().partners[0]!);
const client = new PartnerClient({
  ...options,
  hooks: {
    onRateLimited: (event) =>
      console.log(`  hook onRateLimited: ${event.method} ${event.url} -> waiting ${event.delayMs} ms`),
    onRetry: (event) =>
      console.log(
        `  hook onRetry: attempt ${event.attempt} failed with ${event.error ?? event.status}, retrying in ${event.delayMs} ms`,
      ),
  },
});
const [restaurant] = await client.restaurants.list().toArray();
const tomorrow = DateTime.now().setZone(restaurant!.timezone!).plus({ days: 1 }).toISODate()!;

console.log('1. Invalid input is refused before any request is spent:');
try {
  await client.reservations.create(restaurant!.id, {
    start_time: { date: tomorrow, time: '19:30' },
    adults: 0,
  });
} catch (error) {
  if (!(error instanceof InputValidationError)) throw error;
  console.log(`  ${error.name}: ${error.message}`);
  console.log(
    `  (for code: error.field is "${error.field}", error.issues[0].code is "${error.issues[0]!.code}")`,
  );
}

console.log('2. A 429 is waited out (Retry-After honoured, the whole bucket pauses) and retried:');
fake.injectFault({ operation: 'reservations.list', status: 429, headers: { 'Retry-After': '2' } });
const reservations = await client.reservations.list(restaurant!.id).toArray();
console.log(`  listed ${reservations.length} reservations after the retry`);

console.log('3. No table at that time is a typed error (409 no_availability), never retried:');
try {
  await client.reservations.create(restaurant!.id, {
    start_time: { date: tomorrow, time: '03:00' },
    adults: 2,
  });
} catch (error) {
  if (!(error instanceof NoAvailabilityError)) throw error;
  console.log(`  ${error.name} (HTTP ${error.status}, code ${error.code}): ${error.detail}`);
}

console.log(
  '4. A 500 after the booking was committed is not blindly re-sent: the client finds it by its key:',
);
fake.injectFault({ operation: 'reservations.create', status: 500, phase: 'after' });
const booked = await client.reservations.create(restaurant!.id, {
  start_time: { date: tomorrow, time: '19:30' },
  adults: 2,
});
const copies = (await client.reservations.list(restaurant!.id).toArray()).filter(
  (r) => r.start_time === booked.start_time,
);
console.log(`  booked #${booked.id}; reservations at that time: ${copies.length} (never a duplicate)`);

console.log('5. When the outcome of a create cannot be known, AmbiguousCreateError carries its key:');
// The service commits the booking but answers 500, and the look-up by key fails as well (this
// client looks the key up once, rather than over the default 10 s settle window).
const impatient = new PartnerClient({
  ...options,
  maxRetries: 0,
  createLookupWindowMs: 0,
  logger: { warn() {}, error() {} },
});
fake.injectFault({ operation: 'reservations.create', status: 500, phase: 'after' });
fake.injectFault({ operation: 'reservations.list', status: 503, times: 1 });
const dinner = { start_time: { date: tomorrow, time: '20:00' }, adults: 2 };
try {
  await impatient.reservations.create(restaurant!.id, dinner);
  throw new Error('expected an AmbiguousCreateError');
} catch (error) {
  if (!(error instanceof AmbiguousCreateError)) throw error;
  console.log(`  ${error.name}: key ${error.idempotencyKey}, retryable: ${error.retryable}`);
  // Later (your queue's retry), repeat the same create with the same key: it returns the booking
  // when it was made, and never books twice. Never book again under a new key.
  const again = await client.reservations.create(error.restaurantId, dinner, {
    idempotencyKey: error.idempotencyKey,
  });
  const atThatTime = (await client.reservations.list(restaurant!.id).toArray()).filter(
    (r) => r.start_time === again.start_time,
  );
  console.log(`  repeated: reservation #${again.id}; reservations at that time: ${atThatTime.length}`);
}

console.log("6. Someone else's reservation, or one that does not exist, is a NotFoundError:");
try {
  await client.reservations.cancel(restaurant!.id, 999_999);
} catch (error) {
  if (!(error instanceof NotFoundError)) throw error;
  console.log(`  ${error.name} (HTTP ${error.status}) for ${error.method} ${error.url}`);
}
fake.dispose();
