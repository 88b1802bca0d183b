/**
 * The wire shape of a reservation (`reservationView`): what the partner API answers and what
 * events carry, local time with offset and duration in the dialect's form. Apart from the rules
 * (`reservations.ts`), which change records; this file only shows them.
 * @module
 */
import { RESERVATION_FIELDS, TEXT_CREATE_FIELDS } from '../../resources/reservation-fields.js';
import type { Reservation } from '../../resources/reservations.schemas.js';
import { formatDuration, type ZoneTimes } from './availability.js';
import type { ReservationRecord, RestaurantRecord } from './state.js';

/** The reservation as the partner API shows it: local time with offset, duration in the dialect's form. */
export function reservationView(
  record: ReservationRecord,
  restaurant: RestaurantRecord,
  form: 'iso' | 'hms',
  dateTimeForm: DateTimeForm,
  times: ZoneTimes,
): Reservation {
  const zone = restaurant.timezone;
  const at = (millis: number | null) =>
    millis === null ? null : dateTimeIn(times.formatLocal(millis, zone), millis, dateTimeForm);
  const view: Record<string, unknown> = {
    id: record.id,
    start_time: dateTimeIn(times.formatLocal(record.start, zone), record.start, dateTimeForm),
    duration: formatDuration(record.durationMinutes, form),
    adults: record.adults,
    children: record.children,
    cancelled: record.cancelledAt !== null,
    cancelled_at: at(record.cancelledAt),
    confirmed: record.confirmedAt !== null,
    confirmed_at: at(record.confirmedAt),
    confirmation_mode: record.confirmation_mode,
    arrived: record.arrivedAt !== null,
    arrived_at: at(record.arrivedAt),
    no_show: record.noShowAt !== null,
    no_show_at: at(record.noShowAt),
    metadata: record.metadata,
  };
  for (const field of TEXT_CREATE_FIELDS) view[field] = record[field];
  // In the table's order, as the service lists its fields.
  return Object.fromEntries(
    RESERVATION_FIELD_NAMES.map((field) => [field, view[field]]),
  ) as unknown as Reservation;
}

const RESERVATION_FIELD_NAMES = Object.keys(RESERVATION_FIELDS);

type DateTimeForm = 'offset' | 'utc' | 'fraction' | 'compact' | 'space' | 'minutes';

/** `local` (`2026-12-05T19:30:00+01:00`) in the `dateTimeForm` dialect's form. */
function dateTimeIn(local: string, millis: number, form: DateTimeForm): string {
  switch (form) {
    case 'offset':
      return local;
    case 'utc':
      return `${new Date(Math.floor(millis / 1000) * 1000).toISOString().slice(0, 19)}Z`;
    case 'fraction':
      return local.replace(/(T\d\d:\d\d:\d\d)/, '$1.000000');
    case 'compact':
      return local.replace(/([+-]\d\d):(\d\d)$/, '$1$2');
    case 'space':
      return local.replace('T', ' ');
    case 'minutes':
      return local.replace(/(T\d\d:\d\d):\d\d/, '$1');
  }
}
