/**
 * When each followed restaurant's list is read. Every restaurant is read once per period (80 % of
 * `intervalMs`, leaving room for the wait in the budget), and three times per period while it has
 * a live booking (not cancelled, arrived or no-show) starting within the next two hours or started
 * within the last hour, when guests arrive, cancel late or do not show up. Each read is one request
 * per page of up to 100 reservations; with the defaults (15 min) that is 5 requests per restaurant
 * per hour, 15 in its busy hours.
 * @module
 */
import type { Logger } from '../logger.js';
import { createSyncPace, type SyncPace } from './observed.js';
import type { Reservation } from '../resources/reservations.schemas.js';
import type { Clock } from '../transport/clock.js';

/** Share of `intervalMs` between two reads of a restaurant: the rest absorbs the wait for budget. */
export const PERIOD_SHARE = 0.8;
/** Reads per period while a live booking starts soon. */
export const BUSY_READS_PER_PERIOD = 3;
/** A booking counts as starting soon from this long before its start... */
export const SOON_BEFORE_MS = 2 * 60 * 60_000;
/** ...until this long after it. */
export const SOON_AFTER_MS = 60 * 60_000;
/** How often the restaurants list is read again when the sync follows every restaurant. */
export const RESTAURANTS_REFRESH_MS = 60 * 60_000;

interface Entry {
  /** When its list last arrived. */
  lastReadAt: number | undefined;
  /** Start of its earliest live booking not long past, as of the last read. */
  earliestLiveStart: number | undefined;
  /** A read wanted earlier than the period says (a partial delivery), or later (another process holds it; a failure). */
  overrideAt: number | undefined;
  /** How many times in a row another process held its turn. */
  deferrals: number;
}

/** What to do next, and when. */
export type ScheduledWork =
  { what: 'restaurants'; at: number } | { what: 'restaurant'; restaurantId: number; at: number };

export interface ReconcileSchedule {
  follow(restaurantId: number): void;
  follows(restaurantId: number): boolean;
  restaurants(): number[];
  restaurantsKnown(): boolean;
  restaurantsReadAt(at: number): void;
  /** Read this restaurant as soon as the budget allows. */
  soon(restaurantId: number): void;
  soonAll(): void;
  /** Another process holds this restaurant's turn: look again after `firstWaitMs`, then twice as long each time up to an eighth of the period. */
  deferred(restaurantId: number, firstWaitMs: number): void;
  failed(restaurantId: number): void;
  /** A reservation was announced (it may start soon). */
  saw(restaurantId: number, reservation: Reservation): void;
  /** The restaurant's list arrived at `readAt`. */
  read(
    restaurantId: number,
    listed: readonly Reservation[],
    readAt: number,
    callId: string | undefined,
  ): void;
  /** The time between two reads of this restaurant now. */
  periodOf(restaurantId: number): number;
  next(fixedRestaurants: boolean): ScheduledWork;
  /** A signal that aborts with `signal`, or when the schedule changes (a new restaurant, a read wanted soon). */
  wakeSignal(signal: AbortSignal): AbortSignal;
  warnIfOverBudget(budgetShare: number): void;
  /** A change was handed to `onChange` (observers hear of it with its lag). */
  changed: SyncPace['changed'];
}

/** What a schedule is built from. */
export interface ScheduleSettings {
  intervalMs: number;
  clock: Clock;
  spacingMs: number;
  logger: Logger;
}

const isLive = (reservation: Reservation) =>
  reservation.cancelled !== true && reservation.arrived !== true && reservation.no_show !== true;

/** Creates the schedule of one sync. */
export function createReconcileSchedule(settings: ScheduleSettings): ReconcileSchedule {
  const { clock, spacingMs, logger } = settings;
  const pace = createSyncPace(settings.intervalMs, clock, logger);
  const period = settings.intervalMs * PERIOD_SHARE;
  const busyPeriod = period / BUSY_READS_PER_PERIOD;
  const entries = new Map<number, Entry>();
  let restaurantsDueAt: number | undefined;
  let waker = new AbortController();
  const wake = () => {
    waker.abort();
    waker = new AbortController();
  };

  const busyFrom = (entry: Entry) =>
    entry.earliestLiveStart === undefined
      ? Number.POSITIVE_INFINITY
      : entry.earliestLiveStart - SOON_BEFORE_MS;
  const dueAt = (entry: Entry): number => {
    if (entry.overrideAt !== undefined) return entry.overrideAt;
    if (entry.lastReadAt === undefined) return Number.NEGATIVE_INFINITY;
    return Math.min(entry.lastReadAt + period, Math.max(entry.lastReadAt + busyPeriod, busyFrom(entry)));
  };
  const entryOf = (restaurantId: number) => {
    let entry = entries.get(restaurantId);
    if (!entry) {
      entry = { lastReadAt: undefined, earliestLiveStart: undefined, overrideAt: undefined, deferrals: 0 };
      entries.set(restaurantId, entry);
      wake();
    }
    return entry;
  };
  const readSoon = (entry: Entry) => {
    const now = clock.now();
    if (entry.overrideAt === undefined || entry.overrideAt > now) {
      entry.overrideAt = now;
      wake();
    }
  };
  const retryIn = (restaurantId: number, ms: number) => {
    const entry = entryOf(restaurantId);
    entry.overrideAt = clock.now() + ms;
  };
  /**
   * A clock set back (by hand, or by a time sync) would leave reads "in the future" and none due
   * until the clock caught up: a restaurant last read later than now is read again now, and a
   * wait that ends further off than any the schedule sets ends now.
   */
  const followClockBack = (now: number) => {
    for (const entry of entries.values()) {
      if (entry.lastReadAt !== undefined && entry.lastReadAt > now) entry.lastReadAt = undefined;
      if (entry.overrideAt !== undefined && entry.overrideAt > now + period) entry.overrideAt = now;
    }
    if (restaurantsDueAt !== undefined && restaurantsDueAt > now + RESTAURANTS_REFRESH_MS)
      restaurantsDueAt = now;
  };

  return {
    follow: (restaurantId) => void entryOf(restaurantId),
    follows: (restaurantId) => entries.has(restaurantId),
    restaurants: () => [...entries.keys()],
    restaurantsKnown: () => restaurantsDueAt !== undefined,
    restaurantsReadAt(at) {
      restaurantsDueAt = at;
    },
    soon: (restaurantId) => readSoon(entryOf(restaurantId)),
    soonAll() {
      for (const entry of entries.values()) readSoon(entry);
    },
    deferred(restaurantId, firstWaitMs) {
      // Short at first: the holder may have died mid-read, and its lease lapses within moments.
      const entry = entryOf(restaurantId);
      retryIn(restaurantId, Math.min(period / 8, firstWaitMs * 2 ** entry.deferrals));
      entry.deferrals += 1;
    },
    failed: (restaurantId) => retryIn(restaurantId, Math.min(period / 8, 60_000)),
    saw(restaurantId, reservation) {
      const entry = entryOf(restaurantId);
      const start = Date.parse(reservation.start_time);
      if (!isLive(reservation) || !Number.isFinite(start) || start + SOON_AFTER_MS < clock.now()) return;
      if (entry.earliestLiveStart === undefined || start < entry.earliestLiveStart)
        entry.earliestLiveStart = start;
    },
    read(restaurantId, listed, readAt, callId) {
      const entry = entryOf(restaurantId);
      pace.read(restaurantId, listed.length, readAt - dueAt(entry), settings.intervalMs - period, callId);
      entry.lastReadAt = readAt;
      entry.overrideAt = undefined;
      entry.deferrals = 0;
      let earliest: number | undefined;
      for (const reservation of listed) {
        const start = Date.parse(reservation.start_time);
        if (!isLive(reservation) || !Number.isFinite(start) || start + SOON_AFTER_MS < readAt) continue;
        if (earliest === undefined || start < earliest) earliest = start;
      }
      entry.earliestLiveStart = earliest;
    },
    periodOf(restaurantId) {
      const entry = entries.get(restaurantId);
      return entry && busyFrom(entry) <= clock.now() + busyPeriod ? busyPeriod : period;
    },
    next(fixedRestaurants) {
      followClockBack(clock.now());
      let best: ScheduledWork = {
        what: 'restaurants',
        at: fixedRestaurants || restaurantsDueAt === undefined ? Number.POSITIVE_INFINITY : restaurantsDueAt,
      };
      for (const [restaurantId, entry] of entries) {
        const at = dueAt(entry);
        if (at < best.at) best = { what: 'restaurant', restaurantId, at };
      }
      // Nothing to do: look again in an hour (a sleep must end somewhere).
      if (best.at === Number.POSITIVE_INFINITY) best = { ...best, at: clock.now() + 60 * 60_000 };
      return best;
    },
    wakeSignal: (signal) => AbortSignal.any([signal, waker.signal]),
    changed: (change, observed, previousReadAt) => pace.changed(change, observed, previousReadAt),
    warnIfOverBudget(budgetShare) {
      const readsPerHour = entries.size * ((60 * 60_000) / period);
      const budgetPerHour = (60 * 60_000) / spacingMs;
      if (readsPerHour > budgetPerHour) {
        logger.warn(
          `following ${entries.size} restaurants needs about ${Math.ceil(readsPerHour)} reads per hour, more than budgetShare ${budgetShare} allows (${Math.floor(budgetPerHour)}): reads will come later than intervalMs. Raise intervalMs or budgetShare.`,
        );
      }
    },
  };
}
