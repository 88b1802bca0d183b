/**
 * The fake service's core: one state machine over in-memory state, served by a framework-free
 * `handle(request)`. The MSW adapter (`msw.ts`) and the `node:http` adapter (`node-server.ts`)
 * only convert requests and answers; every behaviour lives here and in the modules it calls.
 * @module
 */
import type { HttpHandler } from 'msw';
import { createRateLimiter } from '../transport/throttle.js';
import type { Clock } from '../transport/clock.js';
import type { RateLimiter } from '../transport/rate-limiter.js';
import { FakeClock, type FakeClockOptions } from './clock.js';
import type { FakeInternals, Operation, OperationContext, RouteParams } from './context.js';
import {
  addPartner,
  addRestaurant,
  asControlCall,
  describeRestaurant,
  handleControl,
  link,
  type AddPartnerInput,
  type AddRestaurantInput,
  type FakePartner,
  type FakeRestaurant,
} from './control.js';
import { Deliveries, type DeliveryHandler, type DeliveryOptions, type DeliveryFetch } from './deliveries.js';
import { resolveDialect, type Dialect } from './dialects.js';
import { DelayedCommits, FaultList, parseFault, realDelay, type ActiveFault, type FaultSpec, type OperationName } from './faults.js';
import { SlidingWindowLimiter, type RateLimitSetting } from './rate-limit.js';
import { retrieveProfile, updateProfile } from './resources/profile.js';
import {
  bookFromOtherChannel,
  cancelAsRestaurantOrCustomer,
  cancelReservation,
  confirmAsRestaurant,
  createReservation,
  listReservations,
  markReservation,
  modifyAsRestaurantOrCustomer,
  retrieveReservation,
  serializeReservation,
} from './resources/reservations.js';
import { listRestaurants } from './resources/restaurants.js';
import {
  createWebhook,
  deleteWebhook,
  listWebhooks,
  regenerateWebhookToken,
  retrieveWebhook,
  testWebhook,
  updateWebhook,
} from './resources/webhooks.js';
import { seedDemo, type SeedOption } from './seed.js';
import { emptyState, type DeliveryLogEntry, type EventType, type FakeState, type ReservationRecord } from './state.js';
import { HttpProblem, badRequest, empty, errorResponse, json, notFound, parseJsonBody, readBodyText } from './wire.js';

/** Options of {@link createFakeService}. */
export interface FakeServiceOptions {
  /** Data to start with (and to go back to on `reset()`): `none` (default), `demo`, or a function. */
  seed?: SeedOption;
  /** Requests per second per partner (default 1, as the spec), or `false` for no limit. */
  rateLimit?: RateLimitSetting;
  /** Answers where the spec is silent; see {@link Dialect}. */
  dialect?: Partial<Dialect>;
  /** Clock options, or a clock of your own. */
  clock?: FakeClockOptions | FakeClock;
  /** Base URL handed out by `clientOptions()`. Default `https://partner-api.fake.invalid` (never resolves, so nothing leaks to a real host). */
  baseUrl?: string;
  /** Delivery retry delays and timeout. */
  deliveries?: DeliveryOptions;
  /** Receives one line per request and delivery (the standalone server prints them on stderr). */
  logger?: (line: string) => void;
}

/** Per-request facts an adapter knows and the core cannot (the caller's address). */
export interface HandleContext {
  /** false refuses the `/_fake/` control routes (the standalone server sets it for non-loopback callers). */
  controlAllowed?: boolean;
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
export interface FakeSnapshot {
  readonly kind: 'restaurant-partner-fake-snapshot';
  /** @internal */
  readonly state: FakeState;
}

/** What the standalone server prints on start and `POST /_fake/reset` answers. */
export interface SeedDescription {
  partners: FakePartner[];
  restaurants: FakeRestaurant[];
}

const API_ROOT = '/api/v1/partnership';

interface Route {
  pattern: RegExp;
  params: (keyof RouteParams)[];
  methods: Record<string, { operation: OperationName | 'reservations.patch'; run: Operation }>;
}

const routes: Route[] = [
  {
    // Spec: GET /profile/ "(also reached without the trailing slash)".
    pattern: /^profile\/?$/,
    params: [],
    methods: { GET: { operation: 'profile.retrieve', run: retrieveProfile }, PATCH: { operation: 'profile.update', run: updateProfile } },
  },
  { pattern: /^restaurants\/$/, params: [], methods: { GET: { operation: 'restaurants.list', run: listRestaurants } } },
  {
    pattern: /^restaurants\/([^/]+)\/reservations\/$/,
    params: ['restaurantId'],
    methods: { GET: { operation: 'reservations.list', run: listReservations }, POST: { operation: 'reservations.create', run: createReservation } },
  },
  {
    pattern: /^restaurants\/([^/]+)\/reservations\/([^/]+)\/$/,
    params: ['restaurantId', 'reservationId'],
    methods: {
      GET: { operation: 'reservations.retrieve', run: retrieveReservation },
      PATCH: { operation: 'reservations.patch', run: patchReservation },
    },
  },
  {
    pattern: /^webhooks\/$/,
    params: [],
    methods: { GET: { operation: 'webhooks.list', run: listWebhooks }, POST: { operation: 'webhooks.create', run: createWebhook } },
  },
  {
    pattern: /^webhooks\/([^/]+)\/$/,
    params: ['webhookId'],
    methods: {
      GET: { operation: 'webhooks.retrieve', run: retrieveWebhook },
      PATCH: { operation: 'webhooks.update', run: updateWebhook },
      DELETE: { operation: 'webhooks.delete', run: deleteWebhook },
    },
  },
  { pattern: /^webhooks\/([^/]+)\/auth-token\/$/, params: ['webhookId'], methods: { POST: { operation: 'webhooks.regenerateToken', run: regenerateWebhookToken } } },
  { pattern: /^webhooks\/([^/]+)\/test\/$/, params: ['webhookId'], methods: { POST: { operation: 'webhooks.test', run: testWebhook } } },
];

// Spec: cancel is "PATCH .../:id/?action=cancel"; arrived / no-show are PATCH bodies (the fake's documented choice).
function patchReservation(context: OperationContext): Response {
  return context.url.searchParams.has('action') ? cancelReservation(context) : markReservation(context);
}

/** The operation name a PATCH on a reservation stands for, used to match injected faults. */
function patchOperation(url: URL, body: unknown): OperationName {
  if (url.searchParams.has('action')) return 'reservations.cancel';
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  if (fields.arrived !== undefined) return 'reservations.markArrived';
  if (fields.no_show !== undefined) return 'reservations.markNoShow';
  return 'reservations.update';
}

function decodeBasic(header: string | null): { username: string; password: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  let decoded: string;
  try {
    decoded = new TextDecoder().decode(Uint8Array.from(atob(match[1]!), (character) => character.charCodeAt(0)));
  } catch {
    return undefined;
  }
  const separator = decoded.indexOf(':');
  if (separator < 0) return undefined;
  return { username: decoded.slice(0, separator), password: decoded.slice(separator + 1) };
}

function sameSecret(given: string, expected: string): boolean {
  // Length-independent comparison, so the fake never teaches a timing side channel by example.
  let difference = given.length ^ expected.length;
  for (let index = 0; index < expected.length; index += 1) difference |= expected.charCodeAt(index) ^ given.charCodeAt(index % Math.max(1, given.length));
  return difference === 0;
}

/**
 * A stateful, in-memory stand-in for the Restaurant Reservation Partner Service.
 * Create it with {@link createFakeService} (from `restaurant-partner-sdk/testing`).
 */
export class FakeService {
  /** The fake's clock: rate limits, lead times, timestamps and delivery retries follow it. */
  readonly clock: FakeClock;
  /** The dialect in force (answers where the spec is silent). */
  readonly dialect: Dialect;
  /** Base URL `clientOptions()` hands out. */
  readonly baseUrl: string;
  /** @internal Named snapshots of the `/_fake/snapshots` routes. */
  readonly namedSnapshots = new Map<string, FakeSnapshot>();
  /** @internal */
  readonly internalFaults = new FaultList();
  /** MSW handlers (`setupServer(...fake.handlers)`); set by `createFakeService` from `restaurant-partner-sdk/testing`. */
  handlers: HttpHandler[] = [];

  /** Restaurant-side actions: each sends the spec's event to the partner's webhooks. */
  readonly asRestaurant: {
    /** "The restaurant has manually confirmed the reservation": RESERVATION_CONFIRMED. */
    confirm(restaurantId: number, reservationId: number): Promise<Record<string, unknown>>;
    /** Changes time, party or guest details (re-checks availability): RESERVATION_MODIFIED. */
    modify(restaurantId: number, reservationId: number, changes: Record<string, unknown>): Promise<Record<string, unknown>>;
    /** RESERVATION_CANCELLED (a repeat is a no-op without event). */
    cancel(restaurantId: number, reservationId: number): Promise<Record<string, unknown>>;
  };
  /** Customer-side actions: modify and cancel, with the same events. */
  readonly asCustomer: {
    modify(restaurantId: number, reservationId: number, changes: Record<string, unknown>): Promise<Record<string, unknown>>;
    cancel(restaurantId: number, reservationId: number): Promise<Record<string, unknown>>;
  };

  #state: FakeState = emptyState();
  #seed: SeedOption;
  #limiter: SlidingWindowLimiter | undefined;
  readonly #deliveries: Deliveries;
  readonly #delayedCommits = new DelayedCommits();
  readonly #log: (line: string) => void;
  readonly #errorLog: (line: string) => void;
  readonly #internals: FakeInternals;

  constructor(options: FakeServiceOptions = {}) {
    this.clock = options.clock instanceof FakeClock ? options.clock : new FakeClock(options.clock);
    this.dialect = resolveDialect(options.dialect);
    this.baseUrl = (options.baseUrl ?? 'https://partner-api.fake.invalid').replace(/\/+$/, '');
    this.#log = options.logger ?? (() => undefined);
    // An internal error is always worth a line, even when request logging is off.
    this.#errorLog = options.logger ?? ((line) => console.error(line));
    this.#seed = options.seed ?? 'none';
    this.setRateLimit(options.rateLimit ?? 1);
    this.#deliveries = new Deliveries(() => this.#state, this.clock, this.#log, options.deliveries);
    const fake = this;
    this.#internals = {
      get state() {
        return fake.#state;
      },
      clock: this.clock,
      dialect: this.dialect,
      deliveryQueue: this.#deliveries,
      serializeReservation: (record) => serializeReservation(record, this.#state.restaurants.get(record.restaurantId)!, this.dialect.duration),
      emit: (event: EventType, record: ReservationRecord) => {
        // "Events cover the partner's own reservations": other-channel bookings send nothing.
        if (record.channel.kind !== 'partner') return;
        this.#deliveries.enqueue(event, record.channel.partnerId, record.restaurantId, this.#internals.serializeReservation(record));
      },
    };
    this.clock.attachDueWork(this.#deliveries);
    this.clock.attachDueWork(this.#delayedCommits);
    const act = (run: () => ReservationRecord) => async () => {
      const record = asControlCall(run);
      await this.flush();
      return this.#internals.serializeReservation(record);
    };
    this.asRestaurant = {
      confirm: (restaurantId, reservationId) => act(() => confirmAsRestaurant(this.#internals, restaurantId, reservationId))(),
      modify: (restaurantId, reservationId, changes) => act(() => modifyAsRestaurantOrCustomer(this.#internals, restaurantId, reservationId, changes))(),
      cancel: (restaurantId, reservationId) => act(() => cancelAsRestaurantOrCustomer(this.#internals, restaurantId, reservationId))(),
    };
    this.asCustomer = { modify: this.asRestaurant.modify, cancel: this.asRestaurant.cancel };
    this.#applySeed();
  }

  /** @internal What resource and control modules see. */
  get internals(): FakeInternals {
    return this.#internals;
  }

  /**
   * Serves one request: the partner API under `/api/v1/partnership/` (any host, any path prefix)
   * and the control API under `/_fake/`. Never throws: unexpected errors answer 500 JSON.
   * An injected network error answers `Response.error()`; adapters turn it into a dropped connection.
   */
  async handle(request: Request, context: HandleContext = {}): Promise<Response> {
    try {
      const url = new URL(request.url);
      const apiIndex = url.pathname.indexOf(`${API_ROOT}/`);
      const profileWithoutSlash = url.pathname.endsWith(`${API_ROOT}/profile`);
      if (apiIndex >= 0 || profileWithoutSlash) {
        const rootIndex = apiIndex >= 0 ? apiIndex : url.pathname.length - `${API_ROOT}/profile`.length;
        const response = await this.#handleApi(request, url, rootIndex).catch((error: unknown) => {
          if (error instanceof HttpProblem) return error.response;
          throw error;
        });
        this.#log(`${request.method} ${url.pathname}${url.search} -> ${response.type === 'error' ? 'connection dropped' : response.status}`);
        return response;
      }
      const controlIndex = url.pathname.indexOf('/_fake/');
      if (controlIndex >= 0 || url.pathname.endsWith('/_fake')) {
        if (context.controlAllowed === false) return errorResponse(403, 'The control API answers loopback callers only.');
        return await handleControl(this, request, controlIndex >= 0 ? url.pathname.slice(controlIndex + '/_fake/'.length) : '');
      }
      return notFound(`Not found. The partner API is under ${API_ROOT}/ and the control API under /_fake/.`);
    } catch (error) {
      if (error instanceof HttpProblem) return error.response;
      const message = error instanceof Error ? error.message : String(error);
      this.#errorLog(`fake: internal error on ${request.method} ${request.url}: ${error instanceof Error ? error.stack : message}`);
      return errorResponse(500, `Internal error in the fake: ${message}`);
    }
  }

  async #handleApi(request: Request, url: URL, rootIndex: number): Promise<Response> {
    const method = request.method.toUpperCase();
    const rest = url.pathname.slice(rootIndex + API_ROOT.length + 1);
    // Spec, Authentication 3: "When a request has no valid credentials, then the response is
    // 401 Unauthorized." The fake's choice: authentication before rate limiting.
    const credentials = decodeBasic(request.headers.get('authorization'));
    const partner = credentials && this.#state.partners.get(credentials.username.toLowerCase());
    if (!credentials || !partner || !sameSecret(credentials.password, partner.apiToken)) {
      const detail = credentials ? 'Invalid username/password.' : 'Authentication credentials were not provided.';
      return errorResponse(401, detail, {}, { 'www-authenticate': 'Basic realm="api"' });
    }
    // Spec, Limits: "1 request per second per partner ... beyond it the response is 429."
    if (this.#limiter) {
      const admission = this.#limiter.admit(partner.partnerId, this.clock.now());
      if (!admission.allowed) {
        return errorResponse(429, `Request was throttled. Expected available in ${admission.retryAfterSeconds} second${admission.retryAfterSeconds === 1 ? '' : 's'}.`, {}, {
          'retry-after': String(admission.retryAfterSeconds),
        });
      }
    }
    const route = routes.find((candidate) => candidate.pattern.test(rest));
    if (!route) {
      const hint = rest.endsWith('/') ? '' : ' Paths end with a slash, as in the spec.';
      return notFound(`Not found.${hint}`);
    }
    const handler = route.methods[method];
    if (!handler) return errorResponse(405, `Method "${method}" not allowed.`, {}, { allow: Object.keys(route.methods).join(', ') });
    const values = route.pattern.exec(rest)!.slice(1);
    const params: RouteParams = {};
    for (const [index, name] of route.params.entries()) {
      const raw = values[index]!;
      if (!/^\d{1,15}$/.test(raw) || Number(raw) === 0) return notFound();
      params[name] = Number(raw);
    }
    const body = method === 'GET' || method === 'DELETE' ? undefined : parseJsonBody(await readBodyText(request));
    const operation = handler.operation === 'reservations.patch' ? patchOperation(url, body) : handler.operation;
    if (method === 'PATCH' && url.searchParams.has('action') && url.searchParams.get('action') !== 'cancel') {
      return badRequest({ action: [`Unknown action "${url.searchParams.get('action')}"; the only action is cancel.`] });
    }

    const before = this.internalFaults.take(operation, 'before');
    if (before) {
      const answer = await this.#applyFault(before, request);
      if (answer) return answer;
    }
    const context: OperationContext = {
      fake: this.#internals,
      partner,
      params,
      url,
      request,
      body,
      apiRoot: `${url.origin}${url.pathname.slice(0, rootIndex)}${API_ROOT}`,
    };
    const after = this.internalFaults.take(operation, 'after');
    if (after?.commitDelayMs !== undefined) {
      // The gateway answers now; the origin commits later, on the fake's clock.
      this.#delayedCommits.schedule(this.clock.now() + after.commitDelayMs, async () => {
        const late = await this.#runOperation(handler.run, context).catch((error: unknown) => {
          this.#errorLog(`fake: internal error in the delayed commit of ${operation}: ${error instanceof Error ? error.stack : String(error)}`);
          return undefined;
        });
        if (late) this.#log(`${operation} committed ${after.commitDelayMs} ms after its injected fault -> ${late.status}`);
      });
      this.clock.rearm();
      return (await this.#applyFault(after, request))!;
    }
    const response = await this.#runOperation(handler.run, context);
    if (after) {
      const answer = await this.#applyFault(after, request);
      if (answer) return answer;
    }
    return response;
  }

  /** Runs an operation; a refusal thrown inside it becomes its answer. */
  async #runOperation(run: Operation, context: OperationContext): Promise<Response> {
    try {
      return await run(context);
    } catch (error) {
      if (!(error instanceof HttpProblem)) throw error;
      return error.response;
    }
  }

  /** Applies a fault: waits, then answers its status or drops the connection; undefined lets the request through. */
  async #applyFault(fault: ActiveFault, request: Request): Promise<Response | undefined> {
    await realDelay(fault.latencyMs, request.signal);
    if (fault.networkError) return Response.error();
    if (fault.status === undefined) return undefined;
    const body = fault.body === undefined ? { detail: 'Injected fault.' } : fault.body;
    if (fault.status === 204 || fault.status === 304) return empty(fault.status, fault.headers);
    return json(fault.status, body, fault.headers);
  }

  // ---- Control API (the same functions serve /_fake/) ----

  /** Adds a partner and answers its credentials. */
  addPartner(input: AddPartnerInput = {}): FakePartner {
    return asControlCall(() => addPartner(this, input));
  }

  /** Adds a restaurant (default: Europe/Brussels, synchronous, lunch and dinner every day, 40 covers). */
  addRestaurant(input: AddRestaurantInput = {}): FakeRestaurant {
    return asControlCall(() => addRestaurant(this, input));
  }

  /** Makes a restaurant accessible to a partner. */
  link(partnerId: string, restaurantId: number): void {
    asControlCall(() => link(this, { partnerId, restaurantId }));
  }

  /** A booking from another channel: takes capacity, is invisible to partners, sends no event. */
  addOtherChannelBooking(restaurantId: number, input: Record<string, unknown>): Record<string, unknown> {
    return asControlCall(() => this.#internals.serializeReservation(bookFromOtherChannel(this.#internals, restaurantId, input)));
  }

  /** Every reservation of a restaurant, whatever its channel, with `channel` and `partnerId` added. */
  allReservations(restaurantId: number): Record<string, unknown>[] {
    return [...this.#state.reservations.values()]
      .filter((record) => record.restaurantId === restaurantId)
      .sort((a, b) => a.start - b.start || a.id - b.id)
      .map((record) => ({
        ...this.#internals.serializeReservation(record),
        channel: record.channel.kind === 'partner' ? 'partner' : record.channel.name,
        partnerId: record.channel.kind === 'partner' ? record.channel.partnerId : null,
      }));
  }

  /** The delivery log, oldest first (a copy). */
  get deliveries(): DeliveryLogEntry[] {
    return structuredClone(this.#state.deliveries);
  }

  /** Waits until every delivery that is due has been attempted. */
  async flush(): Promise<void> {
    await this.clock.runDue();
  }

  /** Receives deliveries for `url` in-process instead of over HTTP. Returns a function that unregisters it. */
  registerDeliveryHandler(url: string, handler: DeliveryHandler): () => void {
    return this.#deliveries.registerHandler(url, handler);
  }

  /** @internal Used by the MSW adapter to send deliveries past its own interception. */
  setDeliveryFetch(sender: DeliveryFetch): void {
    this.#deliveries.setFetch(sender);
  }

  /**
   * Makes matching requests fail: a status, real-time latency, or a dropped connection, once or
   * `times` times, `before` the operation (default) or `after` it took effect.
   *
   * @example
   * ```ts
   * fake.injectFault({ operation: 'reservations.create', status: 503, phase: 'after' });
   * ```
   */
  injectFault(fault: FaultSpec): void {
    asControlCall(() => this.internalFaults.add(parseFault(fault)));
  }

  /** Removes every pending fault. */
  clearFaults(): void {
    this.internalFaults.clear();
  }

  /** Faults still waiting to hit. */
  get faults(): readonly ActiveFault[] {
    return this.internalFaults.pending;
  }

  /** The rate limit in force (requests per second per partner), or false. */
  get rateLimit(): RateLimitSetting {
    return this.#limiter?.requestsPerSecond ?? false;
  }

  /** Changes the rate limit (windows start afresh). */
  setRateLimit(setting: RateLimitSetting): void {
    this.#limiter = setting === false ? undefined : new SlidingWindowLimiter(setting);
  }

  /** A copy of the whole state (not the clock, faults or rate-limit windows). */
  snapshot(): FakeSnapshot {
    return { kind: 'restaurant-partner-fake-snapshot', state: structuredClone(this.#state) };
  }

  /** Puts back a snapshot (pending delivery retries included). */
  restore(snapshot: FakeSnapshot): void {
    if (snapshot?.kind !== 'restaurant-partner-fake-snapshot') throw new TypeError('expected a snapshot taken with fake.snapshot()');
    this.#state = structuredClone(snapshot.state);
    this.clock.rearm();
  }

  /** Back to the seeded state: clears data, deliveries, faults, delayed commits and rate-limit windows (the clock and delivery handlers stay). */
  reset(): void {
    this.#state = emptyState();
    this.internalFaults.clear();
    this.#delayedCommits.clear();
    this.setRateLimit(this.rateLimit);
    this.#applySeed();
    this.clock.rearm();
  }

  /** Partners (with credentials) and restaurants, as printed by the standalone server. */
  describeSeed(): SeedDescription {
    return {
      partners: [...this.#state.partners.values()].map(({ partnerId, apiToken, name }) => ({ partnerId, apiToken, name })),
      restaurants: [...this.#state.restaurants.values()].map((restaurant) => describeRestaurant(this, restaurant)),
    };
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
      const response = await this.handle(new Request(input, init));
      // What fetch does when the connection drops: reject with a TypeError.
      if (response.type === 'error') throw new TypeError('fetch failed', { cause: new Error('connection dropped by the fake (injected networkError)') });
      return response;
    };
    return {
      baseUrl: this.baseUrl,
      partnerId: partner.partnerId,
      apiToken: partner.apiToken,
      rateLimit: rate === false ? false : createRateLimiter({ requestsPerSecond: rate, clock: this.clock }),
      clock: this.clock,
      fetch: send as typeof fetch,
    };
  }

  /** Stops the clock's real-time timer (pending retries stay queued). */
  dispose(): void {
    this.clock.dispose();
  }

  #applySeed(): void {
    if (this.#seed === 'demo') seedDemo(this);
    else if (typeof this.#seed === 'function') this.#seed(this);
    else if (this.#seed !== 'none') throw new RangeError(`seed must be "demo", "none" or a function (got "${String(this.#seed)}")`);
  }

}

/** Creates a fake without MSW handlers (the standalone server's entry; `restaurant-partner-sdk/testing` adds them). */
export function createFakeCore(options: FakeServiceOptions = {}): FakeService {
  return new FakeService(options);
}
