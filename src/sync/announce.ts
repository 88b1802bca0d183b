/**
 * How the sync announces one observation of a reservation: under the reservation's lease, weighed
 * against what the store says was handed over, re-read when a page may be older than a delivery,
 * and handed to `onChange` as one change. Apart from the sync's closure so its reader follows one
 * reservation's path from observation to change here, and the scheduling of reads there.
 * @module
 */
import type { Reservation } from '../resources/reservations.schemas.js';
import type { Clock } from '../transport/clock.js';
import { changeKind, fold, sameReservation, type Observation, type ReservationChange } from './changes.js';
import type { createHandOver } from './hand-over.js';
import type { Leases } from './leases.js';
import { SyncStoppedError } from './options.js';
import type { Records } from './records.js';
import type { ReconcileSchedule } from './schedule.js';
import type { SyncRecord, SyncStore } from './store.js';

/** Reservations that started longer ago than this are no longer read (nor kept by the store). */
export const LOOKBACK_MS = 7 * 24 * 60 * 60_000;
/** Event times often have whole seconds: a delivery up to this much older than a page may still be newer. */
const EVENT_TIME_SLACK_MS = 1000;

const startOf = (reservation: Reservation): number => {
  const at = Date.parse(reservation.start_time);
  return Number.isFinite(at) ? at : Number.NaN;
};

/** True when `observation`, taken as the newest word, would change what `record` says. */
const wouldChange = (record: SyncRecord, observation: Observation) =>
  changeKind(record.reservation, fold(record.reservation, Number.NEGATIVE_INFINITY, observation)!) !== null;

/** What announcing needs of the sync: its store and records, its leases, its schedule and its state. */
export interface AnnounceSettings {
  store: SyncStore;
  records: Records;
  leases: Leases;
  handOver: ReturnType<typeof createHandOver>;
  schedule: ReconcileSchedule;
  clock: Clock;
  /** When each restaurant's last read asked for its first page. */
  lastReadAt: ReadonlyMap<number, number>;
  /** The reservation as the service shows it now, or undefined when it is gone. */
  retrieve: (restaurantId: number, reservationId: number) => Promise<Reservation | undefined>;
  /** The signal that ends the sync's waits when it stops. */
  stopSignal: () => AbortSignal;
  /** Throws SyncStoppedError once the sync stopped. */
  checkRunning: () => void;
}

/** Announces one observation of a reservation: at most one change handed to `onChange`. */
export function createAnnouncer(settings: AnnounceSettings) {
  const {
    store,
    records,
    leases,
    handOver,
    schedule,
    clock,
    lastReadAt,
    retrieve,
    stopSignal,
    checkRunning,
  } = settings;

  /** The state after `observation`, given the stored record; a delivery is also weighed against the restaurant's latest read (modifications carry no time). */
  function foldInto(restaurantId: number, record: SyncRecord | undefined, observation: Observation) {
    const knownAt = Math.max(
      record?.observedAt ?? Number.NEGATIVE_INFINITY,
      observation.source === 'webhook'
        ? (lastReadAt.get(restaurantId) ?? Number.NEGATIVE_INFINITY)
        : Number.NEGATIVE_INFINITY,
    );
    return { knownAt, next: fold(record?.reservation, knownAt, observation) };
  }

  async function announce(restaurantId: number, observation: Observation): Promise<void> {
    const reservationId = observation.fields.id;
    if (observation.source === 'reconcile' && !records.unsaved(restaurantId, reservationId)) {
      // Most reservations of a read have not moved: that is told without taking a lease.
      const seen = await store.get(restaurantId, reservationId);
      if (seen && !wouldChange(seen, observation)) return;
    }
    const leaseKey = `reservation:${restaurantId}:${reservationId}`;
    try {
      await leases.wait(leaseKey, stopSignal());
    } catch {
      throw new SyncStoppedError();
    }
    try {
      await leases.renewing(leaseKey, () => announceHolding(restaurantId, observation));
    } finally {
      await leases.release(leaseKey);
    }
  }

  /** `announce`, once this sync holds the reservation's lease. */
  async function announceHolding(restaurantId: number, observed: Observation): Promise<void> {
    let observation = observed;
    const record = await records.latest(restaurantId, observation.fields.id);
    if (
      observation.source === 'reconcile' &&
      record &&
      record.observedAt > observation.observedAt - EVENT_TIME_SLACK_MS &&
      wouldChange(record, observation)
    ) {
      // The page may be older than what the sync knows: a delivery that came while the list was
      // read, or a clock set back. Read the reservation again: asked after all that was known, its
      // answer is the newest word, and a page never undoes what a newer delivery showed.
      const askedAt = clock.now();
      const fresh = await retrieve(restaurantId, observation.fields.id);
      if (!fresh) return;
      observation = { fields: fresh, observedAt: Math.max(askedAt, record.observedAt), source: 'reconcile' };
    }
    const { knownAt, next } = foldInto(restaurantId, record, observation);
    if (!next) {
      // Part of a reservation never seen: its restaurant's list will tell the rest.
      schedule.soon(restaurantId);
      return;
    }
    if (observation.source === 'webhook' && record && observation.observedAt <= knownAt) {
      // A delivery that does not look newer than what was read (event times are often whole
      // seconds) but says otherwise: the restaurant's list settles which is right, soon.
      const ifNewer = fold(record.reservation, Number.NEGATIVE_INFINITY, observation);
      if (ifNewer && !sameReservation(ifNewer, next)) schedule.soon(restaurantId);
    }
    const kind = changeKind(record?.reservation, next);
    if (!kind) return;
    // The change and the record that says it was handed over share one revision.
    const revision = records.revisionAfter(record);
    const change: ReservationChange = {
      kind,
      restaurantId,
      reservation: next,
      previous: record?.reservation ?? null,
      source: observation.source,
      detectedAt: new Date(clock.now()).toISOString(),
      revision,
    };
    checkRunning();
    await handOver(change, {
      restaurantId,
      reservation: next,
      observedAt: Math.max(record?.observedAt ?? Number.NEGATIVE_INFINITY, observation.observedAt),
      revision,
      expiresAt: (Number.isFinite(startOf(next)) ? startOf(next) : clock.now()) + LOOKBACK_MS,
    });
    schedule.changed(change, observation, lastReadAt.get(restaurantId));
    schedule.saw(restaurantId, next);
  }

  return announce;
}
