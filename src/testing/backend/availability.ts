/**
 * Availability and time rules. The spec says a reservation "is created only if there is
 * availability" and that "all reservation start_time values are interpreted in this timezone"
 * (Restaurant.timezone); it does not say how availability is computed, so the fake derives it
 * from each restaurant's configuration (README, "Where the interface spec is silent"): weekly opening periods, slot
 * interval, duration by party size, capacity in covers across every channel, booking horizon and
 * minimum lead time.
 * @module
 */
import { DateTime, Duration } from 'luxon';
import type { AvailabilityConfig, ReservationRecord, RestaurantRecord } from './state.js';

/** The configuration a restaurant gets when none is given. */
export function defaultAvailability(): AvailabilityConfig {
  return {
    openingPeriods: [
      { days: [1, 2, 3, 4, 5, 6, 7], start: '12:00', end: '14:30' },
      { days: [1, 2, 3, 4, 5, 6, 7], start: '18:00', end: '22:30' },
    ],
    slotIntervalMinutes: 15,
    durations: [
      { maxPartySize: 2, duration: 'PT1H30M' },
      { maxPartySize: 6, duration: 'PT2H' },
      { maxPartySize: 100, duration: 'PT2H30M' },
    ],
    capacityCovers: 40,
    horizonDays: 90,
    minimumLeadTimeMinutes: 60,
  };
}

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const CLOCK_TIME = /^([01]\d|2[0-3]):([0-5]\d)$|^24:00$/;

/** Outcome of reading a `start_time`. */
export type StartTimeReading = { ok: true; millis: number } | { ok: false; message: string };

/** Weekday, minute of the day and whether the instant falls on a whole minute, in the zone. */
interface LocalParts {
  weekday: number;
  minuteOfDay: number;
  onWholeMinute: boolean;
}

/** Entries each memo of one world keeps, oldest dropped first. */
const MEMO_MAX = 4096;

/**
 * One world's time conversions, each remembered (a suite books the same few times again and
 * again, and luxon's zone look-ups are most of what a create costs: a create took about twice as
 * long without them). Pure functions of their arguments, kept by the world that asks, so they end
 * with it; bounded, oldest entries dropped first.
 */
export class ZoneTimes {
  readonly #startTimeReadings = new Map<string, StartTimeReading>();
  readonly #durationMinutes = new Map<string, number>();
  readonly #localParts = new Map<string, LocalParts>();
  readonly #formattedLocalTimes = new Map<string, string>();

  /**
   * Reads a `start_time` as the service does: a naive time is local to the restaurant's zone; a
   * time with an offset (or `Z`) is that instant, converted to the zone. A naive time that does
   * not exist in the zone (the hour skipped when clocks go forward) is refused; an ambiguous one
   * (the hour repeated when clocks go back) means its first occurrence, the earlier instant.
   */
  readStartTime(value: string, zone: string): StartTimeReading {
    return remembered(this.#startTimeReadings, `${zone} ${value}`, () => readStartTimeUncached(value, zone));
  }

  /**
   * The instant as the restaurant's local time with its offset, `2026-12-01T19:00:00+01:00`, whole
   * seconds (the documented form, even on a clock that follows real time). Every answer formats
   * every timestamp of every reservation it shows.
   */
  formatLocal(instant: number, zone: string): string {
    const millis = Math.floor(instant / 1000) * 1000;
    return remembered(this.#formattedLocalTimes, `${zone} ${millis}`, () =>
      DateTime.fromMillis(millis, { zone }).toISO({ suppressMilliseconds: true })!,
    );
  }

  localParts(instant: number, zone: string): LocalParts {
    return remembered(this.#localParts, `${zone} ${instant}`, () => {
      const local = DateTime.fromMillis(instant, { zone });
      return {
        weekday: local.weekday,
        minuteOfDay: local.hour * 60 + local.minute,
        onWholeMinute: local.second === 0 && local.millisecond === 0,
      };
    });
  }

  /** Minutes of an ISO 8601 duration (`PT1H30M`). */
  durationMinutes(duration: string): number {
    return remembered(this.#durationMinutes, duration, () => Duration.fromISO(duration).as('minutes'));
  }
}

function remembered<Value>(memo: Map<string, Value>, key: string, make: () => Value): Value {
  let value = memo.get(key);
  if (value === undefined) {
    value = make();
    if (memo.size >= MEMO_MAX) memo.delete(memo.keys().next().value!);
    memo.set(key, value);
  }
  return value;
}

function readStartTimeUncached(value: string, zone: string): StartTimeReading {
  const match = ISO_DATE_TIME.exec(value);
  if (!match) {
    return {
      ok: false,
      message: 'Datetime has wrong format. Use ISO 8601: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
    };
  }
  if (match[8] !== undefined) {
    const instant = DateTime.fromISO(value, { setZone: true });
    if (!instant.isValid) return { ok: false, message: `"${value}" is not a valid date-time.` };
    return { ok: true, millis: instant.toMillis() };
  }
  const wall = DateTime.fromISO(value, { zone: 'utc' });
  if (!wall.isValid) return { ok: false, message: `"${value}" is not a valid date-time.` };
  const local = DateTime.fromObject(
    {
      year: wall.year,
      month: wall.month,
      day: wall.day,
      hour: wall.hour,
      minute: wall.minute,
      second: wall.second,
      millisecond: wall.millisecond,
    },
    { zone },
  );
  if (!local.isValid || local.hour !== wall.hour || local.minute !== wall.minute || local.day !== wall.day) {
    return {
      ok: false,
      message: `${value} does not exist in ${zone}: the clocks skip that time (daylight saving time starts). Choose another time.`,
    };
  }
  // The repeated hour when clocks go back: luxon picks one of the two instants; the fake
  // documents the first occurrence (the earlier instant), so look for an earlier match.
  for (const shiftMinutes of [60, 30]) {
    const earlier = DateTime.fromMillis(local.toMillis() - shiftMinutes * 60_000, { zone });
    if (earlier.hour === wall.hour && earlier.minute === wall.minute && earlier.day === wall.day)
      return { ok: true, millis: earlier.toMillis() };
  }
  return { ok: true, millis: local.toMillis() };
}

/** Minutes as `PT1H30M` (ISO 8601) or `01:30:00`. */
export function formatDuration(minutes: number, form: 'iso' | 'hms'): string {
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (form === 'hms') return `${String(hours).padStart(2, '0')}:${String(rest).padStart(2, '0')}:00`;
  if (minutes === 0) return 'PT0S';
  return `PT${hours ? `${hours}H` : ''}${rest ? `${rest}M` : ''}`;
}

/** Checks an availability configuration; returns messages by field, empty when valid. */
export function checkAvailabilityConfig(config: AvailabilityConfig): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[`availability.${field}`] ??= []).push(message);
  if (!Array.isArray(config.openingPeriods))
    add('openingPeriods', 'Expected a list of { days, start, end }.');
  else {
    config.openingPeriods.forEach((period, index) => {
      if (
        !Array.isArray(period?.days) ||
        period.days.some((day) => !Number.isInteger(day) || day < 1 || day > 7)
      ) {
        add(`openingPeriods.${index}.days`, 'Expected ISO weekdays 1 (Monday) to 7 (Sunday).');
      }
      if (typeof period?.start !== 'string' || !CLOCK_TIME.test(period.start) || period.start === '24:00')
        add(`openingPeriods.${index}.start`, 'Expected HH:MM.');
      if (typeof period?.end !== 'string' || !CLOCK_TIME.test(period.end))
        add(`openingPeriods.${index}.end`, 'Expected HH:MM (24:00 allowed).');
      else if (typeof period.start === 'string' && minutesOf(period.end) <= minutesOf(period.start))
        add(`openingPeriods.${index}.end`, 'Must be after start (periods do not cross midnight).');
    });
  }
  const positiveInteger = (field: keyof AvailabilityConfig, min: number) => {
    const value = config[field];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
      add(field, `Expected an integer >= ${min}.`);
  };
  positiveInteger('slotIntervalMinutes', 1);
  positiveInteger('capacityCovers', 0);
  positiveInteger('horizonDays', 0);
  positiveInteger('minimumLeadTimeMinutes', 0);
  if (!Array.isArray(config.durations) || config.durations.length === 0)
    add('durations', 'Expected a non-empty list of { maxPartySize, duration }.');
  else {
    config.durations.forEach((rule, index) => {
      if (!Number.isInteger(rule?.maxPartySize) || rule.maxPartySize < 1)
        add(`durations.${index}.maxPartySize`, 'Expected an integer >= 1.');
      const duration = typeof rule?.duration === 'string' ? Duration.fromISO(rule.duration) : undefined;
      if (!duration?.isValid || duration.as('minutes') <= 0 || !Number.isInteger(duration.as('minutes'))) {
        add(
          `durations.${index}.duration`,
          'Expected an ISO 8601 duration in whole minutes, for example PT1H30M.',
        );
      }
    });
  }
  return errors;
}

function minutesOf(clockTime: string): number {
  const [hours, minutes] = clockTime.split(':').map(Number);
  return hours! * 60 + minutes!;
}

/** Minutes the table is held for a party of this size, or undefined when no rule covers it. */
function durationFor(config: AvailabilityConfig, partySize: number, times: ZoneTimes): number | undefined {
  const rule = [...config.durations]
    .sort((a, b) => a.maxPartySize - b.maxPartySize)
    .find((candidate) => partySize <= candidate.maxPartySize);
  return rule && times.durationMinutes(rule.duration);
}

/** Outcome of an availability check. */
export type AvailabilityResult =
  { available: true; durationMinutes: number } | { available: false; reason: string };

/** What is asked for. */
export interface AvailabilityRequest {
  start: number;
  partySize: number;
  now: number;
  /** The reservation being modified, left out of the capacity count. */
  excludeReservationId?: number;
  /** Lead time and horizon bind partner and guest bookings; the restaurant may override them. */
  enforceLeadTimeAndHorizon: boolean;
}

/** Whether the restaurant can seat this party at this time, counting covers of every channel. */
export function checkAvailability(
  restaurant: RestaurantRecord,
  request: AvailabilityRequest,
  /** The restaurant's reservations holding a table at some instant in [from, to). */
  holdingTables: (from: number, to: number) => Iterable<ReservationRecord>,
  times: ZoneTimes,
): AvailabilityResult {
  const config = restaurant.availability;
  const durationMinutes = durationFor(config, request.partySize, times);
  if (durationMinutes === undefined)
    return { available: false, reason: `No table for a party of ${request.partySize}.` };
  if (request.enforceLeadTimeAndHorizon) {
    if (request.start < request.now + config.minimumLeadTimeMinutes * 60_000) {
      return {
        available: false,
        reason: `Reservations must start at least ${config.minimumLeadTimeMinutes} minutes from now.`,
      };
    }
    if (request.start > request.now + config.horizonDays * 86_400_000) {
      return {
        available: false,
        reason: `Reservations can be made at most ${config.horizonDays} days ahead.`,
      };
    }
  }
  const local = times.localParts(request.start, restaurant.timezone);
  const minuteOfDay = local.minuteOfDay;
  const onGrid =
    local.onWholeMinute &&
    config.openingPeriods.some((period) => {
      const start = minutesOf(period.start);
      return (
        period.days.includes(local.weekday) &&
        minuteOfDay >= start &&
        minuteOfDay < minutesOf(period.end) &&
        (minuteOfDay - start) % config.slotIntervalMinutes === 0
      );
    });
  if (!onGrid)
    return {
      available: false,
      reason: 'The restaurant takes no reservation at that time (closed, or not on a slot).',
    };

  const end = request.start + durationMinutes * 60_000;
  // Covers seated at once, swept over [start, end): each overlapping reservation adds its party
  // from when it is seated (or the new start) and takes it away when its table frees up.
  const changes: [at: number, covers: number][] = [];
  for (const other of holdingTables(request.start, end)) {
    if (
      other.restaurantId !== restaurant.id ||
      other.id === request.excludeReservationId ||
      other.cancelledAt !== null ||
      other.noShowAt !== null
    )
      continue;
    const otherEnd = other.start + other.durationMinutes * 60_000;
    if (other.start >= end || otherEnd <= request.start) continue;
    const covers = other.adults + other.children;
    changes.push([Math.max(other.start, request.start), covers]);
    if (otherEnd < end) changes.push([otherEnd, -covers]);
  }
  // At one instant a table freed counts before one taken (a reservation ending at 20:00 and one starting then do not overlap).
  changes.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const full = { available: false, reason: 'The restaurant is fully booked at that time.' } as const;
  if (request.partySize > config.capacityCovers) return full;
  let seated = 0;
  for (const [, covers] of changes) {
    seated += covers;
    if (seated + request.partySize > config.capacityCovers) return full;
  }
  return { available: true, durationMinutes };
}
