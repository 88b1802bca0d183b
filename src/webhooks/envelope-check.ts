/**
 * The check of a delivery envelope, written by hand rather than with zod: zod was most of the
 * receiver's bundle (an edge function that only verifies webhooks paid 8.6 KB gzip for it). It
 * accepts exactly what the envelope schemas built from the client's `Reservation` schema accept,
 * gives the same event, and refuses with the same issues (field, code, zod's English message):
 * test/proofs/receiver-envelope.property.test.ts runs both on generated input, so they cannot
 * drift. A valid envelope is returned as it is (no copy), which is also the common delivery's
 * fast path.
 * @module
 */
import type { FieldIssue } from '../errors.js';
import { TEST_EVENT } from '../resources/event-names.js';
import { DURATION_PATTERN, SERVICE_DATE_TIME_PATTERN } from '../resources/patterns.js';
import { RESERVATION_FIELDS, type WireKind } from '../resources/reservation-fields.js';

/** How one field is checked: its type, and whether null or absence is allowed. */
type Rule =
  | 'int'
  | 'int?'
  | 'int??'
  | 'string?'
  | 'string??'
  | 'boolean?'
  | 'dateTime?'
  | 'dateTime??'
  | 'duration??'
  | 'record??';

/** The rule of each kind of field of the reservation table, as the `Reservation` schema reads it (`?`: may be absent, `??`: may also be null). */
const RULE_OF_KIND: Readonly<Record<WireKind, Rule>> = {
  id: 'int',
  // A delivery may leave out the start time (a service may send only what changed).
  startTime: 'dateTime?',
  text: 'string??',
  count: 'int?',
  nullableCount: 'int??',
  flag: 'boolean?',
  dateTime: 'dateTime??',
  duration: 'duration??',
  mode: 'string?',
  metadata: 'record??',
};

/**
 * The reservation a reservation event carries, field by field, from the reservation table
 * (`RESERVATION_FIELDS`), in its order: issues are reported in it.
 */
const EVENT_RESERVATION_RULES: Readonly<Record<string, Rule>> = Object.fromEntries(
  Object.entries(RESERVATION_FIELDS).map(([field, spec]) => [field, RULE_OF_KIND[spec.wire]]),
);

const DATE_TIME_MESSAGE = 'expected an ISO 8601 date-time';
const DURATION_MESSAGE = 'expected an ISO 8601 duration (PT2H) or HH:MM:SS';

/** zod's name for what it received (`util.parsedType`, with the locale's spelling of non-finite numbers). */
function received(value: unknown): string {
  if (typeof value === 'number')
    return Number.isNaN(value) ? 'NaN' : Number.isFinite(value) ? 'number' : String(value);
  if (typeof value !== 'object') return typeof value;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const constructor = (value as { constructor?: { name?: string } }).constructor;
  return Object.getPrototypeOf(value) !== Object.prototype && 'constructor' in value && constructor
    ? String(constructor.name)
    : 'object';
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** zod's test of a record: an object whose constructor, if it is one, builds plain objects. */
function isRecord(value: unknown): boolean {
  if (!isObject(value)) return false;
  const constructor: unknown = value.constructor;
  if (typeof constructor !== 'function') return true;
  const prototype: unknown = constructor.prototype;
  return isObject(prototype) && Object.hasOwn(prototype, 'isPrototypeOf');
}

/** The issues of one envelope, collected only when there is one (a valid delivery allocates nothing). */
class Issues {
  list: FieldIssue[] | undefined;

  add(at: (string | number)[], key: string | undefined, code: string, message: string): void {
    // The path is built only for an issue: a valid delivery allocates nothing per field.
    const path = key === undefined ? at : [...at, key];
    (this.list ??= []).push({ field: path.join('.'), path, code, message });
  }

  type(path: (string | number)[], key: string | undefined, expected: string, value: unknown): void {
    this.add(path, key, 'invalid_type', `Invalid input: expected ${expected}, received ${received(value)}`);
  }
}

function checkInt(value: unknown, path: (string | number)[], key: string | undefined, issues: Issues): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) issues.type(path, key, 'number', value);
  else if (!Number.isInteger(value)) issues.type(path, key, 'int', value);
  else if (value > Number.MAX_SAFE_INTEGER)
    issues.add(path, key, 'too_big', `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}`);
  else if (value < Number.MIN_SAFE_INTEGER)
    issues.add(path, key, 'too_small', `Too small: expected int to be >=${Number.MIN_SAFE_INTEGER}`);
}

function checkPattern(
  value: unknown,
  pattern: RegExp,
  message: string,
  path: (string | number)[],
  key: string | undefined,
  issues: Issues,
): void {
  if (typeof value !== 'string') issues.type(path, key, 'string', value);
  else if (!pattern.test(value)) issues.add(path, key, 'invalid_format', message);
}

/** One field under its rule (an absent field reads as undefined, as in the schemas). */
function checkField(
  rule: Rule,
  value: unknown,
  path: (string | number)[],
  key: string | undefined,
  issues: Issues,
): void {
  if (value === undefined && rule.endsWith('?')) return;
  if (value === null && rule.endsWith('??')) return;
  switch (rule) {
    case 'int':
    case 'int?':
    case 'int??':
      return checkInt(value, path, key, issues);
    case 'string?':
    case 'string??':
      if (typeof value !== 'string') issues.type(path, key, 'string', value);
      return;
    case 'boolean?':
      if (typeof value !== 'boolean') issues.type(path, key, 'boolean', value);
      return;
    case 'dateTime?':
    case 'dateTime??':
      return checkPattern(value, SERVICE_DATE_TIME_PATTERN, DATE_TIME_MESSAGE, path, key, issues);
    case 'duration??':
      return checkPattern(value, DURATION_PATTERN, DURATION_MESSAGE, path, key, issues);
    case 'record??':
      if (!isRecord(value)) issues.type(path, key, 'record', value);
      return;
  }
}

/** A non-empty string (zod's `string().check(minLength(1))`, whose length check also looks at arrays). */
function checkNonEmptyString(
  value: unknown,
  path: (string | number)[],
  key: string | undefined,
  issues: Issues,
): void {
  if (typeof value !== 'string') issues.type(path, key, 'string', value);
  const length = (value as { length?: unknown } | null | undefined)?.length;
  if (value === null || value === undefined || length === undefined || (length as number) >= 1) return;
  const origin = Array.isArray(value) ? 'array' : typeof value === 'string' ? 'string' : 'unknown';
  const units = { array: ' items', string: ' characters', unknown: '' }[origin];
  issues.add(path, key, 'too_small', `Too small: expected ${origin} to ${units ? 'have' : 'be'} >=1${units}`);
}

/** `value` without an own `__proto__` key, as the schemas' copy leaves it (they never set a prototype). */
function withoutProtoKey<Value extends Record<string, unknown>>(value: Value): Value {
  if (!Object.hasOwn(value, '__proto__')) return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (key !== '__proto__') copy[key] = value[key];
  return copy as Value;
}

function checkReservation(
  reservation: unknown,
  path: (string | number)[],
  issues: Issues,
): Record<string, unknown> | undefined {
  if (!isObject(reservation)) {
    issues.type(path, undefined, 'object', reservation);
    return undefined;
  }
  for (const field in EVENT_RESERVATION_RULES) {
    checkField(EVENT_RESERVATION_RULES[field]!, reservation[field], path, field, issues);
  }
  const metadata = reservation.metadata;
  const result = withoutProtoKey(reservation);
  if (isObject(metadata) && Object.hasOwn(metadata, '__proto__')) {
    return { ...result, metadata: withoutProtoKey(metadata) };
  }
  return result;
}

/** What {@link checkEnvelope} answers: the event, or the issues that refuse it. */
export type EnvelopeCheck =
  { ok: true; event: Record<string, unknown> } | { ok: false; issues: FieldIssue[] };

/**
 * Checks a normalised envelope (its `type` set to a known event name, or `unknown`) against the
 * envelope of its type: the delivery id (a non-empty string, or an integer kept as its string),
 * the event name, `created_at`, `restaurant_id`, and the reservation (required for a reservation
 * event, null or absent for `TEST`, anything for an unknown event). Unknown fields are kept.
 */
export function checkEnvelope(envelope: Record<string, unknown>, knownType: boolean): EnvelopeCheck {
  const issues = new Issues();
  const { id, type } = envelope;
  let checkedId = id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) checkedId = String(id);
  else if (id === '') issues.add([], 'id', 'too_small', 'Too small: expected string to have >=1 characters');
  else if (typeof id !== 'string') issues.add([], 'id', 'invalid_union', 'Invalid input');
  if (knownType) {
    if (envelope.event !== type)
      issues.add([], 'event', 'invalid_value', `Invalid input: expected "${String(type)}"`);
  } else checkNonEmptyString(envelope.event, [], 'event', issues);
  checkField('dateTime??', envelope.created_at, [], 'created_at', issues);
  checkField('int??', envelope.restaurant_id, [], 'restaurant_id', issues);
  let reservation = envelope.reservation;
  // A test delivery's reservation is usually null or absent; an unknown event's is not checked.
  const checked = knownType && !(type === TEST_EVENT && (reservation === null || reservation === undefined));
  if (checked) reservation = checkReservation(reservation, ['reservation'], issues);
  if (issues.list) return { ok: false, issues: issues.list };
  const event = withoutProtoKey(envelope);
  if (checkedId !== id) event.id = checkedId;
  if (checked && reservation !== envelope.reservation) event.reservation = reservation;
  return { ok: true, event };
}
