/**
 * The options of `createReservationSync`, what a running sync offers, and the checks an option
 * must pass before anything starts: apart from the sync itself, so a reader of the sync's closure
 * sees its work, and a reader of its contract sees it here.
 * @module
 */
import type { PartnerClient } from '../client.js';
import { InputValidationError, PartnerSdkError } from '../errors.js';
import { isPartnerSdkError, nameErrorClass } from '../errors/base.js';
import type { Logger } from '../logger.js';
import type { Reservation } from '../resources/reservations.schemas.js';
import type { Clock } from '../transport/clock.js';
import type { WebhookEvent } from '../webhooks/events.js';
import type { WebhookReceiver } from '../webhooks/types.js';
import type { OnChange } from './hand-over.js';
import type { SyncStore, TransactionalSyncStore } from './store.js';

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

export const DEFAULT_INTERVAL_MS = 15 * 60_000;
export const DEFAULT_BUDGET_SHARE = 0.25;

/**
 * The sync was stopped before it finished: an `ingest` after `stop()`, or a change not handed over
 * (the next run announces it). Retryable: a stop is a shutdown, not a verdict on the work, and a
 * running sync does it.
 */
export class SyncStoppedError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'SyncStoppedError');
  }
  constructor() {
    super('The reservation sync was stopped', { retryable: true });
  }
}
/**
 * True when a call failed because the reservation sync was stopped, from this copy of the package
 * or another (where `instanceof` fails).
 */
export const isSyncStoppedError = (error: unknown): error is SyncStoppedError =>
  isPartnerSdkError(error, SyncStoppedError);

function invalid(field: string, rule: string): never {
  throw new InputValidationError([{ field, path: field.split('.'), code: 'invalid_option', message: rule }]);
}

function checkHolder(holder: unknown): void {
  if (holder !== undefined && !(typeof holder === 'string' && holder.length > 0 && holder.length <= 200))
    invalid('holder', 'must be a non-empty string of at most 200 characters');
}

export function checkOptions(options: ReservationSyncOptions<unknown>): void {
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
