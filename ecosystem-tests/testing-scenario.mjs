// The `/testing` entry in-process, as a partner's test suite on this runtime would use it: the fake
// behind `clientOptions` (no server, no msw: this project does not install msw), a booking through
// PartnerClient, and a delivery built by `/testing`'s buildDelivery accepted by the receiver.
// Answers one result, { check, ok, detail }; it never throws, so a /testing that cannot load here
// fails this check alone.
import { PartnerClient } from 'restaurant-partner-sdk';
import { createWebhookReceiver } from 'restaurant-partner-sdk/webhooks';

export async function runTestingScenario() {
  const check = 'testing: in-process fake';
  let fake;
  try {
    const { buildDelivery, createFakeService } = await import('restaurant-partner-sdk/testing');
    fake = createFakeService({ clock: { frozen: true, startAt: '2030-01-07T08:00:00Z' } });
    const partner = fake.addPartner();
    const restaurant = fake.addRestaurant({ timezone: 'Europe/Paris', partnerIds: [partner.partnerId] });
    const client = new PartnerClient(fake.clientOptions(partner));
    const reservation = await client.reservations.create(restaurant.id, {
      start_time: { date: '2030-01-08', time: '19:30' },
      adults: 2,
    });
    const listed = await client.reservations.list(restaurant.id).toArray();
    if (!listed.some((candidate) => candidate.id === reservation.id))
      throw new Error(`reservation #${reservation.id} is not listed`);

    const token = `whk_${crypto.randomUUID()}`;
    let handled = 0;
    const receiver = createWebhookReceiver({ tokens: [token], logger: false }).on(
      'RESERVATION_CONFIRMED',
      () => {
        handled += 1;
      },
    );
    const delivery = buildDelivery(
      { event: 'RESERVATION_CONFIRMED', reservation, restaurantId: restaurant.id },
      token,
    );
    const answer = await receiver.handle(
      new Request('https://partner.example/webhooks', {
        method: 'POST',
        headers: delivery.headers,
        body: delivery.body,
      }),
    );
    if (answer.status !== 200 || handled !== 1)
      throw new Error(
        `the receiver answered ${answer.status} to /testing's delivery, handler runs: ${handled}`,
      );
    return {
      check,
      ok: true,
      detail: `booked #${reservation.id} on the in-process fake; /testing's delivery answered 200`,
    };
  } catch (error) {
    return { check, ok: false, detail: `${error?.name ?? 'Error'}: ${error?.message ?? String(error)}` };
  } finally {
    fake?.dispose();
  }
}
