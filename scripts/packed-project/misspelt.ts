// Must NOT compile: proves the published types are exact. scripts/check-packed.mjs expects tsc to
// fail on exactly the lines marked below, and on nothing else.
import { PartnerClient, type Reservation, type Webhook } from 'restaurant-partner-sdk';

declare const client: PartnerClient;
declare const reservation: Reservation;
declare const webhook: Webhook;

export const confirmed = reservation.confirmd; // error: misspelt output field
export const mode: 'CONFIRMATION_MODE_SYNC' = reservation.confirmation_mode!; // error: not a mode of the union
export const booked = client.reservations.create(1, { start_time: '2030-01-08T19:30:00', adults: 2, frist_name: 'Ada' }); // error: misspelt input key
export const subscribed = client.webhooks.update(webhook.id, { subscribed_events: { RESERVATION_CONFRIMED: true } }); // error: misspelt event key
