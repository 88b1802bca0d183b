// A partner's suite on msw 2: the fake's handlers in setupServer, the app's own client.
import { setupServer } from 'msw/node';
import { PartnerClient, type Reservation } from 'restaurant-partner-sdk';
import { createFakeService } from 'restaurant-partner-sdk/testing';

const fake = createFakeService({
  seed: 'demo',
  rateLimit: false,
  clock: { startAt: '2030-01-07T08:00:00Z' },
});
// eslint-disable-next-line @typescript-eslint/no-unsafe-argument -- MswHandler is msw's own type, `any` on purpose
const server = setupServer(...fake.handlers);
server.listen({ onUnhandledRequest: 'error' });
const { partnerId, apiToken } = fake.describeSeed().partners[0]!;
const client = new PartnerClient({
  baseUrl: 'https://partner-api.example.com',
  partnerId,
  apiToken,
  rateLimit: false,
});
const [restaurant] = await client.restaurants.list().toArray();
const reservation: Reservation = await client.reservations.create(restaurant!.id, {
  start_time: { date: '2030-01-08', time: '19:30' },
  adults: 2,
});
server.close();
fake.dispose();
console.log(`msw 2 project works: booked #${reservation.id} through setupServer(...fake.handlers)`);
