/**
 * `createReservationSync`: the partner's view of its bookings, fed by webhooks, by the bookings
 * this process makes, and by reading each restaurant's list on a schedule within a share of the
 * rate, and handed to `onChange` one change at a time, in order, never backwards.
 * @module
 */
import type { PartnerClient } from '../client.js';
import { InputValidationError, isNotFoundError, PartnerSdkError } from '../errors.js';
import { createConsoleLogger, type Logger } from '../logger.js';
import {
  isReservationEventType,
  RESERVATION_CANCELLED,
  RESERVATION_CONFIRMED,
  RESERVATION_EVENT_TYPES,
} from '../resources/event-names.js';
import type { Reservation } from '../resources/reservations.schemas.js';
import { systemClock, type Clock } from '../transport/clock.js';
import type { RequestOptions } from '../transport/transport.js';
import type { WebhookEvent } from '../webhooks/events.js';
import type { WebhookReceiver } from '../webhooks/types.js';
import { backgroundSpacingMs, createBackgroundLimiter, partnerRate } from './budget.js';
import { changeKind, fold, sameReservation, type Observation, type ReservationChange } from './changes.js';
import { createHandOver, type OnChange } from './hand-over.js';
import { createLeases, LEASE_MS } from './leases.js';
import { createRecords } from './records.js';
import { ChangeNotHandedOverError, createRetries } from './retries.js';
import { createReconcileSchedule, RESTAURANTS_REFRESH_MS, type ReconcileSchedule } from './schedule.js';
import {
  createMemorySyncStore,
  type SyncRecord,
  type SyncStore,
  type TransactionalSyncStore,
} from './store.js';

/**
 * A verified webhook event, as a `createWebhookReceiver` hands it to its handlers. Only
 * reservation events are used; any other is ignored.
 */
export type SyncEvent = Pick<WebhookEvent, 'type' | 'created_at' | 'restaurant_id'> & {
  reservation?: unknown;
};

/**
 * Options of {@link createReservationSync}. `Tx` is the transaction a transactional store hands
 * `onChange` (`context.tx`); undefined with the memory and Redis stores.
 */
export interface ReservationSyncOptions<Tx = undefined> {
  /** The client whose partner's bookings are followed. Its limiter's rate sets the budget. */
  client: PartnerClient;
  /**
   * Receives each change of the view. When it throws, that reservation's change is tried again
   * (1 s, 2 s, 4 s ... up to 1 min apart, a warning each time) while every other change goes on;
   * the change is recorded as handed over only once it resolves. With a transactional store,
   * `context.tx` is the transaction that records it: write through it, and your writes commit
   * with the sync's record or not at all.
   */
  onChange: OnChange<Tx>;
  /** Where the view lives. Default: {@link createMemorySyncStore} (lost with the process). */
  store?: SyncStore | TransactionalSyncStore<Tx>;
  /**
   * This process's name in the store's leases. Default: a random one per sync. Give each process
   * a stable name of its own (its host or pod name) and a restarted process takes back at once
   * the leases its previous run held; two running processes must never share one.
   */
  holder?: string;
  /** Restaurants to follow. Default: every restaurant the partner sees, re-read every hour. */
  restaurantIds?: readonly number[];
  reconcile?: {
    /** Every followed reservation is read at least once per this many ms; those starting soon three times as often. Default 15 min. */
    intervalMs?: number;
    /** Most of the partner's rate the reads may take over any 10 s window, from 0 to 1 (exclusive of 0). Default 0.25. */
    budgetShare?: number;
  };
  /** Follow the bookings made through `client` (and its `withOptions` copies) as they are made. Default true. */
  trackClientCreates?: boolean;
  /** The clock of the schedule and of `detectedAt`. Default: the real one; `fake.clock` in tests. */
  clock?: Clock;
  /** Where warnings go (a failing `onChange`, a failing read). Default: the console. */
  logger?: Logger;
}

/** A running reservation sync, from {@link createReservationSync}. */
export interface ReservationSync {
  /** Feeds the receiver's reservation events to {@link ReservationSync.ingest}. Returns the receiver. */
  attach(receiver: WebhookReceiver): WebhookReceiver;
  /**
   * Takes one verified reservation event. Resolves once its change (if any) was handed to
   * `onChange`. Rejects when `onChange` threw (the sync tries it again on its own) or after
   * `stop()`, so a receiver answers 5xx and the service delivers again.
   */
  ingest(event: SyncEvent): Promise<void>;
  /** Takes a booking this process made (source `client`); resolves once handed to `onChange` (rejects when it threw: the sync tries it again). */
  track(restaurantId: number, reservation: Reservation): Promise<void>;
  /** The reservation as last announced, or undefined when the sync has not seen it. */
  get(restaurantId: number, reservationId: number): Promise<Reservation | undefined>;
  /**
   * Reads every followed restaurant now (background priority); resolves when all is read and each
   * change was handed to `onChange` (or, when it threw, is being tried again).
   */
  settled(): Promise<void>;
  /** Starts the schedule (reading the restaurants first when `restaurantIds` was not given). */
  start(): Promise<void>;
  /** Stops: no request leaves after it resolves; changes not yet handed over are announced by the next run. */
  stop(): Promise<void>;
}

const DEFAULT_INTERVAL_MS = 15 * 60_000;
const DEFAULT_BUDGET_SHARE = 0.25;
/** Reservations that started longer ago than this are no longer read (nor kept by the store). */
export const LOOKBACK_MS = 7 * 24 * 60 * 60_000;
/** Event times often have whole seconds: a delivery up to this much older than a page may still be newer. */
const EVENT_TIME_SLACK_MS = 1000;
const PAGE_SIZE = 100;
/** The flag an event sets on its reservation; any other reservation event is a modification. */
const EVENT_FLAGS: Record<string, 'confirmed' | 'cancelled' | undefined> = {
  [RESERVATION_CONFIRMED]: 'confirmed',
  [RESERVATION_CANCELLED]: 'cancelled',
};

/**
 * The sync was stopped before it finished: an `ingest` after `stop()`, or a change not handed over
 * (the next run announces it). Retryable: a stop is a shutdown, not a verdict on the work, and a
 * running sync does it.
 */
export class SyncStoppedError extends PartnerSdkError {
  override name = 'SyncStoppedError';
  constructor() {
    super('The reservation sync was stopped', { retryable: true });
  }
}
/** True when a call failed because the reservation sync was stopped. */
export const isSyncStoppedError = (error: unknown): error is SyncStoppedError =>
  error instanceof SyncStoppedError;

function invalid(field: string, rule: string): never {
  throw new InputValidationError([{ field, path: field.split('.'), code: 'invalid_option', message: rule }]);
}

function checkHolder(holder: unknown): void {
  if (holder !== undefined && !(typeof holder === 'string' && holder.length > 0 && holder.length <= 200))
    invalid('holder', 'must be a non-empty string of at most 200 characters');
}

function checkOptions(options: ReservationSyncOptions<unknown>): void {
  if (!options || typeof options !== 'object')
    invalid('options', 'must be an object with client and onChange');
  const { client, onChange, restaurantIds, reconcile } = options;
  if (!client || typeof client !== 'object' || typeof client.withOptions !== 'function')
    invalid('client', 'must be a PartnerClient');
  if (typeof onChange !== 'function') invalid('onChange', 'must be a function');
  checkHolder(options.holder);
  if (
    restaurantIds !== undefined &&
    !(Array.isArray(restaurantIds) && restaurantIds.every((id) => Number.isSafeInteger(id) && id > 0))
  ) {
    invalid('restaurantIds', 'must be an array of restaurant ids (positive integers)');
  }
  const intervalMs = reconcile?.intervalMs;
  if (
    intervalMs !== undefined &&
    !(typeof intervalMs === 'number' && intervalMs >= 1000 && Number.isFinite(intervalMs))
  )
    invalid('reconcile.intervalMs', 'must be a number of milliseconds >= 1000');
  const share = reconcile?.budgetShare;
  if (share !== undefined && !(typeof share === 'number' && share > 0 && share <= 1))
    invalid('reconcile.budgetShare', 'must be a number above 0 and at most 1');
  const store = options.store as Partial<SyncStore> | undefined;
  if (
    store !== undefined &&
    !(
      store &&
      ['get', 'put', 'claim', 'release'].every((name) => typeof store[name as keyof SyncStore] === 'function')
    )
  ) {
    invalid('store', 'must implement SyncStore (get, put, claim, release)');
  }
}

const startOf = (reservation: Reservation): number => {
  const at = Date.parse(reservation.start_time);
  return Number.isFinite(at) ? at : Number.NaN;
};

/** True when `observation`, taken as the newest word, would change what `record` says. */
const wouldChange = (record: SyncRecord, observation: Observation) =>
  changeKind(record.reservation, fold(record.reservation, Number.NEGATIVE_INFINITY, observation)!) !== null;

/** Reads one restaurant's list, page by page, each page with the time it was asked for. */
async function readPages(reader: PartnerClient, clock: Clock, restaurantId: number, options: RequestOptions) {
  const pages: Array<{ askedAt: number; items: Reservation[] }> = [];
  let askedAt = clock.now();
  let page = await reader.reservations.list(
    restaurantId,
    { start_time_after: new Date(askedAt - LOOKBACK_MS), page_size: PAGE_SIZE },
    options,
  );
  for (;;) {
    pages.push({ askedAt, items: page.items });
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
      if (isNotFoundError(error)) return undefined;
      throw error;
    }
  }

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
      await leases.wait(leaseKey, stopper.signal);
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
