/**
 * The public face of the fake, `FakeService`: JavaScript methods over one backend (the same calls
 * the control API makes), `handle(request)` for the partner API and the control API, and the
 * sandboxes of a standalone server. Adapters (MSW, `node:http`) only convert requests and answers.
 * @module
 */
import type { Reservation } from '../resources/reservations.schemas.js';
import { createClockRateLimiter } from './clock-rate-limiter.js';
import type { Clock } from '../transport/clock.js';
import type { RateLimiter } from '../transport/rate-limiter.js';
import { createMswHandlers, type MswHandler, type MswModule } from './adapters/msw.js';
import { ClientFollowing, type ApplyToAllClientsOptions } from './apply-to-all-clients.js';
import { API_ROOT, handleApi } from './api/router.js';
import { FakeBackend, type FakeReservation, type StateCopy } from './backend/backend.js';
import { FakeClock, type FakeClockOptions } from './backend/fake-clock.js';
import type { DeliveryHandler, DeliveryOptions } from './backend/deliveries.js';
import type { Dialect } from './backend/dialects.js';
import type { DialectFile } from '../dialect/file.js';
import { FakeError } from './backend/fake-error.js';
import type { DeliveryChaosInput, DeliveryChaosSettings } from './backend/chaos.js';
import { parseFault, type ActiveFault, type FaultSpec } from './backend/faults.js';
import { redactedPath, type JournalEntry } from './backend/journal.js';
import { addPartner, link, type AddPartnerInput, type FakePartner } from './backend/partners.js';
import type { RateLimitSetting } from './backend/rate-limit.js';
import {
  bookFromOtherChannel,
  cancelAsRestaurantOrCustomer,
  confirmAsRestaurant,
  markAsRestaurant,
  modifyAsRestaurantOrCustomer,
} from './backend/reservations.js';
import { addRestaurant, type AddRestaurantInput, type FakeRestaurant } from './backend/restaurants.js';
import { seedDemo } from './backend/seed.js';
import type { DeliveryLogEntry, EventType } from './backend/state.js';
import { resolveMemoryLimits, type MemoryLimits } from './backend/memory.js';
import { CONTROL_ROUTES, handleControl } from './control/routes.js';
import { errorResponse, nearestRoute } from './http.js';
import { SANDBOX_PREFIX, Sandboxes, type SandboxOptions } from './sandboxes.js';

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
  /**
   * Bytes of data one world (this fake, or one sandbox) may hold, and all of them together
   * (estimated; default 256 MiB and 1 GiB). A write past either is refused with a 409 naming it.
   */
  memoryLimits?: MemoryLimits;
}

/** Per-request facts an adapter knows and the fake cannot (the caller's address, its headers' origin). */
export interface HandleContext {
  /** false refuses the `/_fake/` control routes (the standalone server sets it for callers it must not obey). */
  controlAllowed?: boolean;
  /** Why control is refused, said in the 403 answer. */
  controlRefusal?: string;
  /** true when the caller is not on loopback: control views then withhold partners' API tokens. */
  remoteViewer?: boolean;
}

/** Options that make a `PartnerClient` talk to this fake in-process, on the fake's clock. */
export interface FakeClientOptions {
  baseUrl: string;
  partnerId: string;
  apiToken: string;
  rateLimit: RateLimiter | false;
  clock: Clock;
  fetch: typeof fetch;
}

/** An opaque copy of the fake's state (`fake.snapshot()`), for `fake.restore()`. */
export type FakeSnapshot = StateCopy;

/** What the standalone server prints on start and `POST /_fake/reset` answers. */
export interface SeedDescription {
  partners: FakePartner[];
  restaurants: FakeRestaurant[];
}

/** Options of {@link FakeService.waitForDelivery}. */
export interface WaitForDeliveryOptions {
  /** Real-time limit (default 5000 ms): deliveries go over real HTTP or to in-process handlers. */
  timeoutMs?: number;
}

/** `waitForDelivery`'s refusal (in-process and over HTTP): what was delivered meanwhile, and the likely cause. */
export function noDeliveryWithin(
  event: string,
  timeoutMs: number,
  log: readonly DeliveryLogEntry[],
): FakeError {
  const seen = log.map((entry) => `${entry.event}#${entry.attempt} -> ${entry.status ?? entry.error}`);
  return new FakeError(
    408,
    `No ${event} delivery was answered within ${timeoutMs} ms (attempts logged: ${seen.length === 0 ? 'none' : seen.join(', ')}). Is a webhook subscribed to ${event} and enabled?`,
    { code: 'timeout' },
  );
}

/**
 * Which face of the fake a path reaches, after any `/sandboxes/<id>` prefix: `partner` wherever
 * `/api/v1/partnership/` appears in it (any path prefix, `/_fake/...` included), `control` for
 * `/_fake` and below, `other` for the rest. `handle` routes by it, and the `node:http` adapter
 * chooses its guard by it, so no path reaches the partner API under the control API's guard.
 */
export function faceOfPath(pathname: string): 'partner' | 'control' | 'other' {
  let path = pathname;
  if (path.startsWith(SANDBOX_PREFIX)) {
    const end = path.indexOf('/', SANDBOX_PREFIX.length);
    path = end < 0 ? '/' : path.slice(end);
  }
  if (path.includes(`${API_ROOT}/`) || path.endsWith(`${API_ROOT}/profile`)) return 'partner';
  if (path === '/_fake' || path.startsWith('/_fake/')) return 'control';
  return 'other';
}

/** The backend behind each fake, for the adapters of this package (never part of the public API). */
const backends = new WeakMap<FakeService, FakeBackend>();

/** The backend of a fake (for the MSW and `node:http` adapters). */
export function backendOf(fake: FakeService): FakeBackend {
  return backends.get(fake)!;
}

/** Loads msw synchronously where Node can (`require` of ESM), for the `handlers` property. */
function requireMsw(): MswModule {
  const moduleApi = (
    globalThis as { process?: { getBuiltinModule?: (name: string) => unknown } }
  ).process?.getBuiltinModule?.('node:module') as
    { createRequire(url: string): (name: string) => unknown } | undefined;
  if (!moduleApi)
    throw new Error(
      'fake.handlers loads msw synchronously, which only Node does; elsewhere (a browser worker) use `await fake.mswHandlers()`.',
    );
  try {
    return moduleApi.createRequire(import.meta.url)('msw') as MswModule;
  } catch (error) {
    throw new Error(
      'fake.handlers needs msw, an optional peer dependency: npm install --save-dev msw (or use fake.clientOptions(partner), which needs no msw).',
      { cause: error },
    );
  }
}

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
  readonly asRestaurant: {
    /** "The restaurant has manually confirmed the reservation": RESERVATION_CONFIRMED. */
    confirm(restaurantId: number, reservationId: number): Promise<Reservation>;
    /** Changes time, party or guest details (re-checks availability): RESERVATION_MODIFIED. */
    modify(
      restaurantId: number,
      reservationId: number,
      changes: Record<string, unknown>,
    ): Promise<Reservation>;
    /** RESERVATION_CANCELLED (a repeat is a no-op without event). */
    cancel(restaurantId: number, reservationId: number): Promise<Reservation>;
    /** The guest arrived (no event: the spec names none). */
    arrive(restaurantId: number, reservationId: number): Promise<Reservation>;
    /** The guest never came (no event). */
    noShow(restaurantId: number, reservationId: number): Promise<Reservation>;
  };
  /** Customer-side actions: modify and cancel, with the same events. */
  readonly asCustomer: {
    modify(
      restaurantId: number,
      reservationId: number,
      changes: Record<string, unknown>,
    ): Promise<Reservation>;
    cancel(restaurantId: number, reservationId: number): Promise<Reservation>;
  };

  readonly #backend: FakeBackend;
  readonly #sandboxes: Sandboxes;
  /** Requests from `clientOptions()`, whose client sleeps on the fake's clock. */
  readonly #onFakeClock = new WeakSet<Request>();
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
    backends.set(this, this.#backend);
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
    const act = (run: () => Parameters<FakeBackend['view']>[0]) =>
      backend.withDeliveries(run).then((record) => this.#changed(backend.view(record)));
    this.asRestaurant = {
      confirm: (restaurantId, reservationId) =>
        act(() => confirmAsRestaurant(backend, restaurantId, reservationId)),
      modify: (restaurantId, reservationId, changes) =>
        act(() => modifyAsRestaurantOrCustomer(backend, restaurantId, reservationId, changes)),
      cancel: (restaurantId, reservationId) =>
        act(() => cancelAsRestaurantOrCustomer(backend, restaurantId, reservationId)),
      arrive: (restaurantId, reservationId) =>
        act(() => markAsRestaurant(backend, restaurantId, reservationId, 'markArrived')),
      noShow: (restaurantId, reservationId) =>
        act(() => markAsRestaurant(backend, restaurantId, reservationId, 'markNoShow')),
    };
    this.asCustomer = {
      modify: (restaurantId, reservationId, changes) =>
        this.asRestaurant.modify(restaurantId, reservationId, changes),
      cancel: (restaurantId, reservationId) =>
        act(() => cancelAsRestaurantOrCustomer(backend, restaurantId, reservationId, 'customer')),
    };
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
  async handle(request: Request, context: HandleContext = {}): Promise<Response> {
    let backend = this.#backend;
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return errorResponse(400, 'The request URL is not valid.');
    }
    let path = url.pathname;
    let prefix = '';
    const inSandbox = path.startsWith(SANDBOX_PREFIX);
    if (inSandbox) {
      const end = path.indexOf('/', SANDBOX_PREFIX.length);
      const id = path.slice(SANDBOX_PREFIX.length, end < 0 ? undefined : end);
      const sandbox = this.#sandboxes.use(id);
      if (!sandbox)
        return errorResponse(
          404,
          `No sandbox ${JSON.stringify(id)}: it was deleted, expired after being idle, or never existed. POST /_fake/sandboxes creates one.`,
        );
      backend = sandbox;
      prefix = path.slice(0, end < 0 ? undefined : end);
      path = end < 0 ? '/' : path.slice(end);
    }
    const started = backend.clock.now();
    let face: JournalEntry['face'] = 'other';
    let operation: string | null = null;
    let partnerId: string | null = null;
    let response: Response;
    try {
      const reached = faceOfPath(path);
      if (reached === 'partner') {
        face = 'partner';
        const apiIndex = path.indexOf(`${API_ROOT}/`);
        const rest = apiIndex >= 0 ? path.slice(apiIndex + API_ROOT.length) : '/profile';
        const outcome = await handleApi(backend, request, url, rest, this.#onFakeClock.has(request));
        ({ response, operation, partnerId } = outcome);
      } else if (reached === 'control') {
        face = 'control';
        if (context.controlAllowed === false)
          response = errorResponse(
            403,
            context.controlRefusal ?? 'The control API answers loopback callers only.',
          );
        else
          response = await handleControl(
            {
              backend,
              url,
              controlRoot: `${url.origin}${prefix}/_fake`,
              sandboxes: inSandbox ? undefined : this.#sandboxes,
              remoteViewer: context.remoteViewer === true,
            },
            request,
            path,
          );
      } else {
        const nearest = nearestRoute(path, [
          `${API_ROOT}/restaurants/`,
          ...CONTROL_ROUTES.map((route) => route.path),
        ]);
        response = errorResponse(
          404,
          `Not found: no route ${request.method} ${path}. The partner API is under ${API_ROOT}/ and the control API under /_fake/ (nearest: ${nearest}).`,
        );
      }
    } catch (error) {
      if (error instanceof FakeError) response = errorResponse(error.status, error.detail, error.body);
      else if (request.signal.aborted) {
        // The caller left (a dropped connection mid-request): nothing went wrong in the fake.
        response = errorResponse(400, 'The client went away before the request was read.');
      } else {
        const message = error instanceof Error ? error.message : String(error);
        backend.errorLog(
          `fake: internal error on ${request.method} ${path}: ${error instanceof Error ? error.stack : message}`,
        );
        response = errorResponse(500, `Internal error in the fake: ${message}`);
      }
    }
    // Whatever a request that may change state did, the version says so (after the change).
    if (request.method !== 'GET' && request.method !== 'HEAD') backend.touch();
    if (inSandbox && backend.sealed) {
      // Deleted while this request ran: whatever it did went with the sandbox, and it says so.
      response = errorResponse(
        404,
        'The sandbox was deleted while this request ran; nothing it did remains and no delivery follows.',
      );
    }
    const status = response.type === 'error' ? null : response.status;
    const shownPath = redactedPath(path === url.pathname ? url : new URL(`${path}${url.search}`, url.origin));
    // The journal lists what the fake received, not the fake being read: its own reads stay out.
    if (!(face === 'control' && request.method === 'GET')) {
      backend.journal.record({
        at: started,
        method: request.method,
        path: `${prefix}${shownPath}`,
        status,
        face,
        operation,
        partnerId,
      });
    }
    backend.log(`${request.method} ${prefix}${shownPath} -> ${status ?? 'connection dropped'}`);
    return response;
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
    return this.#backend.allReservations(restaurantId);
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
    event: EventType | 'TEST',
    options: WaitForDeliveryOptions = {},
  ): Promise<DeliveryLogEntry> {
    const timeoutMs = options.timeoutMs ?? 5000;
    const matches = (entry: DeliveryLogEntry) => entry.event === event && entry.status !== null;
    const log = this.#backend.state.deliveries;
    const found = log.find((entry) => matches(entry) && !this.#claimed.has(entry));
    if (found) {
      this.#claimed.add(found);
      return Promise.resolve(structuredClone(found));
    }
    return new Promise((resolve, reject) => {
      const stop = this.#backend.deliveries.onAttempt((entry) => {
        if (!matches(entry) || this.#claimed.has(entry)) return;
        this.#claimed.add(entry);
        clearTimeout(timer);
        stop();
        resolve(structuredClone(entry));
      });
      const timer = setTimeout(() => {
        stop();
        reject(noDeliveryWithin(event, timeoutMs, this.#backend.state.deliveries));
      }, timeoutMs);
    });
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
    const send = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const request = new Request(input, init);
      this.#onFakeClock.add(request);
      const response = await this.handle(request);
      // What fetch does when the connection drops: reject with a TypeError.
      if (response.type === 'error')
        throw new TypeError('fetch failed', {
          cause: new Error('connection dropped by the fake (injected networkError)'),
        });
      return response;
    };
    return {
      baseUrl: this.baseUrl,
      partnerId: partner.partnerId,
      apiToken: partner.apiToken,
      rateLimit:
        rate === false ? false : createClockRateLimiter({ requestsPerSecond: rate, clock: this.clock }),
      clock: this.clock,
      fetch: send,
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
