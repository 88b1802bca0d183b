/**
 * The partner API's restaurant routes (mirrors `src/resources/restaurants.ts`).
 * @module
 */
import { linkedRestaurants, restaurantView } from '../backend/restaurants.js';
import { json } from '../http.js';
import type { ApiCall } from './call.js';

/** GET `/restaurants/`: "Array of Restaurant objects, all restaurants accessible to the partner" (by id). */
export function listRestaurants(call: ApiCall): Response {
  return json(200, linkedRestaurants(call.backend, call.partner).map(restaurantView));
}
