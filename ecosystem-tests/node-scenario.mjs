// The Node.js-only entry `/testing/node`, on each Node.js project: startFakeServer on a free
// loopback port, a booking through PartnerClient over real HTTP, and a clean close.
// Answers one result, { check, ok, detail }; it never throws.
import { PartnerClient } from 'restaurant-partner-sdk';

export async function runNodeScenario() {
  const check = 'testing/node: startFakeServer';
  let server;
  try {
    const { startFakeServer } = await import('restaurant-partner-sdk/testing/node');
    server = await startFakeServer({ rateLimit: false });
    const partner = server.fake.addPartner();
    const restaurant = server.fake.addRestaurant({
      timezone: 'Europe/Lisbon',
      partnerIds: [partner.partnerId],
    });
    const client = new PartnerClient({
      baseUrl: server.url,
      partnerId: partner.partnerId,
      apiToken: partner.apiToken,
      rateLimit: false,
    });
    const date = new Date(Date.now() + 3 * 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
    const reservation = await client.reservations.create(restaurant.id, {
      start_time: { date, time: '19:30' },
      adults: 2,
    });
    return { check, ok: true, detail: `booked #${reservation.id} over HTTP at ${server.url}` };
  } catch (error) {
    return { check, ok: false, detail: `${error?.name ?? 'Error'}: ${error?.message ?? String(error)}` };
  } finally {
    await server?.close();
  }
}
