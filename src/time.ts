/**
 * Time helpers. The spec reads every `start_time` in the restaurant's timezone, so the client
 * converts what the caller gives into restaurant-local ISO 8601 with the offset, and these helpers
 * read the service's values back as luxon values.
 *
 * Choices where the spec is silent:
 * - A local time that does not exist in the restaurant's zone (the hour skipped when clocks go
 *   forward) is refused with an {@link InputValidationError} on `start_time`.
 * - A local time that occurs twice (the hour repeated when clocks go back) is read as its first
 *   occurrence, the earlier instant (the summer-time offset).
 * - The string sent carries whole seconds and the offset: `2026-12-05T19:30:00+01:00`.
 * @module
 */
import { DateTime, Duration, Info } from 'luxon';
import { InputValidationError } from './errors.js';
import type { StartTimeInput } from './resources/reservations.schemas.js';

const OFFSET_SUFFIX = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/;

function refuse(message: string, code = 'invalid_start_time'): never {
  throw new InputValidationError([{ field: 'start_time', path: ['start_time'], code, message }]);
}

/** Whole seconds, offset always numeric (`+00:00`, not `Z`), as the spec's examples write it. */
function formatServiceDateTime(value: DateTime): string {
  return value.set({ millisecond: 0 }).toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
}

/** Reads a local wall-clock time in `zone`, refusing a DST gap and taking the first of two. */
function fromLocal(
  parts: { year: number; month: number; day: number; hour: number; minute: number; second: number },
  zone: string,
): DateTime {
  const candidate = DateTime.fromObject(parts, { zone });
  if (!candidate.isValid)
    refuse(
      `cannot read ${JSON.stringify(parts)} in ${zone}: ${candidate.invalidExplanation ?? candidate.invalidReason}`,
    );
  if (candidate.hour !== parts.hour || candidate.minute !== parts.minute || candidate.day !== parts.day) {
    const wanted = `${String(parts.hour).padStart(2, '0')}:${String(parts.minute).padStart(2, '0')}`;
    refuse(
      `${wanted} does not exist on that day in ${zone} (the clocks skip it for daylight saving time)`,
      'nonexistent_local_time',
    );
  }
  const occurrences = candidate.getPossibleOffsets();
  return occurrences.reduce(
    (earliest, next) => (next.toMillis() < earliest.toMillis() ? next : earliest),
    candidate,
  );
}

/** A date-time in the `T` form luxon's ISO reader takes (a service or a caller may write a space). */
const isoForm = (text: string): string => text.replace(/^(\d{4}-\d{2}-\d{2}) /, '$1T');

function partsOf(date: string, time: string) {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const [hour, minute, second = 0] = time.split(':').map(Number) as [number, number, number?];
  return { year, month, day, hour, minute, second: Math.floor(second) };
}

/**
 * Converts any accepted `start_time` into what the service expects: the restaurant's local time
 * with its offset. With no timezone known, a local time is sent as is (the service reads it in
 * the restaurant's zone, per the spec) and an instant keeps its own offset.
 */
export function toServiceStartTime(value: StartTimeInput, timezone: string | null | undefined): string {
  const zone = timezone ?? undefined;
  if (zone && !Info.normalizeZone(zone).isValid)
    refuse(`the restaurant's timezone "${zone}" is not a known IANA zone`);
  let instant: DateTime;
  if (DateTime.isDateTime(value)) instant = value;
  else if (value instanceof Date) instant = DateTime.fromJSDate(value);
  else if (typeof value === 'string' && OFFSET_SUFFIX.test(value))
    instant = DateTime.fromISO(isoForm(value), { setZone: true });
  else {
    const [date, time] =
      typeof value === 'string' ? (isoForm(value).split('T') as [string, string]) : [value.date, value.time];
    const parts = partsOf(date, (time ?? '00:00').replace(/[.,]\d+$/, ''));
    if (!zone) {
      const local = DateTime.fromObject(parts, { zone: 'UTC' });
      if (!local.isValid) refuse(`not a valid date-time: ${local.invalidExplanation ?? ''}`);
      return local.toFormat("yyyy-MM-dd'T'HH:mm:ss");
    }
    return formatServiceDateTime(fromLocal(parts, zone));
  }
  if (!instant.isValid)
    refuse(`not a valid date-time: ${instant.invalidExplanation ?? instant.invalidReason}`);
  return formatServiceDateTime(zone ? instant.setZone(zone) : instant);
}

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
