/**
 * What the restaurant and the customer do to a reservation in the fake (`fake.asRestaurant`,
 * `fake.asCustomer`): each action the spec describes on their side, sending its event. Apart from
 * the class, which only wires them to its backend.
 * @module
 */
import type { Reservation } from '../resources/reservations.schemas.js';
import type { FakeBackend } from './backend/backend.js';
import {
  cancelAsRestaurantOrCustomer,
  confirmAsRestaurant,
  markAsRestaurant,
  modifyAsRestaurantOrCustomer,
} from './backend/reservations.js';

/** Restaurant-side actions: each sends the spec's event, and makes its first delivery attempts before resolving. */
export interface RestaurantActions {
  /** "The restaurant has manually confirmed the reservation": RESERVATION_CONFIRMED. */
  confirm(restaurantId: number, reservationId: number): Promise<Reservation>;
  /** Changes time, party or guest details (re-checks availability): RESERVATION_MODIFIED. */
  modify(restaurantId: number, reservationId: number, changes: Record<string, unknown>): Promise<Reservation>;
  /** RESERVATION_CANCELLED (a repeat is a no-op without event). */
  cancel(restaurantId: number, reservationId: number): Promise<Reservation>;
  /** The guest arrived (no event: the spec names none). */
  arrive(restaurantId: number, reservationId: number): Promise<Reservation>;
  /** The guest never came (no event). */
  noShow(restaurantId: number, reservationId: number): Promise<Reservation>;
}

/** Customer-side actions: modify and cancel, with the same events. */
export interface CustomerActions {
  modify(restaurantId: number, reservationId: number, changes: Record<string, unknown>): Promise<Reservation>;
  cancel(restaurantId: number, reservationId: number): Promise<Reservation>;
}

/** The record one action changes, which `act` applies with its deliveries and answers as a view. */
type ActionRun = () => Parameters<FakeBackend['view']>[0];

/** Both sides' actions on `backend`; `act` runs one with its first delivery attempts and answers the view. */
export function createActions(
  backend: FakeBackend,
  act: (run: ActionRun) => Promise<Reservation>,
): { asRestaurant: RestaurantActions; asCustomer: CustomerActions } {
  const asRestaurant: RestaurantActions = {
    confirm: (restaurantId, reservationId) =>
      act(() => confirmAsRestaurant(backend, restaurantId, reservationId)),
    modify: (restaurantId, reservationId, changes) =>
      act(() => modifyAsRestaurantOrCustomer(backend, restaurantId, reservationId, changes)),
    cancel: (restaurantId, reservationId) =>
      act(() => cancelAsRestaurantOrCustomer(backend, restaurantId, reservationId)),
    arrive: (restaurantId, reservationId) =>
      act(() => markAsRestaurant(backend, restaurantId, reservationId, 'markArrived')),
    noShow: (restaurantId, reservationId) =>
      act(() => markAsRestaurant(backend, restaurantId, reservationId, 'markNoShow')),
  };
  const asCustomer: CustomerActions = {
    modify: (restaurantId, reservationId, changes) =>
      asRestaurant.modify(restaurantId, reservationId, changes),
    cancel: (restaurantId, reservationId) =>
      act(() => cancelAsRestaurantOrCustomer(backend, restaurantId, reservationId, 'customer')),
  };
  return { asRestaurant, asCustomer };
}
