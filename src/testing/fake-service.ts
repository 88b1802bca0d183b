/**
 * The public face of the fake, `FakeService`: JavaScript methods over one backend (the same calls
 * the control API makes), `handle(request)` for the partner API and the control API, and the
 * sandboxes of a standalone server. Adapters (MSW, `node:http`) only convert requests and answers.
 * @module
 */
import type { Reservation } from '../resources/reservations.schemas.js';
import { createClockRateLimiter } from './clock-rate-limiter.js';
import { createMswHandlers, requireMsw, type MswHandler, type MswModule } from './adapters/msw.js';
import { ClientFollowing, type ApplyToAllClientsOptions } from './apply-to-all-clients.js';
import { FakeBackend } from './backend/backend.js';
import { allReservations, type FakeReservation } from './backend/fake-reservations.js';
import type { FakeClock, FakeClockOptions } from './backend/fake-clock.js';
import type { Clock } from '../transport/clock.js';
import type { DeliveryHandler, DeliveryOptions } from './backend/deliveries.js';
import type { DialectFile } from '../dialect/file.js';
import type { SandboxOptions } from './sandboxes.js';
import type { Dialect } from './backend/dialects.js';
import type { DeliveryChaosInput, DeliveryChaosSettings } from './backend/chaos.js';
import { parseFault, type ActiveFault, type FaultSpec } from './backend/faults.js';
import type { JournalEntry } from './backend/journal.js';
import { addPartner, link, type AddPartnerInput, type FakePartner } from './backend/partners.js';
import type { RateLimitSetting } from './backend/rate-limit.js';
import { bookFromOtherChannel } from './backend/reservations.js';
import { createActions, type CustomerActions, type RestaurantActions } from './fake-actions.js';
import { addRestaurant, type AddRestaurantInput, type FakeRestaurant } from './backend/restaurants.js';
import { seedDemo } from './backend/seed.js';
import type { DeliveryLogEntry, WebhookEventType } from './backend/state.js';
import type { TEST_EVENT } from '../resources/event-names.js';
import { resolveMemoryLimits, type MemoryLimits } from './backend/memory.js';
import { inProcessFetch, serveRequest, type HandleContext } from './fake-handle.js';
import type { FakeClientOptions, FakeSnapshot, SeedDescription } from './fake-options.js';
import { waitForDeliveryIn, type WaitForDeliveryOptions } from './delivery-wait.js';
// The entries and adapters import these from here, beside the class they describe.
export type { WaitForDeliveryOptions } from './delivery-wait.js';
import { Sandboxes } from './sandboxes.js';

/** Which data a fake starts with: `demo`, `none`, or a function that adds it. */
export type SeedOption = 'demo' | 'none' | ((fake: FakeService) => void);

/** Options of {@link createFakeService}. */
export interface FakeServiceOptions {
  /** Data to start with (and to go back to on `reset()`): `none` (default), `demo`, or a function. */
  seed?: SeedOption;
  /** Requests per second per partner (default 1, as the spec), fractions allowed, or `false` for no limit. */
  rateLimit?: RateLimitSetting;
  /** Answers where the spec is silent: switches (see {@link Dialect}), or the parsed `partner-dialect.json` that `restaurant-partner doctor` writes. */
  dialect?: Partial<Dialect> | DialectFile;
  /** Clock options, or a clock of your own. */
  clock?: FakeClockOptions | FakeClock;
  /** Base URL handed out by `clientOptions()`. Default `https://partner-api.fake.invalid` (never resolves, so nothing leaks to a real host). */
  baseUrl?: string;
  /** Delivery retry delays and timeout. */
  deliveries?: DeliveryOptions;
  /** Receives one line per request and delivery (the standalone server prints them on stderr). */
  logger?: (line: string) => void;
  /** Entries `fake.requests` keeps (default 500, oldest dropped first). */
  journalLimit?: number;
  /** Limits of the sandboxes `POST /_fake/sandboxes` creates. */
  sandboxes?: SandboxOptions;
  /** Bytes one world (this fake, or a sandbox) may hold, and all together (estimated; default 256 MiB, 1 GiB): past either, a 409. */
  memoryLimits?: MemoryLimits;
}

export { faceOfPath, type HandleContext } from './fake-handle.js';
export type { FakeClientOptions, FakeSnapshot, SeedDescription } from './fake-options.js';

/**
 * A stateful, in-memory stand-in for the Restaurant Reservation Partner Service.
 * Create it with {@link createFakeService} (from `restaurant-partner-sdk/testing`).
 */
export class FakeService {
  /** The fake's clock: rate limits, lead times, timestamps, delivery retries and delayed commits follow it. */
  readonly clock: FakeClock;
  /** The dialect in force (answers where the spec is silent). */
  readonly dialect: Dialect;
  /** Base URL `clientOptions()` hands out. */
  readonly baseUrl: string;

  /** Restaurant-side actions: each sends the spec's event, and makes its first delivery attempts before resolving. */
  readonly asRestaurant: RestaurantActions;
  /** Customer-side actions: modify and cancel, with the same events. */
  readonly asCustomer: CustomerActions;

  readonly #backend: FakeBackend;
  readonly #sandboxes: Sandboxes;
  /** Delivery attempts a `waitForDelivery` already returned. */
  readonly #claimed = new WeakSet<object>();
  #handlers: MswHandler[] | undefined;
  readonly #following = new ClientFollowing(this);

  constructor(options: FakeServiceOptions = {}) {
    const seed = options.seed ?? 'none';
    if (seed !== 'demo' && seed !== 'none' && typeof seed !== 'function')
      throw new RangeError(`seed must be "demo", "none" or a function (got "${String(seed)}")`);
    const memory = resolveMemoryLimits(options.memoryLimits);
    this.#backend = new FakeBackend({
      memory,
      // This world and the sandboxes share the server's total.
      room: {
        sharedBytes: () => ({
          held: this.#backend.heldBytes + this.#sandboxes.heldBytes(),
          limit: memory.totalBytes,
        }),
      },
      seed: seed === 'demo' ? seedDemo : typeof seed === 'function' ? () => seed(this) : undefined,
      rateLimit: options.rateLimit,
      dialect: options.dialect,
      clock: options.clock,
      deliveries: options.deliveries,
      logger: options.logger,
      journalLimit: options.journalLimit,
    });
    // A sandbox is seeded like this fake (a seed function, which needs a FakeService, means none).
    this.#sandboxes = new Sandboxes(options.sandboxes ?? {}, {
      deliveries: options.deliveries,
      logger: options.logger,
      seed: seed === 'demo' ? 'demo' : 'none',
      memory,
      serverWorldBytes: () => this.#backend.heldBytes,
    });
    this.clock = this.#backend.clock;
    this.dialect = this.#backend.dialect;
    this.baseUrl = (options.baseUrl ?? 'https://partner-api.fake.invalid').replace(/\/+$/, '');
    const backend = this.#backend;
    ({ asRestaurant: this.asRestaurant, asCustomer: this.asCustomer } = createActions(backend, (run) =>
      backend.withDeliveries(run).then((record) => this.#changed(backend.view(record))),
    ));
    this.#backend.seedNow();
  }

  /**
   * MSW handlers for `setupServer(...fake.handlers)`, built on first use (msw loads then, so a
   * suite that never uses them never needs msw). In a browser worker use `await fake.mswHandlers()`.
   */
  get handlers(): MswHandler[] {
    this.#handlers ??= createMswHandlers(this.#serveMsw, this.#backend, requireMsw());
    // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- MswHandler is msw's handler type, `any` on purpose (adapters/msw.ts)
    return this.#handlers;
  }

  /** MSW handlers, loading msw with a dynamic import (works in browsers too). */
  async mswHandlers(): Promise<MswHandler[]> {
    if (!this.#handlers) {
      const msw = (await import('msw')) as unknown as MswModule;
      this.#handlers ??= createMswHandlers(this.#serveMsw, this.#backend, msw);
    }
    return this.#handlers;
  }

  /** What the MSW handlers serve: a request they intercept tells `applyToAllClients` its service. */
  readonly #serveMsw = (request: Request): Promise<Response> => {
    this.#following.served(request.url);
    return this.handle(request);
  };

  /**
   * Test-only: makes every `PartnerClient` of this process that talks to a service this fake
   * answers wait on the fake's clock and at its rate limit (the limiter, retry back-off, create
   * look-up windows, deadlines), clients built before the call included, so an app that builds its
   * own client runs a suite without sleeping in real time. It applies to the fake's `baseUrl`,
   * the `baseUrls` given, and each service the fake's MSW handlers serve while it is on (from the
   * next call of its clients); never to another service. Clients built with `rateLimit: false`
   * keep no limiter. Returns a function that undoes it; call it in `afterAll`.
   *
   * @example
   * ```ts
   * const fake = createFakeService({ seed: 'demo' });
   * const server = setupServer(...fake.handlers);
   * server.listen();
   * const undo = fake.applyToAllClients({ baseUrls: [process.env.PARTNER_BASE_URL!] });
   * // ... the app's own `new PartnerClient(...)` now runs on the fake's clock
   * undo();
   * ```
   */
  applyToAllClients(options: ApplyToAllClientsOptions = {}): () => void {
    return this.#following.apply(options);
  }

  /**
   * Serves one request: the partner API under `/api/v1/partnership/` (any host, any path prefix),
   * the control API under `/_fake/`, and both again under `/sandboxes/<id>` for each sandbox.
   * Never throws: unexpected errors answer 500 JSON. An injected network error answers
   * `Response.error()`; adapters turn it into a dropped connection.
   */
  handle(request: Request, context: HandleContext = {}): Promise<Response> {
    return serveRequest({ backend: this.#backend, sandboxes: this.#sandboxes }, request, context);
  }

  // ---- Control methods (the same backend calls the /_fake/ routes make) ----

  /** Passes `result` through after saying the world changed (for `GET /_fake/state`'s 304). */
  #changed<Result>(result: Result): Result {
    this.#backend.touch();
    return result;
  }

  /** Adds a partner and answers its credentials. */
  addPartner(input: AddPartnerInput = {}): FakePartner {
    return this.#changed(addPartner(this.#backend, input));
  }

  /** Adds a restaurant (default: Europe/Brussels, synchronous, lunch and dinner every day, 40 covers). */
  addRestaurant(input: AddRestaurantInput = {}): FakeRestaurant {
    return this.#changed(addRestaurant(this.#backend, input));
  }

  /** Makes a restaurant accessible to a partner. */
  link(partnerId: string, restaurantId: number): void {
    this.#changed(link(this.#backend, { partnerId, restaurantId }));
  }

  /** A booking from another channel: takes capacity, is invisible to partners, sends no event. */
  addOtherChannelBooking(restaurantId: number, input: Record<string, unknown>): Reservation {
    return this.#changed(this.#backend.view(bookFromOtherChannel(this.#backend, restaurantId, input)));
  }

  /** Every reservation of a restaurant, whatever its channel, with `channel` and `partnerId` added. */
  allReservations(restaurantId: number): FakeReservation[] {
    return allReservations(this.#backend, restaurantId);
  }

  /** The delivery log, oldest first (a copy; the latest 1000 attempts). */
  get deliveries(): DeliveryLogEntry[] {
    return structuredClone(this.#backend.state.deliveries);
  }

  /** The request journal, oldest first (a copy; no credentials; the fake's own control reads left out). */
  get requests(): JournalEntry[] {
    return this.#backend.journal.entries;
  }

  /** Waits until every delivery that is due has been attempted. */
  async flush(): Promise<void> {
    await this.clock.runDue();
  }

  /**
   * Resolves with the first answered delivery attempt of `event` (any HTTP status) that no earlier
   * call returned, waiting for one when none is logged yet; rejects with a `FakeError` (408) after
   * `timeoutMs` of real time, naming what was delivered meanwhile.
   *
   * @example
   * ```ts
   * await client.reservations.cancel(restaurant.id, booking.id);
   * const delivery = await fake.waitForDelivery('RESERVATION_CANCELLED');
   * ```
   */
  waitForDelivery(
    event: WebhookEventType | typeof TEST_EVENT,
    options: WaitForDeliveryOptions = {},
  ): Promise<DeliveryLogEntry> {
    return waitForDeliveryIn(this.#backend, this.#claimed, event, options);
  }

  /** Receives deliveries for `url` in-process instead of over HTTP. Returns a function that unregisters it. */
  registerDeliveryHandler(url: string, handler: DeliveryHandler): () => void {
    return this.#backend.deliveries.registerHandler(url, handler);
  }

  /**
   * Makes matching requests fail: a status, real-time latency, or a dropped connection, once or
   * `times` times, `before` the operation (default) or `after` it took effect, or `after` with
   * `commitDelayMs` (the fault answers at once and the operation commits later on the fake's clock).
   *
   * @example
   * ```ts
   * fake.injectFault({ operation: 'reservations.create', status: 503, phase: 'after' });
   * fake.injectFault({ operation: 'reservations.create', status: 504, commitDelayMs: 3000 });
   * ```
   */
  injectFault(fault: FaultSpec): ActiveFault {
    return this.#changed(this.#backend.injectFault(parseFault(fault)));
  }

  /** Removes every pending fault. */
  clearFaults(): void {
    this.#changed(this.#backend.faults.clear());
  }

  /** Faults still waiting to hit. */
  get faults(): readonly ActiveFault[] {
    return this.#backend.faults.pending;
  }

  /**
   * Makes webhook deliveries unreliable, as a real network and service can be, seeded so a run
   * replays: each delivery (test deliveries and in-process handlers included) is dropped for good
   * with `dropRate`, sent once more (same event id) with `duplicateRate`, and delayed by up to
   * `maxDelayMs` on the fake's clock; `reorder` lets delayed deliveries overtake each other.
   * `null` turns it off (so does `reset()`). Answers the settings in force, the seed included.
   * A value out of range throws a `FakeError` (400) naming the field.
   *
   * @example
   * ```ts
   * fake.setDeliveryChaos({ dropRate: 0.1, duplicateRate: 0.2, reorder: true, maxDelayMs: 60_000, seed: 7 });
   * ```
   */
  setDeliveryChaos(settings: DeliveryChaosInput | null): DeliveryChaosSettings | null {
    return this.#backend.deliveries.setChaos(settings);
  }

  /** The delivery chaos in force (every field filled in, the seed included), or null. */
  get deliveryChaos(): DeliveryChaosSettings | null {
    return this.#backend.deliveries.chaos;
  }

  /** The rate limit in force (requests per second per partner), or false. */
  get rateLimit(): RateLimitSetting {
    return this.#backend.rateLimit;
  }

  /** Changes the rate limit until the next `reset()` (windows start afresh). */
  setRateLimit(setting: RateLimitSetting): void {
    this.#backend.setRateLimit(setting);
  }

  /**
   * Changes answers where the spec is silent, until the next `reset()`: `fake.setDialect({ list:
   * 'array' })`. A bad key or value throws a RangeError naming it.
   */
  setDialect(changes: Partial<Dialect>): void {
    this.#backend.setDialect(changes);
  }

  /** A copy of the whole state (not the clock, faults or rate-limit windows). */
  snapshot(): FakeSnapshot {
    return this.#backend.snapshot();
  }

  /** Puts back a snapshot (pending delivery retries included). */
  restore(snapshot: FakeSnapshot): void {
    this.#backend.restore(snapshot);
  }

  /**
   * Back to the seeded state: clears data, deliveries, faults, delayed commits, named snapshots,
   * the journal and rate-limit windows, and puts back the rate limit and dialect given at creation. The clock
   * and delivery handlers stay.
   */
  reset(): void {
    this.#backend.reset();
  }

  /** Partners (with credentials) and restaurants, as printed by the standalone server. */
  describeSeed(): SeedDescription {
    return { partners: this.#backend.partners(), restaurants: this.#backend.restaurants() };
  }

  /**
   * Options for `new PartnerClient(...)` that talk to this fake in-process: requests go straight
   * into `handle` (no MSW needed), and the rate limiter and retry sleeps run on the fake's clock,
   * so a suite never sleeps in real time.
   *
   * @example
   * ```ts
   * const fake = createFakeService();
   * const partner = fake.addPartner();
   * const client = new PartnerClient(fake.clientOptions(partner));
   * ```
   */
  clientOptions(partner: { partnerId: string; apiToken: string }): FakeClientOptions {
    const rate = this.rateLimit;
    return {
      baseUrl: this.baseUrl,
      partnerId: partner.partnerId,
      apiToken: partner.apiToken,
      rateLimit:
        rate === false ? false : createClockRateLimiter({ requestsPerSecond: rate, clock: this.clock }),
      clock: this.clock,
      fetch: inProcessFetch((request, context) => this.handle(request, context)),
    };
  }

  /** Stops the clock's real-time timer (pending retries stay queued) and ends every sandbox. */
  dispose(): void {
    this.#backend.dispose();
    this.#sandboxes.dispose();
  }
}

/**
 * Creates a fake service. `.clientOptions(partner)` builds `PartnerClient` options (no msw
 * needed); `.handlers` are ready for MSW's `setupServer(...)`; `.handle(request)` serves a fetch
 * `Request` directly.
 */
export function createFakeService(options: FakeServiceOptions = {}): FakeService {
  return new FakeService(options);
}

// eslint-disable-next-line @typescript-eslint/no-namespace -- types only: what the fake's methods hand back, named under the fake so that a project emitting declarations can write down what it infers (the entry's names are counted)
export declare namespace FakeService {
  export type { ActiveFault, Clock, CustomerActions, DeliveryChaosSettings, HandleContext };
  export type { RateLimitSetting, RestaurantActions, SeedDescription };
}
