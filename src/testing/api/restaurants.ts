/**
 * The partner API's restaurant routes (mirrors `src/resources/restaurants.ts`).
 * @module
 */
import { linkedRestaurants, restaurantView } from '../backend/restaurants.js';
import { JsonResponse } from '../http.js';
import type { ApiCall } from './call.js';

/** GET `/restaurants/`: "Array of Restaurant objects, all restaurants accessible to the partner" (by id). */
export function listRestaurants(call: ApiCall): Response {
  const { backend, partner } = call;
  const text = backend.answers.restaurantList(backend.version, partner.partnerId, () =>
    JSON.stringify(linkedRestaurants(backend, partner).map(restaurantView)),
  );
  return new JsonResponse(200, text, {});
}
