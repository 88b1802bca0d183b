/**
 * Wall-clock arithmetic in IANA timezones with the platform's `Intl`, for the conversions every
 * booking makes. luxon (22 KB gzip, a third of a partner's bundle) stays for the public `read*`
 * helpers, which return luxon values; the client itself never loads it. Each rule here is luxon's
 * own (its offset reading, its choice of offset for a local time, its validity rules and messages),
 * so what the client sends and refuses did not change; test/client/zone-time.property.test.ts
 * holds the two side by side.
 * @module
 */

/** A date and a wall-clock time, as luxon's objects carry them. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond?: number | undefined;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/*
 * One formatter per zone, built on first use and kept for the process: a cache of objects the
 * platform builds, holding a zone's name and nothing of any partner or call. Building one costs
 * about 25 times what reading the wall clock with it costs, and converting one booking's start
 * time reads it up to ten times: 0.1-0.3 ms a conversion with the cache, 2.7-5.2 ms without
 * (measured on a loaded 2-core machine). Every client of the process converts with the same zones.
 * Zones are looked up by name from answers and options; a bound keeps odd names from piling up.
 */
const MAX_FORMATTERS = 64;
const formatters = new Map<string, Intl.DateTimeFormat>();

/** luxon's formatter for reading a zone's wall clock (it throws for a zone `Intl` does not know). */
function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      hour12: false,
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      era: 'short',
    });
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** Whether `Intl` knows `zone` (luxon's `IANAZone.isValidZone`). */
export function isKnownZone(zone: string): boolean {
  if (!zone) return false;
  try {
    formatterFor(zone).format();
    return true;
  } catch {
    return false;
  }
}

/** Milliseconds of a wall time read as UTC (luxon's `objToLocalTS`, years 0-99 included). */
export function wallMillis(wall: WallTime): number {
  const { year, month, day, hour, minute, second, millisecond = 0 } = wall;
  let millis = Date.UTC(year, month - 1, day, hour, minute, second, millisecond);
  if (year < 100 && year >= 0) {
    const date = new Date(millis);
    date.setUTCFullYear(year, month - 1, day);
    millis = +date;
  }
  return millis;
}

/** The zone's offset from UTC at `millis`, in minutes (luxon's `IANAZone.offset`). */
export function zoneOffset(zone: string, millis: number): number {
  const date = new Date(millis);
  if (Number.isNaN(+date)) return Number.NaN;
  const parts: Record<string, string> = {};
  for (const part of formatterFor(zone).formatToParts(date)) parts[part.type] = part.value;
  let year = Number(parts.year);
  if (parts.era === 'BC' || parts.era === 'B') year = -Math.abs(year) + 1;
  const hour = Number(parts.hour);
  const asUtc = wallMillis({
    year,
    month: Number(parts.month),
    day: Number(parts.day),
    hour: hour === 24 ? 0 : hour,
    minute: Number(parts.minute),
    second: Number(parts.second),
  });
  const over = millis % 1000;
  return (asUtc - (millis - (over >= 0 ? over : 1000 + over))) / MINUTE_MS;
}

/** The process's own zone's offset at `millis`, in minutes (luxon's system zone). */
export const systemOffset = (millis: number): number => -new Date(millis).getTimezoneOffset();

/**
 * The instant of a local time and its offset, as luxon chooses it (its `fixOffset`, starting from
 * the zone's offset now): a skipped time moves forward by the gap, and which of two repeated
 * times is taken follows luxon. `zone` is an IANA name, or undefined for the process's own zone.
 */
export function localToInstant(wall: WallTime, zone: string | undefined, now = Date.now()): [number, number] {
  const offsetAt = (millis: number) => (zone === undefined ? systemOffset(millis) : zoneOffset(zone, millis));
  const local = wallMillis(wall);
  const guess = offsetAt(now);
  let utc = local - guess * MINUTE_MS;
  const second = offsetAt(utc);
  if (guess === second) return [utc, guess];
  utc -= (second - guess) * MINUTE_MS;
  const third = offsetAt(utc);
  if (second === third) return [utc, second];
  return [local - Math.min(second, third) * MINUTE_MS, Math.max(second, third)];
}

/** Every instant a local time names in `zone` (two when the clocks go back), as luxon's `getPossibleOffsets`. */
export function possibleInstants(instant: number, offset: number, zone: string): number[] {
  const local = instant + offset * MINUTE_MS;
  const earlier = zoneOffset(zone, local - DAY_MS);
  const later = zoneOffset(zone, local + DAY_MS);
  const first = zoneOffset(zone, local - earlier * MINUTE_MS);
  const next = zoneOffset(zone, local - later * MINUTE_MS);
  return first === next ? [instant] : [local - first * MINUTE_MS, local - next * MINUTE_MS];
}

/** The wall time at `instant` with `offset` minutes (luxon's `tsToObj`). */
export function wallAt(instant: number, offset: number): WallTime {
  const date = new Date(instant + offset * MINUTE_MS);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
    millisecond: date.getUTCMilliseconds(),
  };
}

const pad = (value: number, length = 2) => String(Math.trunc(Math.abs(value))).padStart(length, '0');

/** `+01:00`, as luxon's `ZZ` writes an offset (never `Z`). */
export function formatOffset(offset: number): string {
  return `${offset >= 0 ? '+' : '-'}${pad(offset / 60)}:${pad(offset % 60)}`;
}

/** `2026-12-05T19:30:00`, whole seconds (luxon's `yyyy-MM-dd'T'HH:mm:ss`). */
export function formatWall(wall: WallTime): string {
  const year = wall.year < 0 ? `-${pad(wall.year, 4)}` : pad(wall.year, 4);
  return `${year}-${pad(wall.month)}-${pad(wall.day)}T${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}`;
}

const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const daysInMonth = (year: number, month: number) =>
  month === 2 ? (isLeapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
const between = (value: number, low: number, high: number) =>
  Number.isInteger(value) && value >= low && value <= high;
const outOfRange = (unit: string, value: number) =>
  `you specified ${value} (of type number) as a ${unit}, which is invalid`;

/** Why a wall time is not a date-time, in luxon's words; undefined when it is one. */
export function invalidWall(wall: WallTime): string | undefined {
  const { year, month, day, hour, minute, second, millisecond = 0 } = wall;
  if (!Number.isInteger(year)) return outOfRange('year', year);
  if (!between(month, 1, 12)) return outOfRange('month', month);
  if (!between(day, 1, daysInMonth(year, month))) return outOfRange('day', day);
  if (!(between(hour, 0, 23) || (hour === 24 && minute === 0 && second === 0 && millisecond === 0)))
    return outOfRange('hour', hour);
  if (!between(minute, 0, 59)) return outOfRange('minute', minute);
  if (!between(second, 0, 59)) return outOfRange('second', second);
  if (!between(millisecond, 0, 999)) return outOfRange('millisecond', millisecond);
  return undefined;
}

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([zZ])|([+-]\d{2})(?::?(\d{2}))?)?$/;

/** An ISO 8601 date-time as the service's pattern allows it: its wall time and its offset in minutes (undefined: none). */
export function parseIso(text: string): { wall: WallTime; offset: number | undefined } | undefined {
  const match = ISO_DATE_TIME.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction, zulu, offsetHour, offsetMinute] = match;
  const hours = Number(offsetHour);
  const minutes = Number(offsetMinute ?? 0);
  const offset =
    zulu !== undefined
      ? 0
      : offsetHour === undefined
        ? undefined
        : hours * 60 + (offsetHour.startsWith('-') ? -minutes : minutes);
  return {
    wall: {
      year: Number(year),
      month: Number(month),
      day: Number(day),
      hour: Number(hour),
      minute: Number(minute),
      second: Number(second ?? 0),
      millisecond: fraction === undefined ? 0 : Math.floor(Number(`0.${fraction}`) * 1000),
    },
    offset,
  };
}
