/**
 * Reservation schemas: the single source of the request checks, the response checks and the
 * exported types.
 * @module
 */
import * as z from 'zod/mini';
import { lazySchema, realSchema } from '../internal/lazy-schema.js';
import { DateTimeString, DurationString, Metadata, ServiceDateTimeString } from './shared.schemas.js';

/**
 * How a restaurant confirms: `CONFIRMATION_MODE_SYNCHRONOUS` (confirmed in the creation answer) or
 * `CONFIRMATION_MODE_ASYNCHRONOUS` (the restaurant confirms later; poll or listen to webhooks).
 */
export const ConfirmationMode = /* @__PURE__ */ lazySchema(() =>
  z.enum(['CONFIRMATION_MODE_SYNCHRONOUS', 'CONFIRMATION_MODE_ASYNCHRONOUS']),
);
export type ConfirmationMode = z.infer<typeof ConfirmationMode>;

/**
 * A reservation as the service returns it. Only `id` and `start_time` are required: the spec
 * marks every other field optional, and a future field must never break a partner's booking flow.
 * Fields the service adds beyond these are kept on the object at run time, but are not part of
 * the type (so a misspelt field such as `reservation.confirmd` does not compile).
 */
export interface Reservation {
  /** Assigned by the server. */
  id: number;
  first_name?: string | null | undefined;
  last_name?: string | null | undefined;
  email?: string | null | undefined;
  phone?: string | null | undefined;
  /** ISO 8601, in the restaurant's timezone (read it as a luxon value with `readStartTime`). */
  start_time: string;
  /** Set by the server: `PT2H` or `02:00:00` (read it with `readDuration`). */
  duration?: string | null | undefined;
  adults?: number | undefined;
  children?: number | null | undefined;
  comment?: string | null | undefined;
  cancelled?: boolean | undefined;
  cancelled_at?: string | null | undefined;
  confirmed?: boolean | undefined;
  confirmed_at?: string | null | undefined;
  /**
   * How the restaurant confirms. A mode the service adds later is kept as sent rather than
   * refused, so give a `switch` on it a default branch.
   */
  confirmation_mode?: ConfirmationMode | undefined;
  arrived?: boolean | undefined;
  arrived_at?: string | null | undefined;
  no_show?: boolean | undefined;
  no_show_at?: string | null | undefined;
  /** BCP 47 language tag of the guest. */
  language?: string | null | undefined;
  /** The partner's own keys, stored as given. */
  metadata?: Metadata | null | undefined;
}
/** The zod schema of {@link Reservation}: unknown fields are kept at run time. */
export const Reservation: z.ZodMiniType<Reservation> = /* @__PURE__ */ lazySchema(() =>
  z.looseObject({
    id: z.int(),
    first_name: z.nullish(z.string()),
    last_name: z.nullish(z.string()),
    email: z.nullish(z.string()),
    phone: z.nullish(z.string()),
    start_time: realSchema(ServiceDateTimeString),
    duration: z.nullish(realSchema(DurationString)),
    adults: z.optional(z.int()),
    children: z.nullish(z.int()),
    comment: z.nullish(z.string()),
    cancelled: z.optional(z.boolean()),
    cancelled_at: z.nullish(realSchema(ServiceDateTimeString)),
    confirmed: z.optional(z.boolean()),
    confirmed_at: z.nullish(realSchema(ServiceDateTimeString)),
    // A new mode must not break reading a reservation, so any string is kept (see the type's note).
    confirmation_mode: z.optional(z.string()) as z.ZodMiniType<ConfirmationMode | undefined>,
    arrived: z.optional(z.boolean()),
    arrived_at: z.nullish(realSchema(ServiceDateTimeString)),
    no_show: z.optional(z.boolean()),
    no_show_at: z.nullish(realSchema(ServiceDateTimeString)),
    language: z.nullish(z.string()),
    metadata: z.nullish(realSchema(Metadata)),
  }),
);

/** A local wall-clock time in the restaurant's timezone. */
export const LocalDateTime = /* @__PURE__ */ lazySchema(() =>
  z.strictObject({
    date: z.iso.date(),
    time: z.string().check(z.regex(/^\d{2}:\d{2}(?::\d{2})?$/, 'expected HH:MM or HH:MM:SS')),
  }),
);
export type LocalDateTime = z.infer<typeof LocalDateTime>;

const isLuxonDateTime = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  (value as { isLuxonDateTime?: unknown }).isLuxonDateTime === true;

/**
 * When the reservation starts: a luxon `DateTime`, a `Date`, an ISO 8601 string (with an offset,
 * or without one to mean the restaurant's local time) or a local `{ date, time }`. The client
 * converts it to the restaurant's timezone before sending.
 */
export const StartTimeInput = /* @__PURE__ */ lazySchema(() =>
  z.union(
    [
      z
        .custom<import('luxon').DateTime>(isLuxonDateTime, 'expected a valid luxon DateTime')
        .check(
          z.refine((value) => (value as { isValid: boolean }).isValid, 'expected a valid luxon DateTime'),
        ),
      z.date({ error: 'expected a valid Date' }),
      // The same ISO 8601 forms a response is read in (+0100, +01, comma fractions, a space for T).
      realSchema(ServiceDateTimeString),
      realSchema(LocalDateTime),
    ],
    { error: 'expected a luxon DateTime, a Date, an ISO 8601 date-time string or { date, time }' },
  ),
);
export type StartTimeInput = z.infer<typeof StartTimeInput>;

/**
 * What a partner sends to book a table. Exactly the spec's rules, nothing stricter: only
 * `start_time` and `adults` are required. A field not listed here (a misspelt `frist_name`, or a
 * field the server sets such as `id` or `confirmed`) is refused with an `InputValidationError`
 * naming it, before any request is spent.
 */
export interface ReservationCreateInput {
  /** When the reservation starts, in the restaurant's timezone (see {@link StartTimeInput}). */
  start_time: StartTimeInput;
  /** 1 to 50. */
  adults: number;
  /** 0 to 50; 0 when omitted. */
  children?: number | undefined;
  /** At most 255 characters. */
  first_name?: string | undefined;
  /** At most 255 characters. */
  last_name?: string | undefined;
  email?: string | null | undefined;
  /** At most 128 characters. */
  phone?: string | null | undefined;
  /** Visible to the restaurant. */
  comment?: string | null | undefined;
  /** BCP 47 language tag of the guest (`en`, `fr`, `nl`). */
  language?: string | undefined;
  /** Your own keys, stored as given (the client adds its idempotency key here unless turned off). */
  metadata?: Metadata | null | undefined;
}
/** The checked form of {@link ReservationCreateInput} (`children` filled in). */
export type ReservationCreateBody = ReservationCreateInput & { children: number };
/** The zod schema of {@link ReservationCreateInput}: unknown keys are refused. */
export const ReservationCreateInput: z.ZodMiniType<ReservationCreateBody, ReservationCreateInput> =
  /* @__PURE__ */ lazySchema(() =>
    z.strictObject({
      start_time: realSchema(StartTimeInput),
      adults: z.int().check(z.gte(1), z.lte(50)),
      children: z._default(z.int().check(z.gte(0), z.lte(50)), 0),
      first_name: z.optional(z.string().check(z.maxLength(255))),
      last_name: z.optional(z.string().check(z.maxLength(255))),
      email: z.optional(z.nullable(z.string())),
      phone: z.optional(z.nullable(z.string().check(z.maxLength(128)))),
      comment: z.optional(z.nullable(z.string())),
      language: z.optional(z.string()),
      metadata: z.optional(z.nullable(realSchema(Metadata))),
    }),
  );

/**
 * Filters for `reservations.list`. The spec shows none, so they are sent as query parameters the
 * service may ignore, and the client applies them itself to what comes back. Any other key is refused.
 */
export interface ReservationListFilters {
  /** Only reservations starting at or after this time. */
  start_time_after?: string | Date | undefined;
  /** Only reservations starting before this time. */
  start_time_before?: string | Date | undefined;
  /** Items per page to ask for, when the service pages (1 to 1000). */
  page_size?: number | undefined;
}
/** The zod schema of {@link ReservationListFilters}: unknown keys are refused. */
export const ReservationListFilters: z.ZodMiniType<ReservationListFilters, ReservationListFilters> =
  /* @__PURE__ */ lazySchema(() =>
    z.strictObject({
      start_time_after: z.optional(z.union([realSchema(DateTimeString), z.date()])),
      start_time_before: z.optional(z.union([realSchema(DateTimeString), z.date()])),
      page_size: z.optional(z.int().check(z.gte(1), z.lte(1000))),
    }),
  );
