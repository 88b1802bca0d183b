/**
 * A typed client for the standalone fake (the `restaurant-partner-fake` bin, `startFakeServer`,
 * or one of its sandboxes): the in-process fake's API, over the control routes. A TypeScript
 * suite that runs the server once (a vitest `globalSetup`) then drives it as it would drive
 * `createFakeService()`, each call answered by HTTP.
 * @module
 */
import type { Reservation } from '../resources/reservations.schemas.js';
import type { FakeReservation } from './backend/fake-reservations.js';
import type { Dialect } from './backend/dialects.js';
import type { DialectFile } from '../dialect/file.js';
import { FakeError } from './backend/fake-error.js';
import type { ActiveFault, FaultSpec } from './backend/faults.js';
import type { JournalEntry } from './backend/journal.js';
import type { AddPartnerInput, FakePartner } from './backend/partners.js';
import type { RateLimitSetting } from './backend/rate-limit.js';
import type { AddRestaurantInput, FakeRestaurant } from './backend/restaurants.js';
import type { DeliveryLogEntry, WebhookEventType } from './backend/state.js';
import type { TEST_EVENT } from '../resources/event-names.js';
import type { DeliveryChaosInput, DeliveryChaosSettings } from './backend/chaos.js';
import type { Webhook } from '../resources/webhooks.schemas.js';
import { noDeliveryWithin, type WaitForDeliveryOptions } from './delivery-wait.js';
import type { SeedDescription } from './fake-options.js';
import { control, describeWorld, type ControlCaller } from './remote-control.js';

/** A partner's credentials, as the seed, `addPartner()` and `clientOptions()` give them. */
export interface PartnerCredentials {
  partnerId: string;
  apiToken: string;
}

/** Options for `new PartnerClient(...)` that talk to a standalone fake over HTTP. */
export interface RemoteClientOptions extends PartnerCredentials {
  baseUrl: string;
}

/** The fake's clock, driven over HTTP: each call answers the time it left the clock at. */
export interface RemoteClock {
  now(): Promise<Date>;
  /** Moves time forward (`'PT1H'` or milliseconds), running delivery retries and delayed commits that fall due. */
  advance(duration: string | number): Promise<Date>;
  /** Sets the time (never backwards). */
  set(instant: Date | string | number): Promise<Date>;
}

/** What a restaurant (and a customer) can do to a booking, as in-process. */
export interface RemoteRestaurantActions {
  confirm(restaurantId: number, reservationId: number): Promise<Reservation>;
  modify(restaurantId: number, reservationId: number, changes: Record<string, unknown>): Promise<Reservation>;
  cancel(restaurantId: number, reservationId: number): Promise<Reservation>;
  /** The guest arrived (no event: the spec names none). */
  arrive(restaurantId: number, reservationId: number): Promise<Reservation>;
  /** The guest never came (no event). */
  noShow(restaurantId: number, reservationId: number): Promise<Reservation>;
}

/** How much of the world `state()` answers. */
export interface RemoteStateOptions {
  /** The latest reservations of every channel (default 500, at most 5000). */
  reservations?: number;
  /** The latest delivery attempts (default 1000, at most 1000). */
  deliveries?: number;
}

/** `GET /_fake/state`: clock, rate limit, dialect, partners, restaurants, reservations, webhooks, faults, deliveries. */
export interface RemoteState {
  clock: { now: string; frozen: boolean };
  rateLimit: { requestsPerSecond: RateLimitSetting };
  dialect: Dialect;
  /** `apiToken` is null for a caller not on loopback. */
  partners: { partnerId: string; name: string; apiToken: string | null }[];
  restaurants: FakeRestaurant[];
  /** The latest bookings of every channel, by restaurant then start time. */
  reservations: (FakeReservation & {
    restaurantId: number;
    cancelledBy: 'partner' | 'restaurant' | 'customer' | null;
  })[];
  reservationsTotal: number;
  /** Without their tokens (shown on create and regenerate only). */
  webhooks: (Webhook & { partnerId: string })[];
  faults: readonly ActiveFault[];
  deliveries: DeliveryLogEntry[];
  deliveriesTotal: number;
  pendingDeliveries: { eventId: string; event: string; webhookId: number; attempt: number; dueAt: string }[];
  remoteViewer: boolean;
}

/** A standalone fake (or one sandbox of it), typed: what `createFakeService()` offers, over HTTP. */
export interface RemoteFake {
  /** The partner API's base URL: the server's, or the sandbox's. */
  readonly url: string;
  /** The control API's root (`<url>/_fake`). */
  readonly controlUrl: string;
  /** Partners (with credentials) and restaurants when connected: the seeded data. */
  readonly seed: SeedDescription;
  readonly asRestaurant: RemoteRestaurantActions;
  readonly asCustomer: Pick<RemoteRestaurantActions, 'modify' | 'cancel'>;
  readonly clock: RemoteClock;
  /** Options for `new PartnerClient(...)`: this fake's URL and the partner's credentials (default: the first seeded partner). */
  clientOptions(partner?: PartnerCredentials): RemoteClientOptions;
  injectFault(fault: FaultSpec): Promise<void>;
  clearFaults(): Promise<void>;
  /** Faults still waiting to hit. */
  faults(): Promise<ActiveFault[]>;
  /** Changes answers where the spec is silent until the next `reset()`; answers the dialect in force. */
  setDialect(changes: Partial<Dialect>): Promise<Dialect>;
  /** Changes the rate limit until the next `reset()`. */
  setRateLimit(setting: RateLimitSetting): Promise<void>;
  /**
   * Resolves with the first answered delivery attempt of `event` that no earlier call returned,
   * waiting on the server for new attempts (each read once, never the whole log again); rejects
   * with a `FakeError` (408) after `timeoutMs` (default 5000).
   */
  waitForDelivery(
    event: WebhookEventType | typeof TEST_EVENT,
    options?: WaitForDeliveryOptions,
  ): Promise<DeliveryLogEntry>;
  /** The delivery log, oldest first. */
  deliveries(): Promise<DeliveryLogEntry[]>;
  /** The request journal, oldest first (no credentials). */
  requests(): Promise<JournalEntry[]>;
  addPartner(input?: AddPartnerInput): Promise<FakePartner>;
  addRestaurant(input?: AddRestaurantInput): Promise<FakeRestaurant>;
  link(partnerId: string, restaurantId: number): Promise<void>;
  /** A booking from another channel: takes capacity, invisible to partners, sends no event. */
  addOtherChannelBooking(restaurantId: number, input: Record<string, unknown>): Promise<Reservation>;
  /** Every reservation of a restaurant, whatever its channel. */
  allReservations(restaurantId: number): Promise<FakeReservation[]>;
  /** Attempts every delivery that is due. */
  flush(): Promise<void>;
  /** Back to the seeded state (the clock stays). */
  reset(): Promise<void>;
  /** The whole world at once, as the simulator page reads it (API tokens withheld from callers not on loopback). */
  state(options?: RemoteStateOptions): Promise<RemoteState>;
  /** Keeps a named copy of the state (reset drops them). */
  snapshot(name: string): Promise<void>;
  /** Puts a named snapshot back (pending delivery retries included). */
  restore(name: string): Promise<void>;
  /** Makes deliveries unreliable, seeded (`null` turns it off); answers the settings in force. */
  setDeliveryChaos(settings: DeliveryChaosInput | null): Promise<DeliveryChaosSettings | null>;
  /** The delivery chaos in force (its seed included), or null. */
  deliveryChaos(): Promise<DeliveryChaosSettings | null>;
  /** Sends a logged delivery (by its event id) again now, once, outside chaos; answers the attempt. */
  resend(eventId: string): Promise<DeliveryLogEntry>;
  /** Removes one pending fault (by the `id` `faults()` shows). */
  removeFault(faultId: number): Promise<void>;
  /** The rate limit in force, in requests per second per partner, or false. */
  rateLimit(): Promise<RateLimitSetting>;
  /** The dialect in force. */
  dialect(): Promise<Dialect>;
}

/** A sandbox of a standalone fake: its own world, ended by {@link RemoteSandbox.delete}. */
export interface RemoteSandbox extends RemoteFake {
  readonly id: string;
  /** Ends the sandbox (a second call, or one after it expired, resolves as well). */
  delete(): Promise<void>;
}

/** Options of {@link createSandbox}: how the new world starts. */
export interface CreateSandboxOptions {
  /** `demo` or `none` (default: as the server was seeded). */
  seed?: 'demo' | 'none';
  /** Requests per second per partner (default 1), or false. */
  rateLimit?: RateLimitSetting;
  dialect?: Partial<Dialect> | DialectFile;
}

/** The longest one look at the delivery log waits on the server (within its own bound, 30 s). */
const DELIVERY_WAIT_SLICE_MS = 25_000;

/** The control routes beyond the in-process fake's everyday methods: state, snapshots, chaos, resend. */
function controlPlane(
  call: ControlCaller,
): Pick<
  RemoteFake,
  | 'state'
  | 'snapshot'
  | 'restore'
  | 'setDeliveryChaos'
  | 'deliveryChaos'
  | 'resend'
  | 'removeFault'
  | 'rateLimit'
  | 'dialect'
> {
  return {
    state: (options = {}) => {
      const query = new URLSearchParams();
      for (const [key, value] of Object.entries(options))
        if (value !== undefined) query.set(key, String(value));
      return call('GET', `state${query.size > 0 ? `?${query}` : ''}`);
    },
    snapshot: async (name) => void (await call('POST', 'snapshots', { name })),
    restore: async (name) => void (await call('POST', `snapshots/${encodeURIComponent(name)}/restore`)),
    setDeliveryChaos: async (settings) =>
      settings === null
        ? (await call('DELETE', 'delivery-chaos'), null)
        : call('PUT', 'delivery-chaos', settings),
    deliveryChaos: () => call('GET', 'delivery-chaos'),
    resend: (eventId) => call('POST', `deliveries/${encodeURIComponent(eventId)}/resend`),
    removeFault: async (faultId) =>
      void (await call('DELETE', `faults/${encodeURIComponent(String(faultId))}`)),
    rateLimit: async () =>
      (await call<{ requestsPerSecond: RateLimitSetting }>('GET', 'rate-limit')).requestsPerSecond,
    dialect: () => call('GET', 'dialect'),
  };
}

function bind(url: string, seed: SeedDescription): RemoteFake {
  const root = url.replace(/\/+$/, '');
  const controlUrl = `${root}/_fake`;
  const call = <Answer>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', route: string, body?: unknown) =>
    control<Answer>(controlUrl, method, route, body);
  const reservationAction =
    (action: string, by?: 'restaurant' | 'customer') =>
    (restaurantId: number, reservationId: number, changes: Record<string, unknown> = {}) =>
      call<Reservation>(
        'POST',
        `restaurants/${restaurantId}/reservations/${reservationId}/${action}`,
        by === undefined ? undefined : { ...changes, by },
      );
  const clockAnswer = (answer: { now: string }) => new Date(answer.now);
  /** Delivery attempts a `waitForDelivery` already returned, by event id, webhook and attempt. */
  const claimed = new Set<string>();
  return {
    url: root,
    controlUrl,
    seed,
    asRestaurant: {
      confirm: reservationAction('confirm'),
      modify: reservationAction('modify', 'restaurant'),
      cancel: reservationAction('cancel', 'restaurant'),
      arrive: reservationAction('arrive'),
      noShow: reservationAction('no-show'),
    },
    asCustomer: {
      modify: reservationAction('modify', 'customer'),
      cancel: reservationAction('cancel', 'customer'),
    },
    clock: {
      now: async () => clockAnswer(await call('GET', 'clock')),
      advance: async (duration) =>
        clockAnswer(
          await call(
            'POST',
            'clock/advance',
            typeof duration === 'number' ? { milliseconds: duration } : { duration },
          ),
        ),
      set: async (instant) =>
        clockAnswer(
          await call('POST', 'clock/set', {
            now:
              instant instanceof Date
                ? instant.toISOString()
                : typeof instant === 'number'
                  ? new Date(instant).toISOString()
                  : instant,
          }),
        ),
    },
    clientOptions(partner) {
      const chosen = partner ?? seed.partners[0];
      if (!chosen)
        throw new TypeError(
          `The fake at ${root} was seeded with no partner: pass one (await fake.addPartner()) to clientOptions.`,
        );
      if (!chosen.apiToken)
        throw new TypeError(
          `The fake at ${root} withheld the API token of partner ${chosen.partnerId} (it answers callers not on loopback without tokens): pass the partner's credentials to clientOptions.`,
        );
      return { baseUrl: root, partnerId: chosen.partnerId, apiToken: chosen.apiToken };
    },
    injectFault: async (fault) => void (await call('POST', 'faults', fault)),
    clearFaults: async () => void (await call('DELETE', 'faults')),
    faults: () => call('GET', 'faults'),
    setDialect: (changes) => call('POST', 'dialect', changes),
    setRateLimit: async (setting) => void (await call('POST', 'rate-limit', { requestsPerSecond: setting })),
    async waitForDelivery(event, options = {}) {
      const timeoutMs = options.timeoutMs ?? 5000;
      const deadline = performance.now() + timeoutMs;
      // The first look reads the attempts of this event already logged (one may be unclaimed);
      // each next one waits on the server and reads only what was logged after the last mark.
      const seen: DeliveryLogEntry[] = [];
      let query = `event=${encodeURIComponent(event)}&waitMs=0`;
      for (;;) {
        const changes = await call<{ mark: string; deliveries: DeliveryLogEntry[] }>(
          'GET',
          `deliveries/changes?${query}`,
        );
        seen.push(...changes.deliveries);
        const found = changes.deliveries.find(
          (entry) =>
            entry.event === event &&
            entry.status !== null &&
            !claimed.has(`${entry.eventId} ${entry.webhookId} ${entry.attempt}`),
        );
        if (found) {
          claimed.add(`${found.eventId} ${found.webhookId} ${found.attempt}`);
          return found;
        }
        if (performance.now() >= deadline) throw noDeliveryWithin(event, timeoutMs, seen);
        const waitMs = Math.min(DELIVERY_WAIT_SLICE_MS, Math.max(1, Math.ceil(deadline - performance.now())));
        query = `after=${encodeURIComponent(changes.mark)}&waitMs=${waitMs}`;
      }
    },
    deliveries: () => call('GET', 'deliveries'),
    requests: () => call('GET', 'requests'),
    addPartner: (input = {}) => call('POST', 'partners', input),
    addRestaurant: (input = {}) => call('POST', 'restaurants', input),
    link: async (partnerId, restaurantId) => void (await call('POST', 'links', { partnerId, restaurantId })),
    addOtherChannelBooking: (restaurantId, input) =>
      call('POST', `restaurants/${restaurantId}/reservations`, input),
    allReservations: async (restaurantId) => {
      // The route answers in pages (bounded in size); read them until one comes back empty.
      const all: FakeReservation[] = [];
      for (;;) {
        const page = await call<FakeReservation[]>(
          'GET',
          `restaurants/${restaurantId}/reservations?offset=${all.length}`,
        );
        if (page.length === 0) return all;
        all.push(...page);
      }
    },
    flush: async () => void (await call('POST', 'deliveries/flush')),
    reset: async () => void (await call('POST', 'reset')),
    ...controlPlane(call),
  };
}

/**
 * Connects to a running standalone fake (or a sandbox's `url`) and answers its API, typed.
 *
 * @example
 * ```ts
 * import { PartnerClient } from 'restaurant-partner-sdk';
 * import { connectFake } from 'restaurant-partner-sdk/testing';
 * import { startFakeServer } from 'restaurant-partner-sdk/testing/node';
 *
 * const server = await startFakeServer({ seed: 'demo', rateLimit: false });
 * const fake = await connectFake(server.url);
 * const client = new PartnerClient({ ...fake.clientOptions(), rateLimit: false });
 * const [restaurant] = await client.restaurants.list();
 * await fake.clock.advance('PT1H');
 * await server.close();
 * ```
 */
export async function connectFake(url: string): Promise<RemoteFake> {
  return bind(url, await describeWorld(url));
}

/**
 * Creates a sandbox (an isolated world) on the standalone fake at `url` and answers the same API
 * bound to it; `delete()` ends it. Parallel suites, or test files, each take one.
 *
 * @example
 * ```ts
 * import { PartnerClient } from 'restaurant-partner-sdk';
 * import { createSandbox } from 'restaurant-partner-sdk/testing';
 * import { startFakeServer } from 'restaurant-partner-sdk/testing/node';
 *
 * const server = await startFakeServer({ seed: 'demo' });
 * const sandbox = await createSandbox(server.url, { rateLimit: false });
 * const client = new PartnerClient({ ...sandbox.clientOptions(), rateLimit: false });
 * await client.restaurants.list();
 * await sandbox.delete();
 * await server.close();
 * ```
 */
export async function createSandbox(url: string, options: CreateSandboxOptions = {}): Promise<RemoteSandbox> {
  const root = url.replace(/\/+$/, '');
  const created = await control<SeedDescription & { id: string; url: string }>(
    `${root}/_fake`,
    'POST',
    'sandboxes',
    options,
  );
  const sandbox = bind(created.url, { partners: created.partners, restaurants: created.restaurants });
  return {
    ...sandbox,
    id: created.id,
    async delete() {
      try {
        await control(`${root}/_fake`, 'DELETE', `sandboxes/${encodeURIComponent(created.id)}`);
      } catch (error) {
        // Already gone (deleted before, or expired after being idle): what delete() promises holds.
        if (!(error instanceof FakeError && error.status === 404)) throw error;
      }
    },
  };
}
