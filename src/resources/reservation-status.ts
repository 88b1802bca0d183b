/**
 * The PATCH operations that change a reservation's state: cancel, mark arrived, mark no-show.
 * Each is safe to repeat (it ends in the same state), and a retry refused as a conflict after an
 * attempt whose outcome is unknown is settled by reading the reservation.
 * @module
 */
import { ConflictError } from '../errors.js';
import type { ApiPromise } from '../transport/api-promise.js';
import { outcomeUnknown, type Call, type RequestOptions, type Transport } from '../transport/transport.js';
import { parseOutput } from '../transport/validate.js';
import { reservationPath } from './reservation-paths.js';
import { Reservation } from './reservations.schemas.js';
import { apiPromise, checkId, hasResourceBody, singleObject } from './resource.js';

/** One state change: what is sent, and the flag that is true once it took effect. */
export interface StatusChange {
  body: unknown;
  query: Record<string, string> | undefined;
  flag: 'cancelled' | 'arrived' | 'no_show';
  operation: string;
}

/** `PATCH .../:id/?action=cancel` */
export const CANCEL: StatusChange = {
  body: {},
  query: { action: 'cancel' },
  flag: 'cancelled',
  operation: 'reservations.cancel',
};
/** `PATCH .../:id/` with `{"arrived": true}` (inferred). */
export const MARK_ARRIVED: StatusChange = {
  body: { arrived: true },
  query: undefined,
  flag: 'arrived',
  operation: 'reservations.markArrived',
};
/** `PATCH .../:id/` with `{"no_show": true}` (inferred). */
export const MARK_NO_SHOW: StatusChange = {
  body: { no_show: true },
  query: undefined,
  flag: 'no_show',
  operation: 'reservations.markNoShow',
};

const optionalReservation = (body: unknown, where: { method: string; url: string }): Reservation | null => {
  const single = Array.isArray(body) ? singleObject(body, where) : body;
  return hasResourceBody(single) ? parseOutput(Reservation, single, where) : null;
};

/**
 * Sends one state change. Resolves to the reservation when the service answers with it, or null
 * when it answers without a body. `retrieve` reads the reservation when a retry needs settling.
 */
export function patchReservation(
  transport: Transport,
  retrieve: (rid: number | string, id: number | string, call: Call) => ApiPromise<Reservation>,
  restaurantId: number | string,
  id: number | string,
  change: StatusChange,
  options: RequestOptions | undefined,
): ApiPromise<Reservation | null> {
  return apiPromise(async () => {
    const rid = checkId(restaurantId, 'restaurant_id');
    const reservationId = checkId(id, 'id');
    return transport.run(
      options,
      change.operation,
      (call) => {
        // Set once an attempt failed in a way that may have changed the reservation all the same.
        let mayHaveApplied = false;
        return transport.request({
          method: 'PATCH',
          path: reservationPath(rid, reservationId),
          query: change.query,
          body: change.body,
          // Cancelling, or setting a flag to true, twice ends in the same state.
          safeToRepeat: true,
          options: call,
          parse: (answer, _response, where) => optionalReservation(answer, where),
          recover: async (error) => {
            // Our retry refused as a conflict (already arrived, already cancelled) after an attempt whose
            // outcome is unknown: that attempt may have done it. Read the reservation to tell.
            if (mayHaveApplied && error instanceof ConflictError) {
              const current = await retrieve(rid, reservationId, call).catch(() => null);
              return current?.[change.flag] === true ? { body: current } : undefined;
            }
            if (outcomeUnknown(error)) mayHaveApplied = true;
            return undefined;
          },
        });
      },
      { restaurantId: rid },
    );
  });
}
