/**
 * A runtime without `diagnostics_channel` for the SDK (Cloudflare Workers without
 * `nodejs_compat`): `process.getBuiltinModule` is gone before the SDK loads. Books once on the
 * in-process fake and prints whether it booked and how many messages a subscriber received.
 */
import diagnostics from 'node:diagnostics_channel';

(process as { getBuiltinModule?: unknown }).getBuiltinModule = undefined;
let published = 0;
const count = () => void (published += 1);
const events = ['start', 'end', 'asyncStart', 'asyncEnd', 'error'] as const;
const handlers = Object.fromEntries(events.map((event) => [event, count]));
for (const name of ['call', 'attempt', 'rate-limit.wait'])
  diagnostics.tracingChannel(`restaurant-partner-sdk:${name}`).subscribe(handlers as never);
diagnostics.subscribe('restaurant-partner-sdk:create.outcome', count);

const { PartnerClient, silentLogger } = await import('../../../src/index.js');
const { createFakeService } = await import('../../../src/testing/index.js');
const fake = createFakeService({ clock: { frozen: true } });
const partner = fake.addPartner();
const restaurant = fake.addRestaurant({ partnerIds: [partner.partnerId], timezone: 'Europe/Brussels' });
const client = new PartnerClient({ ...fake.clientOptions(partner), logger: silentLogger });
const booking = await client.reservations.create(restaurant.id, {
  start_time: { date: '2026-12-06', time: '20:00' },
  adults: 2,
});
fake.dispose();
process.stdout.write(JSON.stringify({ booked: booking.id > 0, published }));
