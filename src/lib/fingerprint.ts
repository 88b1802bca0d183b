/**
 * The fingerprint of a booking's input: what the ledger compares to tell a repeat of the same
 * booking from a key reused for another one, and how a booking found under the key is compared
 * with the input.
 * @module
 */
import type { Reservation, ReservationCreateBody } from '../resources/reservations.schemas.js';
import { GUEST_FIELDS } from '../resources/reservation-fields.js';
import { startInstant } from '../start-time.js';

/**
 * The booking's input as the ledger compares it: restaurant, `start_time` as an instant (UTC),
 * adults, children (0 when omitted) and the guest fields the caller sent. Canonical JSON, so equal
 * input gives an equal string and the fields that differ can be named.
 */
export function fingerprintOf(
  restaurantId: number | string,
  parsed: ReservationCreateBody,
  startInstant: string,
): string {
  const fields: Record<string, unknown> = {
    restaurant: String(restaurantId),
    start_time: startInstant,
    adults: parsed.adults,
    children: parsed.children ?? 0,
  };
  for (const field of GUEST_FIELDS) if (parsed[field] !== undefined) fields[field] = parsed[field];
  return JSON.stringify(fields);
}

/** The fields two fingerprints disagree on. */
export function differingFields(first: string, second: string): string[] {
  let a: Record<string, unknown>;
  let b: Record<string, unknown>;
  try {
    a = JSON.parse(first) as Record<string, unknown>;
    b = JSON.parse(second) as Record<string, unknown>;
  } catch {
    return ['(input)'];
  }
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  const differing = names.filter((name) => JSON.stringify(a[name]) !== JSON.stringify(b[name]));
  return differing.length > 0 ? differing : ['(input)'];
}

// Guest fields as a service may store them: trimmed, case-folded, a phone number by its digits.
const comparable = (field: string, value: unknown) =>
  typeof value !== 'string'
    ? value
    : field === 'phone'
      ? value.replace(/[^\d+]/g, '')
      : value.trim().toLowerCase();

/** The fields in which a reservation found under the key differs from this create's input. */
export function fieldsDifferingFrom(
  found: Reservation,
  parsed: ReservationCreateBody,
  startMillis: number,
  timezone: string | null,
): string[] {
  const differing: string[] = [];
  if (startInstant(found.start_time, timezone) !== startMillis) differing.push('start_time');
  if (found.adults !== undefined && found.adults !== parsed.adults) differing.push('adults');
  if (found.children != null && found.children !== (parsed.children ?? 0)) differing.push('children');
  for (const field of GUEST_FIELDS) {
    const sent = parsed[field];
    const stored = found[field];
    if (sent === undefined || stored == null) continue;
    if (comparable(field, sent) !== comparable(field, stored)) differing.push(field);
  }
  return differing;
}

/** A digest of the fingerprint, stored in the booking's metadata (no guest data in clear). */
export async function digestOf(fingerprint: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(fingerprint)));
  return Array.from(bytes.subarray(0, 16), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
