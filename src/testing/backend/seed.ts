/**
 * The demo data set (`--seed demo`): one partner with fixed credentials and restaurants in three
 * zones, so a newcomer can poke the standalone server with curl at once.
 * @module
 */
import { addPartner } from './partners.js';
import { addRestaurant } from './restaurants.js';
import type { World } from './world.js';

/** Fixed credentials of the demo partner (printed in the standalone server's JSON start line). */
export const DEMO_PARTNER = Object.freeze({
  partnerId: '3f6c2a4e-9b1d-4c7e-8a5f-2d4b6c8e0a12',
  apiToken: 'demo-api-token-not-a-secret',
  name: 'Demo Booking Partner',
});

/** Adds the demo data set to a fake world. */
export function seedDemo(world: World): void {
  const partner = addPartner(world, { ...DEMO_PARTNER, website_url: 'https://partner.example' });
  const linked = [
    {
      display_name: 'Le Petit Sablon',
      schema_name: 'le_petit_sablon',
      timezone: 'Europe/Brussels',
      confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS' as const,
      address: 'Rue de Rollebeek 7, 1000 Bruxelles, Belgium',
      website: 'https://le-petit-sablon.example',
      latitude: 50.8405,
      longitude: 4.3534,
    },
    {
      display_name: 'Bistro des Vosges',
      schema_name: 'bistro_des_vosges',
      timezone: 'Europe/Paris',
      confirmation_mode: 'CONFIRMATION_MODE_ASYNCHRONOUS' as const,
      address: '12 Place des Vosges, 75004 Paris, France',
      website: 'https://bistro-des-vosges.example',
      latitude: 48.8556,
      longitude: 2.3655,
    },
    {
      display_name: 'Hudson Street Grill',
      schema_name: 'hudson_street_grill',
      timezone: 'America/New_York',
      confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS' as const,
      address: '350 Hudson St, New York, NY 10014, USA',
      website: 'https://hudson-street-grill.example',
      latitude: 40.7278,
      longitude: -74.0078,
    },
  ];
  for (const input of linked) addRestaurant(world, { ...input, partnerIds: [partner.partnerId] });
  // Not linked to the demo partner: its id answers 404, as the live service hides it.
  addRestaurant(world, {
    display_name: 'Canal House (not linked)',
    schema_name: 'canal_house',
    timezone: 'Europe/Amsterdam',
    confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS',
    address: 'Keizersgracht 148, 1015 CX Amsterdam, Netherlands',
    website: 'https://canal-house.example',
    latitude: 52.3752,
    longitude: 4.8866,
  });
}
