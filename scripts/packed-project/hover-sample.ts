// Read by hovers.mjs with the TypeScript compiler: the type each hover shows.
import type { PartnerClient } from 'restaurant-partner-sdk';
import type { WebhookEventOf } from 'restaurant-partner-sdk/webhooks';

declare const client: PartnerClient;
declare const modified: WebhookEventOf<'RESERVATION_MODIFIED'>;
export const reservation = await client.reservations.create(1, {
  start_time: '2030-01-08T19:30:00',
  adults: 2,
});
export const restaurants = await client.restaurants.list().toArray();
export const profile = await client.profile.retrieve();
export const webhook = await client.webhooks.create({ url: 'https://partner.example/hooks' });
export const event = modified;
