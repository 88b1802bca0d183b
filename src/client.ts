/**
 * `PartnerClient`: holds the options, builds the transport, and exposes the resources. What the
 * options are and how they are checked live in `client-options.ts` and `client-option-checks.ts`.
 * @module
 */
import { Profile } from './resources/profile.js';
import { Reservations } from './resources/reservations.js';
import type { ResourceContext } from './resources/resource.js';
import { Restaurants } from './resources/restaurants.js';
import { rawRequest, type RawRequest } from './resources/request.js';
import { ApiPromise, type WithResponse } from './transport/api-promise.js';
import { ListPromise, type Page } from './transport/pagination.js';
import type { CreateReservationOptions } from './lib/idempotent-create.js';
import type { RebookOptions } from './lib/rebook.js';
import type { WaitForConfirmationOptions } from './resources/reservation-confirmation.js';
import type { ApiErrorDetails, RequestErrorDetails } from './errors.js';
import type * as z from 'zod/mini';
import { Webhooks } from './resources/webhooks.js';
import { createBasicAuth } from './transport/auth.js';
import { createSecrets } from './transport/secrets.js';
import { systemClock } from './transport/clock.js';
import { checkPriority, type RateLimiter } from './transport/rate-limiter.js';
import { sharedRateLimiter } from './transport/shared-limiters.js';
import { consoleLogger } from './logger.js';
import { API_PREFIX, Transport, type Call, type RequestOptions } from './transport/transport.js';
import { mergeHeaders } from './transport/headers.js';
import { createLevelledLogger, resolveLogLevel, type LogLevel } from './transport/log-level.js';
import { resolveResponseValidation, type ResponseValidation } from './transport/response-validation.js';
import { createMemoryBookingLedger } from './lib/booking-ledger.js';
import { isLoopbackHost, serviceOf } from './transport/service.js';
import { DEFAULT_AMBIGUOUS_HOLD_MS } from './lib/idempotent-create.js';
import { createDialectWatch } from './dialect/watch.js';
import {
  DEFAULT_CREATE_LOOKUP_WINDOW_MS,
  DEFAULT_DEADLINE_MS,
  DEFAULT_MAX_PAGES,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_RETRIES,
  DEFAULT_SLOW_WAIT_WARN_MS,
  DEFAULT_TIMEOUT_MS,
  type ClientOptionOverrides,
  type ClientOptions,
} from './client-options.js';
import { checkClientOptions, invalid, isRateLimiter } from './client-option-checks.js';

export type { ClientOptions, ClientOptionOverrides } from './client-options.js';

/**
 * The Restaurant Reservation Partner Service client.
 *
 * @example
 * ```ts
 * import { PartnerClient } from 'restaurant-partner-sdk';
 * const client = new PartnerClient({ baseUrl, partnerId, apiToken });
 * const [restaurant] = await client.restaurants.list().toArray();
 * const reservation = await client.reservations.create(restaurant.id, {
 *   start_time: { date: '2026-12-05', time: '19:30' },
 *   adults: 2,
 * });
 * ```
 */
export class PartnerClient {
  /** The partner's profile. */
  readonly profile: Profile;
  /** Restaurants linked to the partner. */
  readonly restaurants: Restaurants;
  /** Reservations of a restaurant. */
  readonly reservations: Reservations;
  /** Webhooks of the partner. */
  readonly webhooks: Webhooks;
  /** The service URL (without credentials). */
  readonly baseUrl: string;
  /** The partner UUID. */
  readonly partnerId: string;
  /** The rate limiter every attempt of this client waits on (undefined when turned off). */
  readonly rateLimiter: RateLimiter | undefined;

  // Restaurant id -> IANA zone (null: the service gave none), and who hears of each reservation
  // created: shared with the copies `withOptions` makes for the same service and partner (set on
  // the copy right after it is built).
  #timezones: Map<string, string | null>;
  #createdListeners: ResourceContext['createdListeners'];
  #timezoneRefresh: Promise<void> | undefined;
  readonly #transport: Transport;
  readonly #settings: {
    timeoutMs: number;
    maxRetries: number;
    deadlineMs: number;
    logLevel: LogLevel;
    responseValidation: ResponseValidation;
  };
  // Builds a copy with changed options; a closure, so the options (and the token in them) are not
  // reachable as a field of the client.
  readonly #copy: (overrides: ClientOptionOverrides) => PartnerClient;

  constructor(options: ClientOptions) {
    const { base, prefixRemoved, rateLimit, defaultHeaders, knownTimezones } = checkClientOptions(options);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    const clock = options.clock ?? systemClock;
    const secrets = createSecrets(options.partnerId, options.apiToken);
    const baseLogger = options.logger ?? consoleLogger;
    // An unknown RESTAURANT_PARTNER_LOG leaves the level at warn, so its warning is always shown.
    const logLevel = resolveLogLevel(options.logLevel, (message) =>
      baseLogger.warn(secrets.scrubText(message)),
    );
    const logger = createLevelledLogger(baseLogger, logLevel, (value) => secrets.scrub(value));
    const responseValidation = resolveResponseValidation(options.responseValidation, (message) =>
      logger.warn(message),
    );
    const dialect = createDialectWatch(options.dialect, options.strictDialect, logger);
    this.rateLimiter =
      rateLimit === false
        ? undefined
        : isRateLimiter(rateLimit)
          ? rateLimit
          : sharedRateLimiter(options.partnerId, base, rateLimit);

    this.baseUrl = base.toString().replace(/\/+$/, '');
    this.partnerId = options.partnerId;
    const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
    this.#settings = { timeoutMs, maxRetries, deadlineMs, logLevel, responseValidation };
    if (prefixRemoved)
      logger.debug?.(
        `baseUrl ended in ${API_PREFIX}, which the client appends itself: using ${this.baseUrl}`,
      );
    if (base.protocol === 'http:' && !isLoopbackHost(base.hostname)) {
      logger.warn(
        `baseUrl ${this.baseUrl} uses plain http: the API token would cross the network unencrypted. Use https.`,
      );
    }

    const transport = (this.#transport = new Transport({
      baseUrl: this.baseUrl,
      partnerId: options.partnerId,
      auth: createBasicAuth(options.partnerId, options.apiToken),
      secrets,
      limiter: this.rateLimiter,
      priority: checkPriority(options.priority),
      clock,
      fetch: options.fetch,
      timeoutMs,
      maxRetries,
      deadlineMs,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      maxPages: options.maxPages ?? DEFAULT_MAX_PAGES,
      logger,
      hooks: options.hooks ?? {},
      defaultHeaders,
      responseValidation,
      slowWaitWarnMs: options.slowWaitWarnMs ?? DEFAULT_SLOW_WAIT_WARN_MS,
      dialect,
    }));
    // As given now: a later change to the caller's object must not reach copies made from this client.
    const given: ClientOptions = { ...options };
    this.#timezones = new Map(knownTimezones);
    this.#createdListeners = new Set();
    this.#copy = (overrides) => {
      const next: ClientOptions = {
        ...given,
        ...overrides,
        defaultHeaders: mergeHeaders(defaultHeaders, overrides.defaultHeaders, 'defaultHeaders'),
      };
      // One budget per partner: the copy waits on the same limiter unless told otherwise.
      if (!Object.hasOwn(overrides, 'rateLimit')) next.rateLimit = this.rateLimiter ?? false;
      const copy = new (this.constructor as typeof PartnerClient)(next);
      // The timezones are the same restaurants' only on the same service for the same partner.
      // Overridden `restaurantTimezones` go over this client's cache in a cache of the copy's own;
      // otherwise the copy shares this one (the parent's own were seeded once, and the service
      // may have corrected them since).
      if (next.baseUrl === given.baseUrl && next.partnerId === given.partnerId) {
        copy.#timezones = Object.hasOwn(overrides, 'restaurantTimezones')
          ? new Map([...this.#timezones, ...copy.#timezones])
          : this.#timezones;
        copy.#createdListeners = this.#createdListeners;
      }
      return copy;
    };
    const currentListeners = () => this.#createdListeners;
    const context: ResourceContext = {
      transport,
      idempotencyMetadata: options.idempotencyMetadata ?? true,
      idempotencyKeyHonoured: options.idempotencyKeyHonoured ?? false,
      createLookupWindowMs: options.createLookupWindowMs ?? DEFAULT_CREATE_LOOKUP_WINDOW_MS,
      bookingLedger: options.bookingLedger ?? createMemoryBookingLedger(),
      ambiguousHoldMs: options.ambiguousHoldMs ?? DEFAULT_AMBIGUOUS_HOLD_MS,
      partnerId: options.partnerId,
      service: serviceOf(this.baseUrl),
      timezoneFor: (restaurantId, requestOptions) => this.#timezoneFor(restaurantId, requestOptions),
      cachedTimezone: (restaurantId) => this.#timezones.get(String(restaurantId)),
      // Read when used: a withOptions copy receives its parent's set after it is built.
      get createdListeners() {
        return currentListeners();
      },
      rememberTimezones: (restaurants) => {
        for (const restaurant of restaurants) {
          const id = String(restaurant.id);
          // A list without a zone for a restaurant does not erase one the partner gave (restaurantTimezones).
          if (restaurant.timezone == null && this.#timezones.get(id)) continue;
          this.#timezones.set(id, restaurant.timezone ?? null);
        }
      },
    };
    this.profile = new Profile(context);
    this.restaurants = new Restaurants(context);
    this.reservations = new Reservations(context);
    this.webhooks = new Webhooks(context);
  }

  // Restaurants' timezones are cached for the client's life: at one request per second, reading
  // the list before every booking would halve the booking rate. A miss refreshes once (a newly
  // linked restaurant); concurrent misses share one refresh.
  async #timezoneFor(restaurantId: number | string, options?: RequestOptions | Call): Promise<string | null> {
    const key = String(restaurantId);
    if (this.#timezones.has(key)) return this.#timezones.get(key) ?? null;
    const call = this.#transport.call(options, 'restaurants.list');
    for (;;) {
      const shared = this.#timezoneRefresh;
      if (!shared) {
        const refresh: Promise<void> = this.restaurants
          .list(call)
          .toArray()
          .then(() => undefined)
          .finally(() => {
            if (this.#timezoneRefresh === refresh) this.#timezoneRefresh = undefined;
          });
        this.#timezoneRefresh = refresh;
        await refresh;
        break;
      }
      // Another call's refresh is waited for within this call's own signal and deadline. Its
      // failure (that caller's abort or deadline) is not this call's: this call then reads the list itself.
      const outcome = await call.within(
        shared.then(
          () => 'read' as const,
          () => 'failed' as const,
        ),
      );
      if (outcome === 'read') break;
    }
    return this.#timezones.get(key) ?? null;
  }

  /**
   * Sends an operation the SDK does not wrap (a restaurant's availability, which the spec names
   * but does not show) through the same pipeline as every other call: rate limiter (and
   * `priority`), retries, deadline, redaction, per-call options and `.withResponse()`.
   *
   * `path` is relative to `/api/v1/partnership/` (`restaurants/12/availability/`; the full path is
   * accepted too); one that would leave it is an `InputValidationError` naming `path`, before any
   * request. GET, PUT and DELETE are retried on a network error, 408 or 5xx; POST and PATCH only
   * when they certainly did not take effect (429, a connection never opened). Given a zod
   * `schema`, the answer is checked against it (`ResponseValidationError`, or a warning under
   * `responseValidation: 'warn'`) and typed by it; without one, the parsed JSON is returned as
   * `unknown` (`null` for an empty body).
   *
   * @example
   * ```ts
   * const slots = await client.request({ method: 'GET', path: `restaurants/${id}/availability/`, query: { date: '2026-12-05' } });
   * ```
   */
  request<Schema extends z.core.$ZodType>(
    request: RawRequest<Schema> & { schema: Schema },
    options?: RequestOptions,
  ): ApiPromise<z.output<Schema>>;
  request(request: RawRequest<undefined>, options?: RequestOptions): ApiPromise<unknown>;
  request(request: RawRequest, options?: RequestOptions): ApiPromise<unknown> {
    return rawRequest(this.#transport, request, options);
  }

  /**
   * A copy of this client with some options changed, for one part of an application (a longer
   * timeout for a batch job, tracing headers, `responseValidation: 'warn'`).
   *
   * Shared with this client unless the override changes them:
   * - the rate limiter (one budget per partner), unless `rateLimit` is given;
   * - the cache of restaurants' timezones, unless `baseUrl` or `partnerId` changes (other
   *   restaurants); given `restaurantTimezones`, the copy starts from this client's cache plus
   *   those, and no longer shares it.
   * `defaultHeaders` are merged over this client's (`null` removes one); any other option given
   * replaces this client's. The result is checked like a new client's options.
   *
   * @example
   * ```ts
   * const traced = client.withOptions({ defaultHeaders: { traceparent }, timeoutMs: 60_000 });
   * ```
   */
  withOptions(overrides: ClientOptionOverrides): PartnerClient {
    if (!overrides || typeof overrides !== 'object')
      invalid('overrides', 'expected an object of client options');
    return this.#copy(overrides);
  }

  /** A safe summary: never the token. */
  toJSON(): Record<string, unknown> {
    return {
      baseUrl: this.baseUrl,
      partnerId: this.partnerId,
      apiToken: '[REDACTED]',
      timeoutMs: this.#settings.timeoutMs,
      maxRetries: this.#settings.maxRetries,
      deadlineMs: this.#settings.deadlineMs,
      logLevel: this.#settings.logLevel,
      responseValidation: this.#settings.responseValidation,
      rateLimit: this.rateLimiter ? { queueDepth: this.rateLimiter.queueDepth } : false,
    };
  }

  /** What `console.log(client)` and `util.inspect(client)` show: the same safe summary. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `PartnerClient ${JSON.stringify(this.toJSON())}`;
  }
}

// The namespace below names these classes as values too (its declarations say so once bundled),
// so they are there at run time, as openai-node's are: `x instanceof PartnerClient.ListPromise`.
Object.assign(PartnerClient, { ApiPromise, ListPromise, Profile, Restaurants, Reservations, Webhooks });

/**
 * The types the client's methods take and return, by name, for your own signatures:
 * `PartnerClient.ListPromise<Reservation>`, `PartnerClient.Page<Reservation>`,
 * `PartnerClient.WithResponse<Reservation>`, `PartnerClient.CreateReservationOptions`, ...
 */
// eslint-disable-next-line @typescript-eslint/no-namespace -- the classes set on the client above and the types its methods take and return, under its own name, so that a project emitting declarations can write down what it infers from a method (the core entry's names are counted)
export declare namespace PartnerClient {
  export { ApiPromise, ListPromise, Profile, Restaurants, Reservations, Webhooks };
  export type {
    Page,
    WithResponse,
    RawRequest,
    CreateReservationOptions,
    RebookOptions,
    WaitForConfirmationOptions,
    RequestErrorDetails,
    ApiErrorDetails,
  };
}
