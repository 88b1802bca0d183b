/**
 * The fields of a reservation, written once. The `Reservation` and `ReservationCreateInput`
 * schemas (and so their types) are built from this table, and every other list of reservation
 * fields derives from it: the webhook receiver's fast path, the fields a restaurant may modify in
 * the fake, the guest fields of the booking fingerprint, the personal data kept out of spans and
 * logs, and the fake's checks and stored record. No zod here: the receiver's fast path reads this
 * table without loading zod.
 * @module
 */
import { DURATION_PATTERN, SERVICE_DATE_TIME_PATTERN } from './patterns.js';

/** How the service sends a field. Each kind has one zod schema and one fast check, in step. */
export type WireKind =
  | 'id'
  | 'startTime'
  | 'text'
  | 'count'
  | 'nullableCount'
  | 'flag'
  | 'dateTime'
  | 'duration'
  | 'mode'
  | 'metadata';

/** A text field a partner sends on create: the spec's rule for it. */
export interface TextCreateRule {
  /** Longest value, in characters, when the spec states one. */
  readonly max?: number;
  /** Whether `null` is accepted. */
  readonly nullable?: boolean;
}

/** One field of a reservation. */
export interface FieldSpec {
  readonly wire: WireKind;
  /**
   * Sent by a partner on create. A text field carries its rule here, and the create schema is
   * built from it; `'required'` or `'optional'` marks a field whose rule is of its own kind
   * (`start_time`, `adults`, `children`, `metadata`), written in reservations.schemas.ts.
   */
  readonly create?: TextCreateRule | 'required' | 'optional';
  /** A restaurant or a customer may change it after booking (the fake's modify). */
  readonly modify?: boolean;
  /** Identifies the guest: part of the booking fingerprint, compared with a booking found under the key. */
  readonly guest?: boolean;
  /** Personal data: never written to spans, logs or diagnostics. */
  readonly personal?: boolean;
}

/**
 * Every field of a reservation as the service returns it, in the spec's order. Only `id` and
 * `start_time` are required; a field added here is optional on the wire, so a future field never
 * breaks a partner's booking flow.
 */
export const RESERVATION_FIELDS = {
  /** Assigned by the server. */
  id: { wire: 'id' },
  first_name: { wire: 'text', create: { max: 255 }, modify: true, guest: true, personal: true },
  last_name: { wire: 'text', create: { max: 255 }, modify: true, guest: true, personal: true },
  email: { wire: 'text', create: { nullable: true }, modify: true, guest: true, personal: true },
  phone: { wire: 'text', create: { max: 128, nullable: true }, modify: true, guest: true, personal: true },
  start_time: { wire: 'startTime', create: 'required', modify: true },
  duration: { wire: 'duration' },
  adults: { wire: 'count', create: 'required', modify: true },
  children: { wire: 'nullableCount', create: 'optional', modify: true },
  /** Visible to the restaurant. */
  comment: { wire: 'text', create: { nullable: true }, modify: true, personal: true },
  cancelled: { wire: 'flag' },
  cancelled_at: { wire: 'dateTime' },
  confirmed: { wire: 'flag' },
  confirmed_at: { wire: 'dateTime' },
  confirmation_mode: { wire: 'mode' },
  arrived: { wire: 'flag' },
  arrived_at: { wire: 'dateTime' },
  no_show: { wire: 'flag' },
  no_show_at: { wire: 'dateTime' },
  /** BCP 47 language tag of the guest. */
  language: { wire: 'text', create: {}, modify: true },
  /** The partner's own keys, stored as given (sent on create only). */
  metadata: { wire: 'metadata', create: 'optional' },
} as const satisfies Record<string, FieldSpec>;

/** The name of a reservation field. */
export type ReservationFieldName = keyof typeof RESERVATION_FIELDS;

type Fields = typeof RESERVATION_FIELDS;
/** The text fields a partner may send on create (see {@link FieldSpec.create}). */
export type TextCreateField = {
  [K in ReservationFieldName]: Fields[K] extends { create: TextCreateRule } ? K : never;
}[ReservationFieldName];

/** The fields that identify the guest (see {@link FieldSpec.guest}). */
export type GuestField = {
  [K in TextCreateField]: Fields[K] extends { guest: true } ? K : never;
}[TextCreateField];
/** The fields that are personal data (see {@link FieldSpec.personal}). */
export type PersonalField = {
  [K in ReservationFieldName]: Fields[K] extends { personal: true } ? K : never;
}[ReservationFieldName];

const names = Object.keys(RESERVATION_FIELDS) as ReservationFieldName[];
const spec = (name: ReservationFieldName): FieldSpec => RESERVATION_FIELDS[name];

/** The text fields sent on create, with their rules, in the table's order. */
export const TEXT_CREATE_FIELDS: readonly TextCreateField[] = names.filter(
  (name): name is TextCreateField => typeof spec(name).create === 'object',
);
/** Every field a partner sends on create: the create schema's keys. */
export const CREATE_FIELDS: readonly ReservationFieldName[] = names.filter(
  (name) => spec(name).create !== undefined,
);
/** The create body's fields as docs list them: required ones first, `name?` when optional. */
export const createBodyFields = (): string[] => [
  ...CREATE_FIELDS.filter((name) => spec(name).create === 'required'),
  ...CREATE_FIELDS.filter((name) => spec(name).create !== 'required').map((name) => `${name}?`),
];
/** Fields a restaurant or a customer may change after booking. */
export const MODIFIABLE_FIELDS: readonly ReservationFieldName[] = names.filter((name) => spec(name).modify);
/** Fields that identify the guest (the booking fingerprint compares them). */
export const GUEST_FIELDS = names.filter((name) => spec(name).guest) as readonly GuestField[];
/** Personal data: kept out of spans, logs and diagnostics. */
export const PERSONAL_FIELDS = names.filter((name) => spec(name).personal) as readonly PersonalField[];

const KINDS: ReadonlyMap<string, WireKind> = new Map(names.map((name) => [name, spec(name).wire]));

const isInt = (value: unknown): boolean => Number.isSafeInteger(value);
const isDateTime = (value: unknown): boolean =>
  typeof value === 'string' && SERVICE_DATE_TIME_PATTERN.test(value);
const isOwnObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/**
 * Whether `value` is, exactly, what the `Reservation` schema accepts for the field `key` and
 * returns unchanged: false for a field the table does not list, and for anything the schema
 * would change or refuse. The receiver's fast path reads a delivery's reservation with it.
 */
export function isPlainReservationField(key: string, value: unknown): boolean {
  switch (KINDS.get(key)) {
    case 'id':
    case 'count':
      return isInt(value);
    case 'startTime':
      return isDateTime(value);
    case 'text':
      return value === null || typeof value === 'string';
    case 'mode':
      return typeof value === 'string';
    case 'nullableCount':
      return value === null || isInt(value);
    case 'flag':
      return typeof value === 'boolean';
    case 'dateTime':
      return value === null || isDateTime(value);
    case 'duration':
      return value === null || (typeof value === 'string' && DURATION_PATTERN.test(value));
    case 'metadata':
      // The schema's record copy would turn an own `__proto__` key into a prototype: left to it.
      return value === null || (isOwnObject(value) && !Object.hasOwn(value, '__proto__'));
    case undefined:
      return false;
  }
}
