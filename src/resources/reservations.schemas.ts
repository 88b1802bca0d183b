/**
 * Reservation schemas: the single source of the request checks, the response checks and the
 * exported types.
 * @module
 */
import { z } from 'zod';
import { lazySchema, realSchema } from '../lazy-schema.js';
import { DateTimeString, DurationString, Metadata, ServiceDateTimeString } from './shared.schemas.js';

/**
 * How a restaurant confirms: `CONFIRMATION_MODE_SYNCHRONOUS` (confirmed in the creation answer) or
 * `CONFIRMATION_MODE_ASYNCHRONOUS` (the restaurant confirms later; poll or listen to webhooks).
 */
export const ConfirmationMode = lazySchema(() => z.enum(['CONFIRMATION_MODE_SYNCHRONOUS', 'CONFIRMATION_MODE_ASYNCHRONOUS']));
export type ConfirmationMode = z.infer<typeof ConfirmationMode>;

/**
 * A reservation as the service returns it. Unknown extra fields are kept. Only `id` and
 * `start_time` are required: the spec marks every other field optional, and a future field
 * must never break a partner's booking flow.
 */
export const Reservation = lazySchema(() => z.looseObject({
  id: z.int(),
  first_name: z.string().nullish(),
  last_name: z.string().nullish(),
  email: z.string().nullish(),
  phone: z.string().nullish(),
  start_time: realSchema(ServiceDateTimeString),
  duration: DurationString.nullish(),
  adults: z.int().optional(),
  children: z.int().nullish(),
  comment: z.string().nullish(),
  cancelled: z.boolean().optional(),
  cancelled_at: ServiceDateTimeString.nullish(),
  confirmed: z.boolean().optional(),
  confirmed_at: ServiceDateTimeString.nullish(),
  // A new mode must not break reading a reservation, so any string is kept.
  confirmation_mode: z.union([ConfirmationMode, z.string()]).optional(),
  arrived: z.boolean().optional(),
  arrived_at: ServiceDateTimeString.nullish(),
  no_show: z.boolean().optional(),
  no_show_at: ServiceDateTimeString.nullish(),
  language: z.string().nullish(),
  metadata: Metadata.nullish(),
}));
export type Reservation = z.infer<typeof Reservation>;

/** A local wall-clock time in the restaurant's timezone. */
export const LocalDateTime = lazySchema(() => z.strictObject({
  date: z.iso.date(),
  time: z.string().regex(/^\d{2}:\d{2}(?::\d{2})?$/, 'expected HH:MM or HH:MM:SS'),
}));
export type LocalDateTime = z.infer<typeof LocalDateTime>;

const isLuxonDateTime = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && (value as { isLuxonDateTime?: unknown }).isLuxonDateTime === true;

/**
 * When the reservation starts: a luxon `DateTime`, a `Date`, an ISO 8601 string (with an offset,
 * or without one to mean the restaurant's local time) or a local `{ date, time }`. The client
 * converts it to the restaurant's timezone before sending.
 */
export const StartTimeInput = lazySchema(() => z.union([
  z.custom<import('luxon').DateTime>(isLuxonDateTime, 'expected a valid luxon DateTime').refine(
    (value) => (value as { isValid: boolean }).isValid,
    'expected a valid luxon DateTime',
  ),
  z.date({ error: 'expected a valid Date' }),
  // The same ISO 8601 forms a response is read in (+0100, +01, comma fractions, a space for T).
  realSchema(ServiceDateTimeString),
  realSchema(LocalDateTime),
], { error: 'expected a luxon DateTime, a Date, an ISO 8601 date-time string or { date, time }' }));
export type StartTimeInput = z.infer<typeof StartTimeInput>;

/**
 * What a partner sends to book a table. Exactly the spec's rules, nothing stricter: only
 * `start_time` and `adults` are required; server-set fields sent here are ignored by the service.
 */
export const ReservationCreateInput = lazySchema(() => z.looseObject({
  start_time: StartTimeInput,
  adults: z.int().min(1).max(50),
  children: z.int().min(0).max(50).default(0),
  first_name: z.string().max(255).optional(),
  last_name: z.string().max(255).optional(),
  email: z.string().nullable().optional(),
  phone: z.string().max(128).nullable().optional(),
  comment: z.string().nullable().optional(),
  language: z.string().optional(),
  metadata: Metadata.nullable().optional(),
}));
/** Input of `reservations.create`, as the caller writes it (`children` may be omitted). */
export type ReservationCreateInput = z.input<typeof ReservationCreateInput>;

/**
 * Filters for `reservations.list`. The spec shows none, so they are sent as query parameters the
 * service may ignore, and the client applies them itself to what comes back.
 */
export const ReservationListFilters = lazySchema(() => z.strictObject({
  /** Only reservations starting at or after this time. */
  start_time_after: z.union([DateTimeString, z.date()]).optional(),
  /** Only reservations starting before this time. */
  start_time_before: z.union([DateTimeString, z.date()]).optional(),
  /** Items per page to ask for, when the service pages. */
  page_size: z.int().min(1).max(1000).optional(),
}));
export type ReservationListFilters = z.infer<typeof ReservationListFilters>;
