import type { Reservation } from '../../src/resources/reservations.schemas.js';

/** A confirmed dinner for two, every field of a reservation as the service answers it. */
export declare const RESERVATION: Readonly<Reservation>;
