/**
 * The control routes that play the restaurant's and the customer's side of a reservation:
 * confirm, modify, cancel, arrival and no-show. Each answers once its events' first delivery
 * attempts were made.
 * @module
 */
import { MODIFIABLE_FIELDS } from '../../resources/reservation-fields.js';
import { invalid, notFound } from '../backend/fake-error.js';
import {
  cancelAsRestaurantOrCustomer,
  confirmAsRestaurant,
  markAsRestaurant,
  modifyAsRestaurantOrCustomer,
} from '../backend/reservations.js';
import { requireObject } from '../backend/validation.js';
import { json } from '../http.js';
import type { ControlCall } from './call.js';
import type { ControlRouteHandler } from './route.js';

const ok = (body: unknown) => json(200, body);

/** A positive integer path parameter; anything else names nothing (404). */
export function id(raw: string | undefined): number {
  if (raw && /^\d{1,15}$/.test(raw) && Number(raw) > 0) return Number(raw);
  throw notFound();
}

function actor(body: Record<string, unknown>): 'restaurant' | 'customer' {
  if (body.by === undefined || body.by === 'restaurant') return 'restaurant';
  if (body.by === 'customer') return 'customer';
  throw invalid({ by: ['Expected "restaurant" or "customer".'] });
}

/** A restaurant-side action: its events' first delivery attempts are made before it answers. */
async function restaurantAction(
  call: ControlCall,
  act: (input: Record<string, unknown>) => ReturnType<typeof confirmAsRestaurant>,
): Promise<Response> {
  const input = requireObject(call.body, true);
  const record = await call.backend.withDeliveries(() => act(input));
  return ok(call.backend.view(record));
}

/** The restaurant's and the customer's actions on one reservation. */
export const RESTAURANT_ACTION_ROUTES: readonly ControlRouteHandler[] = [
  {
    method: 'POST',
    path: '/_fake/restaurants/:restaurantId/reservations/:reservationId/confirm',
    does: 'the restaurant confirms (RESERVATION_CONFIRMED)',
    run: (call) =>
      restaurantAction(call, () =>
        confirmAsRestaurant(call.backend, id(call.params.restaurantId), id(call.params.reservationId)),
      ),
  },
  {
    method: 'POST',
    path: '/_fake/restaurants/:restaurantId/reservations/:reservationId/modify',
    body: `{${['by', ...MODIFIABLE_FIELDS].map((field) => `${field}?`).join(', ')}}`,
    does: 'the restaurant or the customer modifies (RESERVATION_MODIFIED)',
    run: (call) =>
      restaurantAction(
        call,
        (input) => (
          actor(input),
          modifyAsRestaurantOrCustomer(
            call.backend,
            id(call.params.restaurantId),
            id(call.params.reservationId),
            input,
          )
        ),
      ),
  },
  {
    method: 'POST',
    path: '/_fake/restaurants/:restaurantId/reservations/:reservationId/cancel',
    body: '{by?: "restaurant" | "customer"}',
    does: 'the restaurant or the customer cancels (RESERVATION_CANCELLED)',
    run: (call) =>
      restaurantAction(call, (input) =>
        cancelAsRestaurantOrCustomer(
          call.backend,
          id(call.params.restaurantId),
          id(call.params.reservationId),
          actor(input),
        ),
      ),
  },
  {
    method: 'POST',
    path: '/_fake/restaurants/:restaurantId/reservations/:reservationId/arrive',
    does: 'the restaurant records the guest as arrived (no event: the spec names none)',
    run: (call) =>
      restaurantAction(call, () =>
        markAsRestaurant(
          call.backend,
          id(call.params.restaurantId),
          id(call.params.reservationId),
          'markArrived',
        ),
      ),
  },
  {
    method: 'POST',
    path: '/_fake/restaurants/:restaurantId/reservations/:reservationId/no-show',
    does: 'the restaurant records a no-show (no event: the spec names none)',
    run: (call) =>
      restaurantAction(call, () =>
        markAsRestaurant(
          call.backend,
          id(call.params.restaurantId),
          id(call.params.reservationId),
          'markNoShow',
        ),
      ),
  },
];
