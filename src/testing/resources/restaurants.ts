/**
 * Restaurant rules: "List restaurants ... Array of Restaurant objects, all restaurants accessible
 * to the partner."
 * @module
 */
import type { OperationContext } from '../context.js';
import type { RestaurantRecord } from '../state.js';
import { linkKey } from '../state.js';
import { json } from '../wire.js';

/** The Restaurant object of the spec (the fake's availability configuration stays private). */
export function serializeRestaurant(restaurant: RestaurantRecord): Record<string, unknown> {
  return {
    id: restaurant.id,
    display_name: restaurant.display_name,
    schema_name: restaurant.schema_name,
    address: restaurant.address,
    website: restaurant.website,
    latitude: restaurant.latitude,
    longitude: restaurant.longitude,
    timezone: restaurant.timezone,
  };
}

/** GET `/restaurants/`: always a bare array, as the spec states (ordered by id). */
export function listRestaurants(context: OperationContext): Response {
  const { state } = context.fake;
  const linked = [...state.restaurants.values()]
    .filter((restaurant) => state.links.has(linkKey(context.partner.partnerId, restaurant.id)))
    .sort((a, b) => a.id - b.id)
    .map(serializeRestaurant);
  return json(200, linked);
}
