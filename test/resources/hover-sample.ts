// Read by exact-types.test.ts with the TypeScript compiler: the type each hover shows.
import type { PartnerClient } from 'restaurant-partner-sdk';

declare const client: PartnerClient;
export const reservation = await client.reservations.create(1, { start_time: '2026-12-05T19:30:00', adults: 2 });
export const restaurants = await client.restaurants.list().toArray();
export const profile = await client.profile.retrieve();
export const webhook = await client.webhooks.create({ url: 'https://partner.example/hooks' });
