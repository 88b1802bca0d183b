/**
 * The client converts `start_time` with `Intl` instead of luxon, so a partner's bundle carries
 * luxon only when the partner uses it. Nothing a partner sees may change: here the conversion is
 * held side by side with the luxon code it replaced (kept below as the reference), over zones with
 * every kind of rule (DST north and south, half-hour DST, 45-minute offsets, a zone that moved
 * across the date line) and over the days their clocks change.
 */
import fc from 'fast-check';
import { DateTime, IANAZone, Info } from 'luxon';
import { describe, expect, it } from 'vitest';
import { InputValidationError } from '../../src/errors.js';
import { startInstant, toServiceStartTime } from '../../src/start-time.js';
import { zoneOffset } from '../../src/internal/zone-time.js';
import { propertyRuns } from '../support/property-runs.js';

const ZONES = [
  'Europe/Brussels',
  'America/New_York',
  'America/Sao_Paulo',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Pacific/Apia',
  'Africa/Casablanca',
  'America/St_Johns',
  'UTC',
];
const runs = { numRuns: propertyRuns(400) };

// --- the luxon code the conversion replaced, as it was -------------------------------------------
const OFFSET_SUFFIX = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/;
const isoForm = (text: string): string => text.replace(/^(\d{4}-\d{2}-\d{2}) /, '$1T');
function refuse(message: string, code = 'invalid_start_time'): never {
  throw new InputValidationError([{ field: 'start_time', path: ['start_time'], code, message }]);
}
const formatServiceDateTime = (value: DateTime) =>
  value.set({ millisecond: 0 }).toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
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
  return candidate
    .getPossibleOffsets()
    .reduce((earliest, next) => (next.toMillis() < earliest.toMillis() ? next : earliest), candidate);
}
function partsOf(date: string, time: string) {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const [hour, minute, second = 0] = time.split(':').map(Number) as [number, number, number?];
  return { year, month, day, hour, minute, second: Math.floor(second) };
}
function luxonServiceStartTime(value: unknown, timezone: string | null): string {
  const zone = timezone ?? undefined;
  if (zone && !Info.normalizeZone(zone).isValid)
    refuse(`the restaurant's timezone "${zone}" is not a known IANA zone`);
  let instant: DateTime;
  if (DateTime.isDateTime(value)) instant = value;
  else if (value instanceof Date) instant = DateTime.fromJSDate(value);
  else if (typeof value === 'string' && OFFSET_SUFFIX.test(value))
    instant = DateTime.fromISO(isoForm(value), { setZone: true });
  else {
    const local = value as string | { date: string; time: string };
    const [date, time] =
      typeof local === 'string' ? (isoForm(local).split('T') as [string, string]) : [local.date, local.time];
    const parts = partsOf(date, (time ?? '00:00').replace(/[.,]\d+$/, ''));
    if (!zone) {
      const utc = DateTime.fromObject(parts, { zone: 'UTC' });
      if (!utc.isValid) refuse(`not a valid date-time: ${utc.invalidExplanation ?? ''}`);
      return utc.toFormat("yyyy-MM-dd'T'HH:mm:ss");
    }
    return formatServiceDateTime(fromLocal(parts, zone));
  }
  if (!instant.isValid)
    refuse(`not a valid date-time: ${instant.invalidExplanation ?? instant.invalidReason}`);
  return formatServiceDateTime(zone ? instant.setZone(zone) : instant);
}
function luxonStartMillis(text: string, timezone?: string | null): number {
  const iso = isoForm(text);
  if (OFFSET_SUFFIX.test(iso)) {
    const value = DateTime.fromISO(iso, { setZone: true });
    return (timezone ? value.setZone(timezone) : value).toMillis();
  }
  return DateTime.fromISO(iso, timezone ? { zone: timezone } : {}).toMillis();
}
// ---------------------------------------------------------------------------------------------------

const outcome = (run: () => string) => {
  try {
    return { sent: run() };
  } catch (error) {
    if (!(error instanceof InputValidationError)) throw error;
    return { refused: error.message, field: error.field, code: error.issues[0]?.code };
  }
};

const pad = (value: number, length = 2) => String(value).padStart(length, '0');
const zoneArb = fc.constantFrom(...ZONES);
// Instants from 1900 to 2100, and instants within a day of each clock change of 2020-2030.
const anyInstant = fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2100, 0, 1) });
const nearChange = fc
  .tuple(zoneArb, fc.integer({ min: 2020, max: 2030 }), fc.integer({ min: 0, max: 365 * 24 * 4 }))
  .map(([zone, year, quarterHours]) => {
    const start = Date.UTC(year, 0, 1) + quarterHours * 900_000;
    return { zone, instant: start };
  });
const wallText = fc
  .record({
    year: fc.integer({ min: 1990, max: 2040 }),
    month: fc.integer({ min: 1, max: 13 }),
    day: fc.integer({ min: 1, max: 31 }),
    hour: fc.integer({ min: 0, max: 24 }),
    minute: fc.constantFrom(0, 15, 30, 45, 59, 60),
    second: fc.constantFrom(0, 30, 59),
    fraction: fc.constantFrom('', '.5', ',250', '.999999'),
    separator: fc.constantFrom('T', ' '),
    offset: fc.constantFrom('', '', '', 'Z', 'z', '+01:00', '-0530', '+14', '-00:00', '+05:45'),
  })
  .map(
    (w) =>
      `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}${w.separator}${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}${w.fraction}${w.offset}`,
  );
// Local times on the days clocks change, every quarter hour: gaps and repeated hours.
const changeDayWall = fc
  .tuple(
    zoneArb,
    fc.constantFrom(
      '2026-03-08',
      '2026-03-29',
      '2026-04-05',
      '2026-09-27',
      '2026-10-04',
      '2026-10-25',
      '2026-11-01',
    ),
    fc.integer({ min: 0, max: 95 }),
  )
  .map(([zone, date, quarter]) => ({
    zone,
    date,
    time: `${pad(Math.floor(quarter / 4))}:${pad((quarter % 4) * 15)}`,
  }));

describe('start_time conversion without luxon, side by side with the luxon code it replaced', () => {
  it('reads each zone offset as luxon does, at any instant and around each clock change', () => {
    fc.assert(
      fc.property(zoneArb, anyInstant, (zone, instant) => {
        expect(zoneOffset(zone, instant)).toBe(IANAZone.create(zone).offset(instant));
      }),
      runs,
    );
    fc.assert(
      fc.property(nearChange, ({ zone, instant }) => {
        expect(zoneOffset(zone, instant)).toBe(IANAZone.create(zone).offset(instant));
      }),
      runs,
    );
  });

  it('sends and refuses exactly what it did, for strings with and without offset, in every zone and in none', () => {
    fc.assert(
      fc.property(wallText, fc.option(zoneArb), (text, zone) => {
        expect(outcome(() => toServiceStartTime(text, zone))).toEqual(
          outcome(() => luxonServiceStartTime(text, zone)),
        );
      }),
      runs,
    );
  });

  it('refuses the skipped hour and takes the first of a repeated one, as before, on each change day', () => {
    fc.assert(
      fc.property(changeDayWall, ({ zone, date, time }) => {
        const local = { date, time };
        expect(outcome(() => toServiceStartTime(local, zone))).toEqual(
          outcome(() => luxonServiceStartTime(local, zone)),
        );
      }),
      runs,
    );
  });

  it('converts a Date and a luxon DateTime as before, with and without a zone', () => {
    fc.assert(
      fc.property(anyInstant, fc.option(zoneArb), zoneArb, (instant, zone, ownZone) => {
        const date = new Date(instant);
        const luxon = DateTime.fromMillis(instant, { zone: ownZone });
        expect(toServiceStartTime(date, zone)).toBe(luxonServiceStartTime(date, zone));
        expect(toServiceStartTime(luxon, zone)).toBe(luxonServiceStartTime(luxon, zone));
      }),
      runs,
    );
  });

  it('reads a start_time as the same instant readStartTime gives, naive ones in the zone or the process zone', () => {
    const texts = fc.oneof(
      wallText,
      changeDayWall.map(({ date, time }) => `${date}T${time}:00`),
    );
    fc.assert(
      fc.property(texts, fc.option(fc.oneof(zoneArb, fc.constant('Not/AZone'))), (text, zone) => {
        expect(startInstant(text, zone)).toBe(luxonStartMillis(text, zone));
      }),
      runs,
    );
  });

  it('refuses a zone Intl does not know, naming start_time', () => {
    expect(outcome(() => toServiceStartTime('2026-12-05T19:30:00', 'Mars/Olympus_Mons'))).toEqual(
      outcome(() => luxonServiceStartTime('2026-12-05T19:30:00', 'Mars/Olympus_Mons')),
    );
  });
});
