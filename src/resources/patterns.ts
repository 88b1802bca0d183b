/**
 * The text patterns of the shared schemas, in a module of their own so the webhook receiver's
 * fast path checks exactly what the schemas check, without adding public names.
 * @module
 */

/** What `ServiceDateTimeString` accepts. */
export const SERVICE_DATE_TIME_PATTERN =
  /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:[zZ]|[+-]\d{2}(?::?\d{2})?)?$/;
/** What `DurationString` accepts. */
export const DURATION_PATTERN =
  /^(?:P(?!$)(?:\d+(?:\.\d+)?[YMWD])*(?:T(?=\d)(?:\d+(?:\.\d+)?[HMS])*)?|-?(?:\d+ )?\d{1,2}:\d{2}:\d{2}(?:\.\d+)?)$/;
