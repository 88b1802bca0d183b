/**
 * `createReservationSync`: the partner's view of its bookings, fed by webhooks, by the bookings
 * this process makes, and by reading each restaurant's list on a schedule within a share of the
 * rate, and handed to `onChange` one change at a time, in order, never backwards.
 * @module
 */
import type { PartnerClient } from '../client.js';
import { NotFoundError } from '../errors.js';
import { createConsoleLogger } from '../logger.js';
import {
  isReservationEventType,
  RESERVATION_CANCELLED,
  RESERVATION_CONFIRMED,
  RESERVATION_EVENT_TYPES,
} from '../resources/event-names.js';
import type { Reservation } from '../resources/reservations.schemas.js';
import { systemClock, type Clock } from '../transport/clock.js';
import type { RequestOptions } from '../transport/transport.js';
import { createAnnouncer, LOOKBACK_MS } from './announce.js';
import { backgroundSpacingMs, createBackgroundLimiter, partnerRate } from './budget.js';
import type { Observation } from './changes.js';
import { createHandOver } from './hand-over.js';
import { createLeases, LEASE_MS } from './leases.js';
import {
  checkOptions,
  DEFAULT_BUDGET_SHARE,
  DEFAULT_INTERVAL_MS,
  SyncStoppedError,
  type ReservationSync,
  type ReservationSyncOptions,
  type SyncEvent,
} from './options.js';
import { createRecords } from './records.js';
import { ChangeNotHandedOverError, createRetries } from './retries.js';
import { createReconcileSchedule, RESTAURANTS_REFRESH_MS, type ReconcileSchedule } from './schedule.js';
import { createMemorySyncStore, type SyncStore } from './store.js';

// The sync's contract (its options, what it offers, its checks) lives in options.ts; one
// reservation's path from observation to change in announce.ts.
export {
  isSyncStoppedError,
  SyncStoppedError,
  type ReservationSync,
  type ReservationSyncOptions,
  type SyncEvent,
} from './options.js';
export { LOOKBACK_MS } from './announce.js';

const PAGE_SIZE = 100;
const EVENT_FLAGS: Record<string, 'confirmed' | 'cancelled' | undefined> = {
  [RESERVATION_CONFIRMED]: 'confirmed',
  [RESERVATION_CANCELLED]: 'cancelled',
};

/** Reads one restaurant's list, page by page, each page with the time it was asked for. */
async function readPages(reader: PartnerClient, clock: Clock, restaurantId: number, options: RequestOptions) {
  const pages: Array<{ askedAt: number; items: Reservation[]; callId: string | undefined }> = [];
  let askedAt = clock.now();
  let page = await reader.reservations.list(
    restaurantId,
    { start_time_after: new Date(askedAt - LOOKBACK_MS), page_size: PAGE_SIZE },
    options,
  );
  for (;;) {
    pages.push({ askedAt, items: page.items, callId: page.callId });
    if (!page.hasNextPage()) return pages;
    askedAt = clock.now();
    page = await page.getNextPage();
  }
}

/**
 * Creates a reservation sync: each change of your bookings handed to `onChange` once, in order,
 * never backwards, within `budgetShare` of your rate. Its guarantees, schedule and cost are in the
 * package's guide to the sync (docs/sync.md).
 *
 * @example
 * ```ts
 * const sync = createReservationSync({ client, onChange: async (change) => save(change) });
 * sync.attach(receiver);
 * await sync.start();
 * ```
 */
export function createReservationSync<Tx = undefined>(options: ReservationSyncOptions<Tx>): ReservationSync {
  checkOptions(options as ReservationSyncOptions<unknown>);
  const { client, onChange } = options;
  const store: SyncStore = options.store ?? createMemorySyncStore();
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createConsoleLogger('[restaurant-partner-sdk sync]');
  const intervalMs = options.reconcile?.intervalMs ?? DEFAULT_INTERVAL_MS;
  const budgetShare = options.reconcile?.budgetShare ?? DEFAULT_BUDGET_SHARE;
  const fixedRestaurants = options.restaurantIds !== undefined;
  const holder = options.holder ?? crypto.randomUUID();
  const spacingMs = backgroundSpacingMs(partnerRate(client.rateLimiter), budgetShare);
  // The sync's own copy of the client: same credentials, clock and hooks, its reads paced by its share.
  const reader = client.withOptions({
    rateLimit: createBackgroundLimiter(client.rateLimiter, clock, spacingMs),
    priority: 'background',
  });
  const schedule: ReconcileSchedule = createReconcileSchedule({ intervalMs, clock, spacingMs, logger });
  for (const id of options.restaurantIds ?? []) schedule.follow(id);

  let stopper = new AbortController();
  let stopped = false;
  let loop: Promise<void> | undefined;
  let unsubscribe: (() => void) | undefined;
  // Work this sync started (announcements, reads), which stop() waits for.
  const running = new Set<Promise<unknown>>();
  // One announcement at a time per reservation in this process, in arrival order.
  const chains = new Map<string, Promise<unknown>>();
  // One read at a time per restaurant.
  const reads = new Map<number, Promise<void>>();
  // When each restaurant's last read asked for its first page: a delivery older than that is older than what was read.
  const lastReadAt = new Map<number, number>();
  const leases = createLeases(store, holder, clock);
  const records = createRecords(store, clock, logger);
  const handOver = createHandOver({ store, records, onChange, clock, logger });

  const background = (): RequestOptions => ({ signal: stopper.signal, priority: 'background' });
  const keep = <T>(work: Promise<T>): Promise<T> => {
    running.add(work);
    void work.then(
      () => running.delete(work),
      () => running.delete(work),
    );
    return work;
  };
  const checkRunning = () => {
    if (stopped) throw new SyncStoppedError();
  };
  const retries = createRetries({
    clock,
    logger,
    tryAgain: (restaurantId, observation) => chained(restaurantId, observation),
    signal: () => stopper.signal,
    keep: (work) => void keep(work),
  });

  /** The reservation as the service shows it now, or undefined when it is gone. */
  async function retrieve(restaurantId: number, reservationId: number): Promise<Reservation | undefined> {
    try {
      return await reader.reservations.retrieve(restaurantId, reservationId, background());
    } catch (error) {
      if (stopped) throw new SyncStoppedError();
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  const announce = createAnnouncer({
    store,
    records,
    leases,
    handOver,
    schedule,
    clock,
    lastReadAt,
    retrieve,
    stopSignal: () => stopper.signal,
    checkRunning,
  });
  /** Runs `announce` after every earlier announcement of the same reservation in this process. */
  function chained(restaurantId: number, observation: Observation): Promise<void> {
    const key = `${restaurantId}:${observation.fields.id}`;
    const earlier = chains.get(key) ?? Promise.resolve();
    const mine = earlier.then(() => announce(restaurantId, observation));
    const settled = mine.catch(() => undefined);
    chains.set(key, settled);
    void settled.then(() => {
      if (chains.get(key) === settled) chains.delete(key);
    });
    return keep(mine);
  }

  /** `chained`; when onChange throws, it rejects, and the reservation is tried again on its own, so nothing else waits for it. */
  function apply(restaurantId: number, observation: Observation): Promise<void> {
    if (observation.source === 'reconcile' && retries.absorb(restaurantId, observation))
      return Promise.resolve();
    const done = chained(restaurantId, observation);
    done.catch((error: unknown) => {
      if (error instanceof ChangeNotHandedOverError && !stopped)
        retries.failed(restaurantId, observation, error);
    });
    return done;
  }

  /** Reads one restaurant's list and announces what moved. */
  async function readAndAnnounce(restaurantId: number): Promise<void> {
    const pages = await readPages(reader, clock, restaurantId, background()).catch((error: unknown) => {
      throw stopped ? new SyncStoppedError() : error;
    });
    // Each reservation as of the moment its page was asked for: a delivery that came between two
    // pages is newer than the first page, whatever the time the whole read ended.
    for (const { askedAt, items } of pages) {
      for (const reservation of items) {
        await apply(restaurantId, { fields: reservation, observedAt: askedAt, source: 'reconcile' }).catch(
          (error: unknown) => {
            // A change onChange refused is tried again on its own; the rest of the list goes on.
            if (!(error instanceof ChangeNotHandedOverError)) throw error;
          },
        );
      }
    }
    lastReadAt.set(restaurantId, pages[0]!.askedAt);
    schedule.read(
      restaurantId,
      pages.flatMap((page) => page.items),
      clock.now(),
      pages[0]!.callId,
    );
  }

  /** Reads one restaurant (one read at a time each). `forced` reads even when another process read it lately. */
  function reconcile(restaurantId: number, forced: boolean): Promise<void> {
    const earlier = reads.get(restaurantId) ?? Promise.resolve();
    const mine = earlier
      .catch(() => undefined)
      .then(async () => {
        checkRunning();
        if (forced) return readAndAnnounce(restaurantId);
        // This restaurant's turn: a short lease, renewed while the read goes on, so a process that
        // dies mid-read holds it no longer than LEASE_MS; kept for the period once the read is done.
        const turn = `restaurant:${restaurantId}`;
        if (!(await leases.claim(turn))) {
          schedule.deferred(restaurantId, LEASE_MS / 3);
          return;
        }
        try {
          await leases.renewing(turn, () => readAndAnnounce(restaurantId));
        } catch (error) {
          await leases.release(turn);
          throw error;
        }
        // Not kept (the store failed) only means another process may read it again sooner.
        await leases.claim(turn, schedule.periodOf(restaurantId)).catch(() => false);
      });
    const settled = mine.catch(() => undefined);
    reads.set(restaurantId, settled);
    void settled.then(() => {
      if (reads.get(restaurantId) === settled) reads.delete(restaurantId);
    });
    return keep(mine);
  }

  async function refreshRestaurants(): Promise<void> {
    const restaurants = await reader.restaurants.list(background()).toArray();
    for (const restaurant of restaurants) schedule.follow(restaurant.id);
    schedule.restaurantsReadAt(clock.now() + RESTAURANTS_REFRESH_MS);
  }

  async function run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const next = schedule.next(fixedRestaurants);
      const wait = next.at - clock.now();
      if (wait > 0) {
        try {
          await clock.sleep(wait, schedule.wakeSignal(signal));
        } catch {
          // Woken early: something was added or stopped; look again.
        }
        continue;
      }
      try {
        if (next.what === 'restaurants') await refreshRestaurants();
        else await reconcile(next.restaurantId, false);
      } catch (error) {
        if (signal.aborted) return;
        // Tried again later, not at once: a store or service that is down is not hammered.
        if (next.what === 'restaurants')
          schedule.restaurantsReadAt(clock.now() + Math.min(RESTAURANTS_REFRESH_MS, intervalMs / 4));
        else schedule.failed(next.restaurantId);
        logger.warn(
          `reading ${next.what === 'restaurants' ? 'the restaurants' : `restaurant ${next.restaurantId}`} failed; trying again later`,
          { error },
        );
      }
    }
  }

  const follow = (restaurantId: number) => {
    if (!fixedRestaurants || schedule.follows(restaurantId)) schedule.follow(restaurantId);
  };

  // Bookings made through the client are followed from the moment the sync exists until it stops.
  const followCreates = () => {
    if (
      unsubscribe ||
      !(options.trackClientCreates ?? true) ||
      typeof client.reservations.onCreated !== 'function'
    )
      return;
    unsubscribe = client.reservations.onCreated((restaurantId, reservation) => {
      if (stopped) return;
      sync.track(restaurantId, reservation).catch((error: unknown) => {
        // A change onChange refused was reported, and is tried again.
        if (!(error instanceof SyncStoppedError || error instanceof ChangeNotHandedOverError))
          logger.warn(`tracking reservation ${reservation.id} failed`, { error });
      });
    });
  };

  const sync: ReservationSync = {
    attach(receiver) {
      if (!receiver || typeof receiver.on !== 'function')
        throw new TypeError('attach expects a webhook receiver (createWebhookReceiver)');
      const handler = (event: SyncEvent) => sync.ingest(event);
      for (const type of RESERVATION_EVENT_TYPES) receiver.on(type, handler);
      return receiver;
    },

    async ingest(event) {
      checkRunning();
      if (!isReservationEventType(event?.type)) return;
      const flag = EVENT_FLAGS[event.type];
      const reservation = event.reservation as (Partial<Reservation> & { id?: unknown }) | null | undefined;
      if (!reservation || typeof reservation !== 'object' || !Number.isSafeInteger(reservation.id)) return;
      const restaurantId = event.restaurant_id;
      if (typeof restaurantId !== 'number') {
        // Without its restaurant the reservation cannot be placed: read every followed restaurant soon.
        schedule.soonAll();
        return;
      }
      if (fixedRestaurants && !schedule.follows(restaurantId)) return;
      follow(restaurantId);
      const fields = { ...reservation, id: reservation.id as number } as Partial<Reservation> & {
        id: number;
      };
      if (flag) fields[flag] = true;
      const created = event.created_at ? Date.parse(event.created_at) : Number.NaN;
      await apply(restaurantId, {
        fields,
        observedAt: Number.isFinite(created) ? created : clock.now(),
        source: 'webhook',
      });
    },

    async track(restaurantId, reservation) {
      checkRunning();
      if (!Number.isSafeInteger(restaurantId) || !reservation || !Number.isSafeInteger(reservation.id))
        throw new TypeError('track expects (restaurantId, reservation)');
      schedule.follow(restaurantId);
      await apply(restaurantId, { fields: reservation, observedAt: clock.now(), source: 'client' });
    },

    async get(restaurantId, reservationId) {
      return (await records.get(restaurantId, reservationId))?.reservation;
    },

    async settled() {
      checkRunning();
      if (!fixedRestaurants && !schedule.restaurantsKnown()) await keep(refreshRestaurants());
      const results = await Promise.allSettled(schedule.restaurants().map((id) => reconcile(id, true)));
      const failure = results.find((result) => result.status === 'rejected');
      if (failure) throw failure.reason;
    },

    async start() {
      if (loop) return;
      stopped = false;
      if (!fixedRestaurants) await keep(refreshRestaurants());
      followCreates();
      schedule.warnIfOverBudget(budgetShare);
      loop = keep(run(stopper.signal));
    },

    async stop() {
      stopped = true;
      unsubscribe?.();
      unsubscribe = undefined;
      stopper.abort(new SyncStoppedError());
      while (running.size > 0) await Promise.allSettled([...running]);
      // A last try at what the store failed to write, so the next run does not announce it again.
      await records.saveAll();
      loop = undefined;
      stopper = new AbortController();
    },
  };
  followCreates();
  return sync;
}
