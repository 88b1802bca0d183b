/**
 * The fake's memory, bounded in bytes: counts of records alone let a suite that books at the
 * largest field sizes hold gigabytes (200,000 bookings of 10,000 emoji comments and 16 KiB of
 * metadata). Each world (the fake, each sandbox) holds at most {@link DEFAULT_WORLD_BYTES}, and
 * the worlds of one server together {@link DEFAULT_TOTAL_BYTES}; a write past either is refused
 * with a 409 naming the limit.
 *
 * The bytes are an estimate fitted to measured heap (Node 24, `--expose-gc`, a booking made over
 * the partner API with an `Idempotency-Key`, then read once): 1.9 kB for a small booking, 187 kB
 * at the largest sizes in ASCII, 348 kB in emoji (strings of two-byte characters), where the
 * estimate says 2.2 kB, 210 kB and 380 kB. It counts the record, its cached wire form and its
 * idempotency entry, so it errs on the safe side.
 * @module
 */
import { TEXT_CREATE_FIELDS } from '../../resources/reservation-fields.js';
import type { FakeError } from './fake-error.js';
import { limitReached } from './world-limits.js';
import type { DeliveryLogEntry, PendingDelivery, ReservationRecord } from './state.js';

/** Bytes one world may hold by default (256 MiB): about 120,000 small bookings, or 700 at the largest sizes. */
export const DEFAULT_WORLD_BYTES = 256 * 1024 * 1024;
/** Bytes all the worlds of one server (the fake and its sandboxes) may hold together by default (1 GiB). */
export const DEFAULT_TOTAL_BYTES = 1024 * 1024 * 1024;
/** The delivery log keeps at most this share of its world's bytes (oldest attempts dropped first). */
export const DELIVERY_LOG_SHARE = 1 / 16;

/** Memory limits of a fake, in bytes (see {@link DEFAULT_WORLD_BYTES}). */
export interface MemoryLimits {
  /** Bytes one world (the fake, or one sandbox) may hold. Default 256 MiB. */
  worldBytes?: number;
  /** Bytes the fake and its sandboxes may hold together. Default 1 GiB. */
  totalBytes?: number;
}

/** Checks limits given from code or the command line; a bad one throws a RangeError naming it. */
export function resolveMemoryLimits(limits: MemoryLimits = {}): Required<MemoryLimits> {
  const resolved = {
    worldBytes: limits.worldBytes ?? DEFAULT_WORLD_BYTES,
    totalBytes: limits.totalBytes ?? DEFAULT_TOTAL_BYTES,
  };
  for (const [name, value] of Object.entries(resolved))
    if (!Number.isSafeInteger(value) || value < 1024 * 1024)
      throw new RangeError(
        `memoryLimits.${name} must be a whole number of bytes, at least 1 MiB (got ${String(value)})`,
      );
  return resolved;
}

const TWO_BYTE = /[^\u0000-\u00ff]/;

/** Bytes per character of a text in V8: 1 while every character fits Latin-1, else 2. */
const width = (texts: readonly (string | null)[]): 1 | 2 =>
  texts.some((text) => text !== null && TWO_BYTE.test(text)) ? 2 : 1;

/** Keys and items of a JSON value, nested ones included: each costs a property slot and its name. */
function entries(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + 1 + entries(item), 0);
  if (typeof value === 'object' && value !== null)
    return Object.values(value).reduce((sum: number, item) => sum + 1 + entries(item), 0);
  return 0;
}

/** Characters of the fixed fields of a reservation's wire form (ids, times, booleans, keys). */
const VIEW_OVERHEAD_CHARACTERS = 450;

/** Estimated bytes one reservation holds: the record, its cached wire form, its idempotency entry. */
export function reservationBytes(record: ReservationRecord): number {
  const metadata = record.metadata === null ? null : JSON.stringify(record.metadata);
  const texts = [...TEXT_CREATE_FIELDS.map((field) => record[field]), metadata];
  let characters = VIEW_OVERHEAD_CHARACTERS;
  for (const text of texts) characters += text?.length ?? 0;
  return Math.ceil(512 + 3.5 * width(texts) * characters + 64 * entries(record.metadata));
}

/** Estimated bytes a delivery waiting for an attempt holds (a copy of the reservation's wire form). */
export function pendingDeliveryBytes(item: PendingDelivery): number {
  if (item.reservation === null) return 256;
  const text = JSON.stringify(item.reservation);
  return Math.ceil(256 + 1.5 * width([text]) * text.length + 64 * entries(item.reservation.metadata));
}

/** Estimated bytes one logged attempt holds: the body sent and the answer kept. */
export function logEntryBytes(entry: DeliveryLogEntry): number {
  const response =
    typeof entry.response === 'string' ? entry.response : JSON.stringify(entry.response ?? null);
  return Math.ceil(512 + width([entry.body]) * entry.body.length + 2 * response.length);
}

const mebibytes = (bytes: number) =>
  `${(bytes / (1024 * 1024)).toLocaleString('en', { maximumFractionDigits: 1 })} MiB`;

/** The 409 when a world is full: names the limit, what it holds, and what frees room. */
export function worldFull(held: number, limit: number, shared: boolean): FakeError {
  return shared
    ? limitReached(
        `of data held by this server's fake and its sandboxes together (${mebibytes(held)} held now, estimated)`,
        mebibytes(limit),
        'Delete sandboxes you no longer use (DELETE /_fake/sandboxes/:id) or reset worlds (POST /_fake/reset).',
      )
    : limitReached(
        `of data in one fake (${mebibytes(held)} held now, estimated)`,
        mebibytes(limit),
        'Reset it (POST /_fake/reset), drop named snapshots, or start it with a larger memoryLimits.worldBytes.',
      );
}
