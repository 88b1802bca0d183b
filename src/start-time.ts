/**
 * A booking's `start_time` as the service expects it, and a `start_time` as an instant. The spec
 * reads every `start_time` in the restaurant's timezone, so the client converts what the caller
 * gives into restaurant-local ISO 8601 with the offset. Without luxon (see zone-time.ts): a
 * partner's bundle carries luxon only if the partner uses it.
 *
 * Choices where the spec is silent:
 * - A local time that does not exist in the restaurant's zone (the hour skipped when clocks go
 *   forward) is refused with an {@link InputValidationError} on `start_time`.
 * - A local time that occurs twice (the hour repeated when clocks go back) is read as its first
 *   occurrence, the earlier instant (the summer-time offset).
 * - The string sent carries whole seconds and the offset: `2026-12-05T19:30:00+01:00`.
 * @module
 */
import type { DateTime } from 'luxon';
import { InputValidationError } from './errors.js';
import type { StartTimeInput } from './resources/reservations.schemas.js';
import {
  formatOffset,
  formatWall,
  invalidWall,
  isKnownZone,
  localToInstant,
  parseIso,
  possibleInstants,
  systemOffset,
  wallAt,
  wallMillis,
  zoneOffset,
  type WallTime,
} from './zone-time.js';

function refuse(message: string, code = 'invalid_start_time'): never {
  throw new InputValidationError([{ field: 'start_time', path: ['start_time'], code, message }]);
}

/** `instant` in `zone` (the process's own when none), whole seconds, with the offset. */
function inZone(instant: number, zone: string | undefined): string {
  const offset = zone === undefined ? systemOffset(instant) : zoneOffset(zone, instant);
  return `${formatWall(wallAt(instant, offset))}${formatOffset(offset)}`;
}

/** Reads a local wall-clock time in `zone`, refusing a DST gap and taking the first of two. */
function fromLocal(wall: WallTime, zone: string): string {
  const invalid = invalidWall(wall);
  if (invalid) refuse(`cannot read ${JSON.stringify(wall)} in ${zone}: ${invalid}`);
  const [instant, offset] = localToInstant(wall, zone);
  const found = wallAt(instant, offset);
  if (found.hour !== wall.hour || found.minute !== wall.minute || found.day !== wall.day) {
    const wanted = `${String(wall.hour).padStart(2, '0')}:${String(wall.minute).padStart(2, '0')}`;
    refuse(
      `${wanted} does not exist on that day in ${zone} (the clocks skip it for daylight saving time)`,
      'nonexistent_local_time',
    );
  }
  return inZone(Math.min(...possibleInstants(instant, offset, zone)), zone);
}

const isLuxon = (value: unknown): value is DateTime =>
  typeof value === 'object' &&
  value !== null &&
  (value as { isLuxonDateTime?: unknown }).isLuxonDateTime === true;

/**
 * Converts any accepted `start_time` into what the service expects: the restaurant's local time
 * with its offset. With no timezone known, a local time is sent as is (the service reads it in
 * the restaurant's zone, per the spec) and an instant keeps its own offset.
 */
export function toServiceStartTime(value: StartTimeInput, timezone: string | null | undefined): string {
  const zone = timezone ?? undefined;
  if (zone && !isKnownZone(zone)) refuse(`the restaurant's timezone "${zone}" is not a known IANA zone`);
  // The caller's own luxon value converts itself: no luxon of ours is needed.
  if (isLuxon(value)) {
    const instant = (zone ? value.setZone(zone) : value).set({ millisecond: 0 });
    if (!instant.isValid)
      refuse(`not a valid date-time: ${instant.invalidExplanation ?? instant.invalidReason}`);
    return instant.toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
  }
  if (value instanceof Date) return inZone(value.getTime(), zone);
  const text = typeof value === 'string' ? value : `${value.date}T${value.time}`;
  const parsed = parseIso(text);
  if (!parsed) return refuse(`not a valid date-time: "${text}"`);
  const { wall, offset } = parsed;
  if (offset === undefined) {
    // A fraction is dropped: the time sent carries whole seconds.
    const { year, month, day, hour, minute, second } = wall;
    const local = { year, month, day, hour, minute, second };
    if (zone) return fromLocal(local, zone);
    const invalid = invalidWall(local);
    if (invalid) refuse(`not a valid date-time: ${invalid}`);
    return formatWall(wallAt(wallMillis(local), 0));
  }
  const invalid = invalidWall(wall);
  if (invalid) refuse(`not a valid date-time: ${invalid}`);
  const instant = wallMillis(wall) - offset * 60_000;
  if (zone) return inZone(instant, zone);
  return `${formatWall(wallAt(instant, offset))}${formatOffset(offset)}`;
}

/**
 * A `start_time` as epoch milliseconds, read as `readStartTime` reads it: its own offset, or
 * without one in `timezone` (the process's own zone when none). NaN when it cannot be read.
 */
export function startInstant(text: string, timezone?: string | null): number {
  const parsed = parseIso(text);
  if (!parsed || invalidWall(parsed.wall) || (timezone && !isKnownZone(timezone))) return Number.NaN;
  const { wall, offset } = parsed;
  if (offset !== undefined) return wallMillis(wall) - offset * 60_000;
  return localToInstant(wall, timezone || undefined)[0];
}
