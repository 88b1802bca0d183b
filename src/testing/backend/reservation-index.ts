/**
 * Where each restaurant's active reservations sit in time, so an availability check reads the
 * few reservations around the asked time instead of every reservation of the world: a create
 * costs the same at 100 bookings and at 100,000. Derived from the state (never part of it): built
 * on first use for a state, kept up to date through `World.changed`, rebuilt after a restore.
 * @module
 */
import type { FakeState, ReservationRecord } from './state.js';

/** One bucket per restaurant and hour of start time. */
const BUCKET_MS = 3_600_000;

const bucketKey = (restaurantId: number, start: number): string =>
  `${restaurantId} ${Math.floor(start / BUCKET_MS)}`;

/** Cancelled and no-show reservations hold no table: they leave the index. */
const holdsTable = (record: ReservationRecord): boolean =>
  record.cancelledAt === null && record.noShowAt === null;

export class ReservationIndex {
  readonly #buckets = new Map<string, Set<ReservationRecord>>();
  readonly #where = new Map<ReservationRecord, string>();
  /** The longest table hold seen per restaurant: how far back a reservation still seated may have started. */
  readonly #longestMs = new Map<number, number>();

  constructor(state: FakeState) {
    for (const record of state.reservations.values()) this.update(record);
  }

  /** Puts a new or changed reservation where it now belongs (or out, once it holds no table). */
  update(record: ReservationRecord): void {
    const before = this.#where.get(record);
    const after = holdsTable(record) ? bucketKey(record.restaurantId, record.start) : undefined;
    if (before === after) return;
    if (before !== undefined) {
      const bucket = this.#buckets.get(before)!;
      bucket.delete(record);
      if (bucket.size === 0) this.#buckets.delete(before);
      this.#where.delete(record);
    }
    if (after !== undefined) {
      let bucket = this.#buckets.get(after);
      if (!bucket) this.#buckets.set(after, (bucket = new Set()));
      bucket.add(record);
      this.#where.set(record, after);
      const holdMs = record.durationMinutes * 60_000;
      if (holdMs > (this.#longestMs.get(record.restaurantId) ?? 0))
        this.#longestMs.set(record.restaurantId, holdMs);
    }
  }

  /** Every reservation of the restaurant holding a table at some instant in [from, to). */
  *holdingTables(restaurantId: number, from: number, to: number): Generator<ReservationRecord> {
    const earliest = from - (this.#longestMs.get(restaurantId) ?? 0);
    for (let hour = Math.floor(earliest / BUCKET_MS); hour <= Math.floor((to - 1) / BUCKET_MS); hour += 1) {
      const bucket = this.#buckets.get(`${restaurantId} ${hour}`);
      if (!bucket) continue;
      for (const record of bucket)
        if (record.start < to && record.start + record.durationMinutes * 60_000 > from) yield record;
    }
  }
}
