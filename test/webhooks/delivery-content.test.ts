/**
 * A partner testing its receiver builds deliveries with `buildDeliveryRequest`: it needs only what
 * the receiver needs, the reservation's `id`, not a whole reservation.
 */
import { describe, expect, it } from 'vitest';
import {
  buildDeliveryRequest,
  createWebhookReceiver,
  type DeliveryContent,
} from 'restaurant-partner-sdk/webhooks';

type DeliveryReservation = NonNullable<DeliveryContent['reservation']>;
import { TOKEN } from './helpers.js';

describe('buildDeliveryRequest', () => {
  it('builds a delivery from the reservation id alone, which the receiver hands out typed', async () => {
    const cancelled: number[] = [];
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false }).on(
      'RESERVATION_CANCELLED',
      (event) => void cancelled.push(event.reservation.id),
    );
    const reservation: DeliveryReservation = { id: 41 };
    const response = await receiver.handle(
      buildDeliveryRequest(
        'http://partner.test/hooks',
        { event: 'RESERVATION_CANCELLED', reservation, restaurantId: 7 },
        TOKEN,
      ),
    );
    expect(response.status).toBe(200);
    expect(cancelled).toEqual([41]);
  });

  it('carries whatever else of the reservation it is given', async () => {
    const adults: (number | undefined)[] = [];
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false }).on(
      'RESERVATION_MODIFIED',
      (event) => void adults.push(event.reservation.adults),
    );
    await receiver.handle(
      buildDeliveryRequest(
        'http://partner.test/hooks',
        { event: 'RESERVATION_MODIFIED', reservation: { id: 41, adults: 4 } },
        TOKEN,
      ),
    );
    expect(adults).toEqual([4]);
  });
});
