/**
 * Reservation schemas: the single source of the request checks, the response checks and the
 * exported types.
 * @module
 */
import * as z from 'zod/mini';
import { lazySchema, realSchema } from '../internal/lazy-schema.js';
import {
  RESERVATION_FIELDS,
  TEXT_CREATE_FIELDS,
  type TextCreateField,
  type TextCreateRule,
  type WireKind,
} from './reservation-fields.js';
import { DateTimeString, DurationString, Metadata, ServiceDateTimeString } from './shared.schemas.js';

/**
 * How a restaurant confirms: `CONFIRMATION_MODE_SYNCHRONOUS` (confirmed in the creation answer) or
 * `CONFIRMATION_MODE_ASYNCHRONOUS` (the restaurant confirms later; poll or listen to webhooks).
 */
export const ConfirmationMode = /* @__PURE__ */ lazySchema(() =>
  z.enum(['CONFIRMATION_MODE_SYNCHRONOUS', 'CONFIRMATION_MODE_ASYNCHRONOUS']),
);
export type ConfirmationMode = z.infer<typeof ConfirmationMode>;

/** The zod schema of each wire kind of {@link RESERVATION_FIELDS}, as a type. */
interface WireSchemas {
  id: z.ZodMiniNumber<number>;
  startTime: typeof ServiceDateTimeString;
  text: z.ZodMiniOptional<z.ZodMiniNullable<z.ZodMiniString<string>>>;
  count: z.ZodMiniOptional<z.ZodMiniNumber<number>>;
  nullableCount: z.ZodMiniOptional<z.ZodMiniNullable<z.ZodMiniNumber<number>>>;
  flag: z.ZodMiniOptional<z.ZodMiniBoolean<boolean>>;
  dateTime: z.ZodMiniOptional<z.ZodMiniNullable<typeof ServiceDateTimeString>>;
  duration: z.ZodMiniOptional<z.ZodMiniNullable<typeof DurationString>>;
  mode: z.ZodMiniOptional<z.ZodMiniType<ConfirmationMode>>;
  metadata: z.ZodMiniOptional<z.ZodMiniNullable<typeof Metadata>>;
}
type Fields = typeof RESERVATION_FIELDS;
type ReservationShape = { -readonly [K in keyof Fields]: WireSchemas[Fields[K]['wire']] };

/** Builds the schema of one wire kind; each mirrors `isPlainReservationField`'s check of it. */
function wireSchema(kind: WireKind): z.ZodMiniType {
  switch (kind) {
    case 'id':
      return z.int();
    case 'startTime':
      return realSchema(ServiceDateTimeString);
    case 'text':
      return z.nullish(z.string());
    case 'count':
      return z.optional(z.int());
    case 'nullableCount':
      return z.nullish(z.int());
    case 'flag':
      return z.optional(z.boolean());
    case 'dateTime':
      return z.nullish(realSchema(ServiceDateTimeString));
    case 'duration':
      return z.nullish(realSchema(DurationString));
    case 'mode':
      // A new mode must not break reading a reservation, so any string is kept (see the type's note).
      return z.optional(z.string());
    case 'metadata':
      return z.nullish(realSchema(Metadata));
  }
}

const shapeOf = <Shape>(names: readonly string[], schemaOf: (name: never) => z.ZodMiniType): Shape =>
  Object.fromEntries(names.map((name) => [name, schemaOf(name as never)])) as Shape;

const buildReservation = () =>
  z.looseObject(
    shapeOf<ReservationShape>(Object.keys(RESERVATION_FIELDS), (name: keyof Fields) =>
      wireSchema(RESERVATION_FIELDS[name].wire),
    ),
  );

/**
 * A reservation as the service returns it. Only `id` and `start_time` are required: the spec
 * marks every other field optional, and a future field must never break a partner's booking flow.
 * Fields the service adds beyond these are kept on the object at run time, but are not part of
 * the type (so a misspelt field such as `reservation.confirmd` does not compile). `start_time` is
 * ISO 8601 in the restaurant's timezone (read it with `readStartTime`); `duration` is `PT2H` or
 * `02:00:00` (read it with `readDuration`); a `confirmation_mode` the service adds later is kept
 * as sent rather than refused, so give a `switch` on it a default branch.
 */
// An interface rather than an alias, so editors name it; its fields are the schema's (without
// the loose schema's index signature, so a misspelt field does not compile).
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Reservation extends z.output<z.ZodMiniObject<ReservationShape>> {}
/** The zod schema of {@link Reservation}: unknown fields are kept at run time. */
export const Reservation: z.ZodMiniType<Reservation> = /* @__PURE__ */ lazySchema(buildReservation);

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

type TextCreateSchema<K extends TextCreateField> = Fields[K]['create'] extends { nullable: true }
  ? z.ZodMiniOptional<z.ZodMiniNullable<z.ZodMiniString<string>>>
  : z.ZodMiniOptional<z.ZodMiniString<string>>;
type TextCreateShape = { -readonly [K in TextCreateField]: TextCreateSchema<K> };

/** The spec's rule for a text field sent on create (see `RESERVATION_FIELDS`). */
function textCreateSchema(rule: TextCreateRule): z.ZodMiniType {
  const text = rule.max === undefined ? z.string() : z.string().check(z.maxLength(rule.max));
  return z.optional(rule.nullable ? z.nullable(text) : text);
}

const buildCreateInput = () =>
  z.strictObject({
    start_time: realSchema(StartTimeInput),
    adults: z.int().check(z.gte(1), z.lte(50)),
    children: z._default(z.int().check(z.gte(0), z.lte(50)), 0),
    ...shapeOf<TextCreateShape>(TEXT_CREATE_FIELDS, (name: TextCreateField) =>
      textCreateSchema(RESERVATION_FIELDS[name].create),
    ),
    metadata: z.optional(z.nullable(realSchema(Metadata))),
  });

/**
 * What a partner sends to book a table. Exactly the spec's rules, nothing stricter: only
 * `start_time` (see {@link StartTimeInput}) and `adults` (1 to 50) are required; `children` is 0
 * to 50 (0 when omitted); every other field is optional, with the limit its own documentation
 * states; `metadata` holds your own keys, stored as given (the client adds its idempotency key
 * there unless turned off). A field this type does not name (a misspelt `frist_name`, or a field
 * the server sets such as `id` or `confirmed`) is refused with an `InputValidationError` naming
 * it, before any request is spent.
 */
// An interface rather than an alias, so editors name it; its fields are the schema's (without
// the loose schema's index signature, so a misspelt field does not compile).
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ReservationCreateInput extends z.input<ReturnType<typeof buildCreateInput>> {}
/** The checked form of {@link ReservationCreateInput} (`children` filled in). */
export type ReservationCreateBody = z.output<ReturnType<typeof buildCreateInput>>;
/** The zod schema of {@link ReservationCreateInput}: unknown keys are refused. */
export const ReservationCreateInput: z.ZodMiniType<ReservationCreateBody, ReservationCreateInput> =
  /* @__PURE__ */ lazySchema(buildCreateInput);

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
