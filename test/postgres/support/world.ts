/**
 * A fake holding some of the partner's bookings at one restaurant, and clients on it with the
 * ledger a test gives (the restaurant's timezone known, so a create spends no request on it).
 */
import {
  PartnerClient,
  createMemoryBookingLedger,
  silentLogger,
  type BookingLedger,
} from 'restaurant-partner-sdk';
import { createFakeService } from 'restaurant-partner-sdk/testing';

/** A fake holding `bookings` of the partner's reservations at one restaurant, and a client factory. */
export async function bookedWorld(bookings: number) {
  const fake = createFakeService({ rateLimit: false, journalLimit: 50_000 });
  const partner = fake.addPartner({ name: 'Ledger partner' });
  const restaurant = fake.addRestaurant({
    display_name: 'Ledger Bistro',
    partnerIds: [partner.partnerId],
    availability: { capacityCovers: 100_000 },
  });
  const client = (bookingLedger?: BookingLedger) =>
    new PartnerClient({
      ...fake.clientOptions(partner),
      logger: silentLogger,
      restaurantTimezones: { [restaurant.id]: restaurant.timezone },
      ...(bookingLedger ? { bookingLedger } : {}),
    });
  const day = (offset: number) => new Date(fake.clock.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const input = (index: number) => ({
    start_time: {
      date: day(3 + Math.floor(index / 16)),
      time: `${18 + Math.floor((index % 8) / 4)}:${String((index % 4) * 15).padStart(2, '0')}`,
    },
    adults: 2,
  });
  const seeding = client(createMemoryBookingLedger());
  for (let index = 0; index < bookings; index += 1)
    await seeding.reservations.create(restaurant.id, input(index));
  const requestsOf = async <T>(run: () => Promise<T>) => {
    const before = fake.requests.length;
    const value = await run();
    return { value, requests: fake.requests.slice(before) };
  };
  return { fake, restaurant, client, input, requestsOf };
}
