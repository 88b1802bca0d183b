/**
 * The paths of a restaurant's reservations, written once for every reservation operation.
 * @module
 */
import { path } from '../transport/path.js';

/** `/restaurants/:rid/reservations/` */
export const restaurantReservationsPath = (restaurantId: number | string): string =>
  path`/restaurants/${restaurantId}/reservations/`;

/** `/restaurants/:rid/reservations/:id/` */
export const reservationPath = (restaurantId: number | string, id: number | string): string =>
  path`/restaurants/${restaurantId}/reservations/${id}/`;
