/**
 * The open points of the interface: one key per answer the live service may give in more than
 * one plausible form. The same keys name the fake's dialect switches, the points `doctor` learns
 * and writes to `partner-dialect.json`, and what `PartnerClient({ dialect })` watches.
 * @module
 */

/** Every point with its values, the fake's default first. */
export const DIALECT_POINT_VALUES = {
  list: ['envelope', 'array'],
  profile: ['object', 'list'],
  duration: ['iso', 'hms'],
  createStatus: [201, 200],
  deleteStatus: [204, 200],
  cancelBody: ['reservation', 'empty'],
  pageLinks: ['absolute', 'relative'],
  idempotencyKey: ['honoured', 'ignored'],
  webhookTokenField: ['auth_token', 'token', 'secret', 'authToken'],
  errorBody: ['detail', 'message', 'error', 'errors', 'empty'],
  noAvailabilityStatus: [409, 422, 400],
  badInputStatus: [400, 422],
  dateTimeForm: ['offset', 'utc', 'fraction', 'compact', 'space', 'minutes'],
  retryAfter: ['seconds', 'date', 'none'],
} as const;

/** The name of one open point. */
export type DialectPoint = keyof typeof DIALECT_POINT_VALUES;

/** The value of each point. */
export type DialectPointValues = {
  -readonly [Key in DialectPoint]: (typeof DIALECT_POINT_VALUES)[Key][number];
};

/** Every point, in a fixed order (the file, `--help` and the docs list them this way). */
export const DIALECT_POINTS = Object.keys(DIALECT_POINT_VALUES) as DialectPoint[];

/** What each point decides. */
export const DIALECT_POINT_DESCRIPTIONS: { readonly [Key in DialectPoint]: string } = {
  list: 'reservation list: `{count, next, previous, results}` paged by `page`/`page_size`, or a bare array of every item',
  profile: "profile: one object (the spec's example) or a one-element list (the spec's prose)",
  duration: 'reservation `duration`: `PT2H` or `02:00:00`',
  createStatus: 'status of a successful reservation or webhook create',
  deleteStatus: 'status of a webhook delete (no body either way)',
  cancelBody: 'cancel answer: 200 with the reservation, or 204 without a body',
  pageLinks: 'envelope `next`/`previous`: absolute URLs or path and query',
  idempotencyKey:
    '`Idempotency-Key` on creates: the same key and body replay the first answer, or every POST books anew',
  webhookTokenField: "the field of a webhook's token in the create and regenerate answers",
  errorBody:
    'error answers: `{"detail": ...}`, `{"message": ...}`, `{"error": ...}` (field maps beside each), `{"errors": [{"message", "code"?}]}`, or no body',
  noAvailabilityStatus: 'status of a create refused for no availability',
  badInputStatus: 'status of a request refused for its input (with a field map)',
  dateTimeForm:
    'reservation date-times: `2026-12-05T19:30:00+01:00` (offset), `...T18:30:00Z` (utc), `...T19:30:00.000000+01:00` (fraction), `...T19:30:00+0100` (compact), `2026-12-05 19:30:00+01:00` (space), `...T19:30+01:00` (minutes)',
  retryAfter: '`Retry-After` of a 429: whole seconds, an HTTP date, or none',
};

/** True when `key` names a point. */
export const isDialectPoint = (key: string): key is DialectPoint => Object.hasOwn(DIALECT_POINT_VALUES, key);

/** The point's value matching `raw` (a string from a command line matches a number), or undefined. */
export function pointValue<Key extends DialectPoint>(
  key: Key,
  raw: unknown,
): DialectPointValues[Key] | undefined {
  return (DIALECT_POINT_VALUES[key] as unknown as readonly DialectPointValues[Key][]).find(
    (candidate) => String(candidate) === String(raw),
  );
}
