/**
 * What counts as a change of a reservation, and how a new observation is folded into the state
 * last announced, so that the view never goes backwards.
 *
 * The spec's states only move forward ("created, confirmed, arrived or no-show; cancelled at any
 * point before arrival"), so each state flag is kept once seen, whatever a stale read or a late
 * delivery says. Modifications carry no timestamp, so between two observations of the other
 * fields the more recent one wins: a read counts as of the moment its answer arrived, a delivery
 * as of its event's `created_at` (as of its arrival when it carries none).
 * @module
 */
import type { Reservation } from '../resources/reservations.schemas.js';

/** What kind of change a {@link ReservationChange} is, from the least to the most significant after `created`. */
export type ReservationChangeKind =
  'created' | 'confirmed' | 'modified' | 'cancelled' | 'arrived' | 'no_show';

/** Where the sync learned of a change. */
export type ReservationChangeSource = 'webhook' | 'reconcile' | 'client';

/**
 * One change of the sync's view of a reservation, handed to `onChange`. The changes of one
 * reservation form a chain: each one's `previous` is the `reservation` of the one before.
 */
export interface ReservationChange {
  /**
   * `created` when the sync first sees the reservation (whatever its state: one first seen
   * already cancelled is `created` with `cancelled: true`). Otherwise the most significant of what
   * moved: `cancelled` > `no_show` > `arrived` > `confirmed` > `modified`.
   */
  kind: ReservationChangeKind;
  restaurantId: number;
  /** The reservation after the change. */
  reservation: Reservation;
  /** The reservation as this sync last announced it (null for `created`). */
  previous: Reservation | null;
  source: ReservationChangeSource;
  /** When the sync saw the change (ISO 8601, UTC), on the sync's clock. */
  detectedAt: string;
  /**
   * The change's number among this reservation's changes: 1 for `created`, then 2, 3 ... with no
   * gap, shared by every process on one store. Guard your writes with it (`where revision <
   * $new`), never with `detectedAt`: two changes may share a second, and clocks differ.
   */
  revision: number;
}

/**
 * What `onChange` gets besides the change. `tx` is the store's transaction when the store is
 * transactional (`db.syncStore()` from `restaurant-partner-sdk/postgres`): your writes through it
 * commit with the sync's record of the change, or not at all. Undefined with the memory and
 * Redis stores.
 */
export interface ChangeContext<Tx = undefined> {
  tx: Tx;
}

/** The state flags, each with its timestamp, most significant first. */
const FLAGS = [
  ['cancelled', 'cancelled_at'],
  ['no_show', 'no_show_at'],
  ['arrived', 'arrived_at'],
  ['confirmed', 'confirmed_at'],
] as const;

/** An observation of a reservation: all of it (a read) or only what a delivery carried. */
export interface Observation {
  /** The fields observed; `id` always, `start_time` unless a delivery left it out. */
  fields: Partial<Reservation> & { id: number };
  /** Epoch milliseconds as of which these fields were true. */
  observedAt: number;
  source: ReservationChangeSource;
}

/**
 * The reservation after folding `observation` into `known` (the state last announced, as of
 * `knownAt`): the other fields from whichever is more recent, every state flag kept once set.
 * Undefined when nothing is known yet and the observation lacks `start_time` (a partial delivery
 * of an unseen reservation: a read must fill it in).
 */
export function fold(
  known: Reservation | undefined,
  knownAt: number,
  observation: Observation,
): Reservation | undefined {
  if (!known)
    return typeof observation.fields.start_time === 'string'
      ? ({ ...observation.fields } as Reservation)
      : undefined;
  // A read is the service's word as of its arrival, so it wins a tie; a delivery must be newer.
  const newer =
    observation.source === 'webhook' ? observation.observedAt > knownAt : observation.observedAt >= knownAt;
  const next: Record<string, unknown> = newer ? { ...known, ...observation.fields } : { ...known };
  const seen = observation.fields as Record<string, unknown>;
  const before = known as unknown as Record<string, unknown>;
  for (const [flag, at] of FLAGS) {
    if (before[flag] === true) {
      // Never reverts: a cancelled booking stays cancelled, with the time first announced.
      next[flag] = true;
      next[at] = before[at] ?? seen[at] ?? null;
    } else if (seen[flag] === true) {
      next[flag] = true;
      next[at] = seen[at] ?? before[at] ?? null;
    }
  }
  return next as unknown as Reservation;
}

/** A stable text of a value with object keys sorted, to compare two reservations field by field. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/** True when two states of a reservation are the same, field by field. */
export function sameReservation(a: Reservation, b: Reservation): boolean {
  return canonical(a) === canonical(b);
}

/** The kind of the change from `previous` to `next`, or null when nothing changed. */
export function changeKind(
  previous: Reservation | undefined,
  next: Reservation,
): ReservationChangeKind | null {
  if (!previous) return 'created';
  const before = previous as unknown as Record<string, unknown>;
  const after = next as unknown as Record<string, unknown>;
  for (const [flag] of FLAGS) if (after[flag] === true && before[flag] !== true) return flag;
  return sameReservation(previous, next) ? null : 'modified';
}
