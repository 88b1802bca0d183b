/**
 * Restaurants' timezones a partner already knows, given to the client so that converting a booking's
 * `start_time` does not first spend a request (at one request per second, the list read on a cold
 * start costs a second before the first booking).
 * @module
 */
import { isKnownZone } from './internal/zone-time.js';
import { InputValidationError, type FieldIssue } from './errors.js';

const isIanaZone = (zone: unknown): zone is string =>
  typeof zone === 'string' && zone !== '' && isKnownZone(zone);
const RULE = "expected an IANA timezone such as 'Europe/Brussels'";

/** `zone` when it is a valid IANA timezone; else an {@link InputValidationError} naming `field`. */
export function checkTimezone(zone: unknown, field: string): string {
  if (isIanaZone(zone)) return zone;
  throw new InputValidationError([{ field, path: [field], code: 'invalid_timezone', message: RULE }]);
}

/**
 * The `restaurantTimezones` option (`{ [restaurantId]: zone }`) as cache entries, every zone checked;
 * the error names each bad entry (`restaurantTimezones.12`).
 */
export function checkRestaurantTimezones(option: unknown): [string, string][] {
  if (option === undefined) return [];
  const field = 'restaurantTimezones';
  if (typeof option !== 'object' || option === null || Array.isArray(option)) {
    throw new InputValidationError([
      { field, path: [field], code: 'invalid_option', message: "expected { [restaurantId]: 'Area/City' }" },
    ]);
  }
  const issues: FieldIssue[] = [];
  for (const [id, zone] of Object.entries(option)) {
    if (!isIanaZone(zone))
      issues.push({ field: `${field}.${id}`, path: [field, id], code: 'invalid_timezone', message: RULE });
  }
  if (issues.length > 0) throw new InputValidationError(issues);
  return Object.entries(option as Record<string, string>);
}
