/**
 * The public time helpers: the service's values read back as luxon values. A partner who does not
 * call them does not bundle luxon (the client converts with `Intl`, see start-time.ts).
 * @module
 */
import { DateTime, Duration } from 'luxon';

const OFFSET_SUFFIX = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/;

/** A date-time in the `T` form luxon's ISO reader takes (a service or a caller may write a space). */
const isoForm = (text: string): string => text.replace(/^(\d{4}-\d{2}-\d{2}) /, '$1T');

/**
 * A reservation's `start_time` as a luxon DateTime. With `timezone` (the restaurant's), the value
 * is shown in that zone, and a value without offset is read in it; without, the offset sent by
 * the service is kept.
 * @example readStartTime(reservation, restaurant.timezone).toFormat('ccc d LLL, HH:mm')
 */
export function readStartTime(reservation: { start_time: string }, timezone?: string | null): DateTime {
  const text = isoForm(reservation.start_time);
  if (OFFSET_SUFFIX.test(text)) {
    const value = DateTime.fromISO(text, { setZone: true });
    return timezone ? value.setZone(timezone) : value;
  }
  return DateTime.fromISO(text, timezone ? { zone: timezone } : {});
}

/**
 * A reservation's `duration` as a luxon Duration, whichever form the service used: ISO 8601
 * (`PT2H`) or `HH:MM:SS` (optionally with days: `1 02:00:00`). Null when absent.
 */
export function readDuration(reservation: { duration?: string | null | undefined }): Duration | null {
  const text = reservation.duration;
  if (text == null || text === '') return null;
  if (text.startsWith('P')) return Duration.fromISO(text);
  const match = /^(-)?(?:(\d+) )?(\d{1,2}):(\d{2}):(\d{2}(?:\.\d+)?)$/.exec(text);
  if (!match) return Duration.invalid('unparsable', `"${text}" is neither ISO 8601 nor HH:MM:SS`);
  const sign = match[1] ? -1 : 1;
  return Duration.fromObject({
    days: sign * Number(match[2] ?? 0),
    hours: sign * Number(match[3]),
    minutes: sign * Number(match[4]),
    seconds: sign * Number(match[5]),
  });
}

/** One of the `*_at` timestamps as a luxon DateTime keeping its offset; null when absent. */
export function readTimestamp(value: string | null | undefined): DateTime | null {
  if (value == null || value === '') return null;
  return DateTime.fromISO(isoForm(value), { setZone: true });
}
