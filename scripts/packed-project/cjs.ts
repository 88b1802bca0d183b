// A CommonJS TypeScript project (`module: nodenext`): tsc compiles these imports to `require`,
// which loads the ESM package on Node.js 22.12+.
import { PartnerClient, type Reservation } from 'restaurant-partner-sdk';
import { createFakeService } from 'restaurant-partner-sdk/testing';
import { createWebhookReceiver } from 'restaurant-partner-sdk/webhooks';

async function main(): Promise<void> {
  const fake = createFakeService({ seed: 'demo', clock: { frozen: true, startAt: '2030-01-07T08:00:00Z' } });
  const client = new PartnerClient(fake.clientOptions(fake.describeSeed().partners[0]!));
  const [restaurant] = await client.restaurants.list().toArray();
  const reservation: Reservation = await client.reservations.create(restaurant!.id, {
    start_time: '2030-01-08T19:30:00',
    adults: 2,
  });
  const receiver = createWebhookReceiver({ tokens: ['t0ken'] });
  fake.dispose();
  if (typeof require !== 'function' || typeof module === 'undefined')
    throw new Error('not running as CommonJS');
  console.log(`CommonJS project works: booked #${reservation.id}; receiver ${typeof receiver.handle}`);
}
void main();
