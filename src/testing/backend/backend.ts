/**
 * One fake world: state, clock, dialect, rate limit, deliveries, faults, delayed commits,
 * snapshots and the request journal. Both faces (the partner API and the control API) and the
 * public `FakeService` act on a backend; a sandbox of the standalone server is another backend.
 * @module
 */
import type { Reservation } from '../../resources/reservations.schemas.js';
import { AnswerMemos } from './answer-memos.js';
import { ZoneTimes } from './availability.js';
import { FakeClock, type FakeClockOptions } from './fake-clock.js';
import { Deliveries, type DeliveryOptions } from './deliveries.js';
import { resolveDialect, type Dialect } from './dialects.js';
import type { DialectFile } from '../../dialect/file.js';
import { DelayedCommits, FaultList, type ActiveFault } from './faults.js';
import { Journal } from './journal.js';
import {
  DELIVERY_LOG_SHARE,
  reservationBytes,
  resolveMemoryLimits,
  worldFull,
  type MemoryLimits,
} from './memory.js';
import { WorldRateLimit, type Admission, type RateLimitSetting } from './rate-limit.js';
import { ReservationIndex } from './reservation-index.js';
import { reservationView } from './reservation-view.js';
import { describeRestaurant, type FakeRestaurant } from './restaurants.js';
import {
  emptyState,
  type WebhookEventType,
  type FakeState,
  type PartnerRecord,
  type PendingDelivery,
  type ReservationRecord,
} from './state.js';
import { StateCopy } from './state-copy.js';
import type { World } from './world.js';

export { StateCopy } from './state-copy.js';
export type { FakeReservation } from './fake-reservations.js';
import {
  MAX_SNAPSHOT_RESERVATIONS,
  checkRoomForReservation,
  limitReached,
  type WorldRoom,
} from './world-limits.js';

/** Options of one world. */
export interface BackendOptions {
  /** Adds the starting data (run again by `reset()`). */
  seed?: (backend: FakeBackend) => void;
  rateLimit?: RateLimitSetting;
  dialect?: Partial<Dialect> | DialectFile;
  clock?: FakeClockOptions | FakeClock;
  deliveries?: DeliveryOptions;
  /** One line per request and delivery. */
  logger?: ((line: string) => void) | undefined;
  /** Entries the request journal keeps. */
  journalLimit?: number;
  /** Room shared with other worlds (the sandboxes of a server share a reservation pool). */
  room?: WorldRoom;
  /** Bytes this world may hold (`worldBytes`; `totalBytes` is the server's, through `room`). */
  memory?: MemoryLimits;
}

/** Most named snapshots kept at once (each is a copy of the whole state). */
export const MAX_NAMED_SNAPSHOTS = 50;

export class FakeBackend implements World {
  readonly clock: FakeClock;
  readonly dialect: Dialect;
  readonly deliveries: Deliveries;
  readonly faults = new FaultList();
  readonly delayedCommits = new DelayedCommits();
  readonly namedSnapshots = new Map<string, StateCopy>();
  readonly journal: Journal;
  readonly times = new ZoneTimes();
  readonly answers = new AnswerMemos();
  readonly log: (line: string) => void;
  readonly errorLog: (line: string) => void;
  #state: FakeState = emptyState();
  #seed: ((backend: FakeBackend) => void) | undefined;
  readonly #rateLimit = new WorldRateLimit();
  readonly #initialRateLimit: RateLimitSetting;
  readonly #initialDialect: Dialect;
  /** Wire forms by record (records restored from a snapshot are new objects, so never stale). */
  readonly #viewTexts = new WeakMap<ReservationRecord, string>();
  /** Availability indexes by state object: a restored or reset state gets its own. */
  readonly #indexes = new WeakMap<FakeState, ReservationIndex>();
  /** Deliveries emitted by the call running now, attempted before it answers. */
  #collecting: PendingDelivery[] | undefined;
  #version = 0;
  #sealed = false;
  readonly #room: WorldRoom;
  readonly #lifetime = new AbortController();
  readonly #worldBytes: number;
  /** Estimated bytes of each reservation (records of a restored state are new objects, counted anew). */
  readonly #sizes = new WeakMap<ReservationRecord, number>();
  #reservationBytes = 0;
  /** Estimated bytes of each named snapshot. */
  readonly #snapshotBytes = new Map<string, number>();

  constructor(options: BackendOptions = {}) {
    this.clock = options.clock instanceof FakeClock ? options.clock : new FakeClock(options.clock);
    this.dialect = resolveDialect(options.dialect);
    this.#initialDialect = { ...this.dialect };
    this.log = options.logger ?? (() => undefined);
    // An internal error is always worth a line, even when request logging is off.
    this.errorLog = options.logger ?? ((line) => console.error(line));
    this.journal = new Journal(options.journalLimit);
    this.#room = options.room ?? {};
    this.#worldBytes = resolveMemoryLimits(options.memory).worldBytes;
    this.#seed = options.seed;
    this.#initialRateLimit = options.rateLimit ?? 1;
    this.setRateLimit(this.#initialRateLimit);
    this.deliveries = new Deliveries(() => this.#state, this.clock, this.log, options.deliveries, {
      hasRoom: () => this.#fullness() === undefined,
      logBytes: Math.floor(this.#worldBytes * DELIVERY_LOG_SHARE),
    });
    this.clock.attachDueWork(this.deliveries);
    this.clock.attachDueWork(this.delayedCommits);
    // Attached last, so it counts the changes the work before it made.
    this.clock.attachDueWork({
      nextDueAt: () => undefined,
      runDue: () => {
        this.touch();
        return Promise.resolve();
      },
    });
    this.deliveries.onAttempt(() => this.touch());
  }

  /**
   * Goes up with every change a viewer of the world could see, so `GET /_fake/state` answers a
   * 304 by comparing one number instead of serialising the world. Requests that change something
   * (every method but GET and HEAD), faults that hit, delivery attempts, work the clock runs,
   * and the `FakeService` methods that change state call {@link touch}.
   */
  get version(): number {
    return this.#version;
  }

  /** Says the world changed (see {@link version}). */
  touch(): void {
    this.#version += 1;
  }

  /** Adds the starting data; the owner calls it once it is ready to be seeded through. */
  seedNow(): void {
    this.#seed?.(this);
  }

  get state(): FakeState {
    return this.#state;
  }

  /** "Events cover the partner's own reservations": other-channel bookings send nothing. */
  emit(event: WebhookEventType, record: ReservationRecord): void {
    if (record.channel.kind !== 'partner') return;
    const items = this.deliveries.enqueue(
      event,
      record.channel.partnerId,
      record.restaurantId,
      { ...this.view(record) },
      this.#collecting === undefined,
    );
    this.#collecting?.push(...items);
  }

  /**
   * Runs one call (a partner request or a restaurant-side action) and makes the first delivery
   * attempt of every event it caused before resolving, so whoever caused an event finds it
   * delivered when its call returns; retries follow on the clock. Only what `run` does before
   * its first `await` is collected (every rule that sends events is synchronous).
   */
  async withDeliveries<Result>(run: () => Result | Promise<Result>): Promise<Result> {
    const outer = this.#collecting;
    const collected: PendingDelivery[] = [];
    this.#collecting = collected;
    let result: Result | Promise<Result>;
    try {
      result = run();
    } finally {
      this.#collecting = outer;
    }
    const value = await result;
    if (collected.length > 0) await this.deliveries.attemptNow(collected);
    return value;
  }

  /** The reservation as the partner API shows it, in this world's dialect. */
  view(record: ReservationRecord): Reservation {
    return reservationView(
      record,
      this.#state.restaurants.get(record.restaurantId)!,
      this.dialect.duration,
      this.dialect.dateTimeForm,
      this.times,
    );
  }

  /**
   * The same view as JSON text, kept per record until a rule changes the record (`changed`): a
   * list of 50 answered again and again is then joined, not rebuilt and serialised each time.
   */
  viewJson(record: ReservationRecord): string {
    let text = this.#viewTexts.get(record);
    if (text === undefined) {
      text = JSON.stringify(this.view(record));
      this.#viewTexts.set(record, text);
    }
    return text;
  }

  changed(record: ReservationRecord): void {
    this.#viewTexts.delete(record);
    this.#index().update(record);
    const bytes = reservationBytes(record);
    this.#reservationBytes += bytes - (this.#sizes.get(record) ?? 0);
    this.#sizes.set(record, bytes);
  }

  /** Counts the bytes of every reservation afresh (the state was replaced by a restore). */
  #recount(): void {
    this.#reservationBytes = 0;
    for (const record of this.#state.reservations.values()) {
      const bytes = reservationBytes(record);
      this.#sizes.set(record, bytes);
      this.#reservationBytes += bytes;
    }
  }

  /**
   * Estimated bytes this world holds: reservations (with their cached wire form and idempotency
   * entry), deliveries waiting for an attempt, the delivery log, and named snapshots.
   */
  get heldBytes(): number {
    let snapshots = 0;
    for (const bytes of this.#snapshotBytes.values()) snapshots += bytes;
    return this.#reservationBytes + this.deliveries.heldBytes() + snapshots;
  }

  /** Why the world has no room for more data, or undefined. */
  #fullness(): { held: number; limit: number; shared: boolean } | undefined {
    const held = this.heldBytes;
    if (held >= this.#worldBytes) return { held, limit: this.#worldBytes, shared: false };
    const shared = this.#room.sharedBytes?.();
    if (shared && shared.held >= shared.limit) return { ...shared, shared: true };
    return undefined;
  }

  checkRoom(): void {
    const full = this.#fullness();
    if (full) throw worldFull(full.held, full.limit, full.shared);
  }

  /** Adds a fault within the limits of pending faults and delayed commits (409 beyond); answers it with its id. */
  injectFault(fault: Omit<ActiveFault, 'id'>): ActiveFault {
    return this.faults.add(fault, this.delayedCommits.size);
  }

  checkRoomForReservation(): void {
    checkRoomForReservation(this.#state, this.#room);
    this.checkRoom();
  }

  /**
   * Keeps a named copy of the state; refused (409) past {@link MAX_NAMED_SNAPSHOTS} names or
   * {@link MAX_SNAPSHOT_RESERVATIONS} reservations held by the named copies together.
   */
  saveNamedSnapshot(name: string): void {
    const replaced = this.namedSnapshots.get(name);
    if (!replaced && this.namedSnapshots.size >= MAX_NAMED_SNAPSHOTS)
      throw limitReached('named snapshots', MAX_NAMED_SNAPSHOTS, 'Reset to drop them (POST /_fake/reset).');
    let held = this.#state.reservations.size;
    for (const [other, copy] of this.namedSnapshots) if (other !== name) held += copy.state.reservations.size;
    if (held > MAX_SNAPSHOT_RESERVATIONS)
      throw limitReached(
        'reservations held by named snapshots together',
        MAX_SNAPSHOT_RESERVATIONS,
        'Reset to drop them (POST /_fake/reset).',
      );
    // A copy holds about what the reservations hold; refused when it would not fit.
    const copyBytes = this.#reservationBytes;
    const full = this.#fullness();
    const heldAfter = this.heldBytes - (this.#snapshotBytes.get(name) ?? 0) + copyBytes;
    if (full || heldAfter > this.#worldBytes)
      throw worldFull(full?.held ?? heldAfter, full?.limit ?? this.#worldBytes, full?.shared ?? false);
    this.namedSnapshots.set(name, this.snapshot());
    this.#snapshotBytes.set(name, copyBytes);
  }

  holdingTables(restaurantId: number, from: number, to: number): Iterable<ReservationRecord> {
    return this.#index().holdingTables(restaurantId, from, to);
  }

  /** The availability index of the state in force (built on first use after a reset or restore). */
  #index(): ReservationIndex {
    let index = this.#indexes.get(this.#state);
    if (!index) this.#indexes.set(this.#state, (index = new ReservationIndex(this.#state)));
    return index;
  }

  /** Every restaurant with its configuration and linked partners. */
  restaurants(): FakeRestaurant[] {
    return [...this.#state.restaurants.values()].map((restaurant) => describeRestaurant(this, restaurant));
  }

  /** Partners with credentials, as the standalone server prints them. */
  partners(): { partnerId: string; apiToken: string; name: string }[] {
    const shown = ({ partnerId, apiToken, name }: PartnerRecord) => ({ partnerId, apiToken, name });
    return [...this.#state.partners.values()].map(shown);
  }

  get rateLimit(): RateLimitSetting {
    return this.#rateLimit.setting;
  }

  /** Changes the rate limit (windows start afresh). */
  setRateLimit(setting: RateLimitSetting): void {
    this.#rateLimit.set(setting);
    this.touch();
  }

  /** Counts a request against the partner's window (see {@link WorldRateLimit.admit}). */
  admit(partnerId: string, onFakeClock: boolean): Admission {
    return this.#rateLimit.admit(partnerId, this.clock, onFakeClock);
  }

  /**
   * Changes dialect keys until the next reset (a RangeError names a bad key or value). Cached
   * wire forms of reservations are dropped, since `duration` shapes them.
   */
  setDialect(changes: Partial<Record<keyof Dialect, unknown>>): void {
    Object.assign(this.dialect, resolveDialect({ ...this.dialect, ...changes }));
    for (const record of this.#state.reservations.values()) this.changed(record);
    this.touch();
  }

  snapshot(): StateCopy {
    return new StateCopy(structuredClone(this.#state));
  }

  /** Puts back a snapshot (pending delivery retries included). */
  restore(snapshot: StateCopy): void {
    if (!(snapshot instanceof StateCopy))
      throw new TypeError('expected a snapshot taken with fake.snapshot()');
    const state = snapshot.state;
    this.deliveries.abortInFlight('the state was restored');
    this.#state = structuredClone(state);
    this.#recount();
    this.touch();
    this.clock.rearm();
  }

  /**
   * Back to the seeded state: data, deliveries, faults, delayed commits, named snapshots, the
   * journal, and the rate limit given at start. The clock and delivery handlers stay.
   */
  reset(): void {
    this.deliveries.abortInFlight('the fake was reset');
    this.#state = emptyState();
    this.deliveries.setChaos(null);
    this.faults.clear();
    this.delayedCommits.clear();
    this.namedSnapshots.clear();
    this.#snapshotBytes.clear();
    this.#reservationBytes = 0;
    this.journal.clear();
    this.setRateLimit(this.#initialRateLimit);
    Object.assign(this.dialect, this.#initialDialect);
    this.#seed?.(this);
    this.touch();
    this.clock.rearm();
  }

  /** Aborted when the world is disposed: waits of requests in flight (fault latency) end with it. */
  get signal(): AbortSignal {
    return this.#lifetime.signal;
  }

  /** true once disposed: the world answers nothing more and sends nothing more. */
  get sealed(): boolean {
    return this.#sealed;
  }

  /**
   * Ends the world for good (a deleted sandbox, a disposed fake): deliveries in flight are
   * aborted, none are sent any more, delayed commits never run and no timer is left.
   */
  dispose(): void {
    this.#sealed = true;
    this.#lifetime.abort(new Error('the fake was disposed'));
    this.deliveries.seal();
    this.delayedCommits.seal();
    this.clock.detachDueWork(this.deliveries);
    this.clock.detachDueWork(this.delayedCommits);
    this.clock.dispose();
  }
}
