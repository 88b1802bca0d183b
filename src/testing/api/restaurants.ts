/**
 * The partner API's restaurant routes (mirrors `src/resources/restaurants.ts`).
 * @module
 */
import type { FakeBackend } from '../backend/backend.js';
import { linkedRestaurants, restaurantView } from '../backend/restaurants.js';
import { JsonResponse } from '../http.js';
import type { ApiCall } from './call.js';

/**
 * The list's text per world and partner, kept while the world's version stands: restaurants change
 * only through calls that move it, and a suite lists them again and again.
 */
const listTexts = new WeakMap<FakeBackend, { version: number; byPartner: Map<string, string> }>();

/** GET `/restaurants/`: "Array of Restaurant objects, all restaurants accessible to the partner" (by id). */
export function listRestaurants(call: ApiCall): Response {
  const { backend, partner } = call;
  let cache = listTexts.get(backend);
  if (cache?.version !== backend.version) {
    cache = { version: backend.version, byPartner: new Map() };
    listTexts.set(backend, cache);
  }
  let text = cache.byPartner.get(partner.partnerId);
  if (text === undefined) {
    text = JSON.stringify(linkedRestaurants(backend, partner).map(restaurantView));
    cache.byPartner.set(partner.partnerId, text);
  }
  return new JsonResponse(200, text, {});
}
