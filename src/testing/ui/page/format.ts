/**
 * Times as a restaurant reads them. The fake answers start times as local wall time with the
 * zone's offset (`2026-11-25T19:00:00+01:00`), so the wall time is read from the string itself.
 * @module
 */

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const ISO_DAYS = ['', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** `Tue 25 Nov 2026, 19:00 (UTC+01:00)` from the fake's local-with-offset form. */
export function formatLocalTime(value: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(
    value,
  );
  if (!match) return value;
  const [, year, month, day, time, offset] = match;
  const weekday = WEEKDAYS[new Date(Date.UTC(Number(year), Number(month) - 1, Number(day))).getUTCDay()];
  const zone = !offset || offset === 'Z' ? 'UTC' : `UTC${offset}`;
  return `${weekday} ${Number(day)} ${MONTHS[Number(month) - 1]} ${year}, ${time} (${zone})`;
}

/** The `YYYY-MM-DDTHH:MM` a `datetime-local` field holds, from the fake's local-with-offset form. */
export const toLocalInput = (value: string): string => value.slice(0, 16);

/** Wall-clock parts of an instant in a zone. */
function partsIn(instant: number, timeZone: string): Record<string, string> {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(instant);
  return Object.fromEntries(parts.map((part) => [part.type, part.value]));
}

/** `2026-11-23 07:41:05` in the zone. */
export function wallTime(instant: number, timeZone: string): string {
  const parts = partsIn(instant, timeZone);
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}

/** A sensible default for a new booking: `days` ahead of `instant` at `time`, in the zone. */
export function localInputDaysAhead(instant: number, timeZone: string, days: number, time: string): string {
  const parts = partsIn(instant, timeZone);
  const date = new Date(Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day) + days));
  return `${date.toISOString().slice(0, 10)}T${time}`;
}

/** `Mon-Sun 12:00-14:30` for one opening period. */
export function describeOpeningPeriod(period: { days: number[]; start: string; end: string }): string {
  const days = [...period.days].sort((a, b) => a - b);
  const contiguous = days.every((day, index) => index === 0 || day === days[index - 1]! + 1);
  const dayText =
    days.length > 2 && contiguous
      ? `${ISO_DAYS[days[0]!]}-${ISO_DAYS[days.at(-1)!]}`
      : days.map((day) => ISO_DAYS[day]).join(', ');
  return `${dayText} ${period.start}-${period.end}`;
}

/** `1 request per second`, `2.5 requests per second` or `off`. */
export const describeRate = (rate: number | false): string =>
  rate === false ? 'off' : `${rate} request${rate === 1 ? '' : 's'} per second per partner`;
