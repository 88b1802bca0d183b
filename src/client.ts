/**
 * `PartnerClient`: holds the options, builds the transport, and exposes the resources.
 * @module
 */
import { InputValidationError } from './errors.js';
import { Profile } from './resources/profile.js';
import { Reservations } from './resources/reservations.js';
import type { ResourceContext } from './resources/resource.js';
import { Restaurants } from './resources/restaurants.js';
import { rawRequest, type RawRequest } from './resources/request.js';
import type { ApiPromise } from './transport/api-promise.js';
import type * as z from 'zod/mini';
import { Webhooks } from './resources/webhooks.js';
import { createBasicAuth } from './transport/auth.js';
import { createSecrets } from './transport/secrets.js';
import { systemClock, type Clock } from './transport/clock.js';
import { checkPriority, type Priority, type RateLimiter } from './transport/rate-limiter.js';
import { sharedRateLimiter } from './transport/shared-limiters.js';
import { checkRequestOptions } from './transport/validate.js';
import { consoleLogger, type Logger } from './logger.js';
import {
  API_PREFIX,
  Transport,
  type Call,
  type ClientHooks,
  type RequestOptions,
} from './transport/transport.js';
import { checkHeaders, mergeHeaders, type RequestHeaders } from './transport/headers.js';
import { createLevelledLogger, resolveLogLevel, type LogLevel } from './transport/log-level.js';
import { resolveResponseValidation, type ResponseValidation } from './transport/response-validation.js';
import { checkRestaurantTimezones } from './restaurant-timezones.js';
import { createMemoryBookingLedger, type BookingLedger } from './lib/booking-ledger.js';
import { isLoopbackHost, serviceOf } from './transport/service.js';
import { DEFAULT_AMBIGUOUS_HOLD_MS } from './lib/idempotent-create.js';
import { createDialectWatch } from './dialect/watch.js';
import type { DialectFile } from './dialect/file.js';
import type { DialectPointValues } from './dialect/points.js';

/** Options of {@link PartnerClient}. */
export interface ClientOptions {
  /** The service's `{base_url}`: scheme, host and any path prefix. The client appends `/api/v1/partnership/...`. */
  baseUrl: string;
  /** The partner UUID (the Basic auth username). */
  partnerId: string;
  /** The partner API token (the Basic auth password). Never logged, never shown. */
  apiToken: string;
  /** Per-attempt timeout in milliseconds. Default 30 000. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 3. */
  maxRetries?: number;
  /**
   * Client-side rate limit. Default `{ requestsPerSecond: 1 }` (the service's limit). Clients of
   * the same partner on the same service (same base URL; `localhost`, `127.0.0.1` and `[::1]` are one)
   * given the same `{ requestsPerSecond, maxQueue }`, or none, share one limiter in a process: one
   * budget, as the service counts it. Pass a {@link RateLimiter} (such as `createRedisRateLimiter`
   * for several processes) to choose the limiter yourself, or `false` to turn it off.
   */
  rateLimit?: { requestsPerSecond: number; maxQueue?: number } | RateLimiter | false;
  /**
   * The rate-limit priority of this client's calls: `'interactive'` (default; a person waits for
   * the answer) or `'background'` (a job that can wait, served only when no interactive call of
   * the partner waits). Per call too (`{ priority }`).
   */
  priority?: Priority;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
  /** Where log lines go. Default: the console. `silentLogger` drops everything. */
  logger?: Logger;
  /**
   * Which lines reach the logger: `debug` (every attempt and answer: method, redacted URL, status,
   * attempt, duration), `info` (retries, rate-limit pauses), `warn` (the default), `error` or
   * `off`. When not given, the `RESTAURANT_PARTNER_LOG` environment variable decides. Lines never
   * carry the token or the Basic credential, nor request headers or bodies.
   */
  logLevel?: LogLevel;
  /**
   * Headers sent with every request (tracing, a gateway's key). Per call, `headers` adds to them or
   * removes one (`null`). Headers the SDK sets itself (`authorization`, `idempotency-key`,
   * `content-type`, `accept`, ...) are refused.
   */
  defaultHeaders?: Record<string, string>;
  /**
   * What an answer outside the documented contract does. `'strict'` (default): throws
   * `ResponseValidationError` naming the field. `'warn'`: logs one warning naming the fields and
   * returns the data as received, typed as the contract although the named fields may not match
   * it. When not given, the `RESTAURANT_PARTNER_RESPONSE_VALIDATION` environment variable decides.
   */
  responseValidation?: ResponseValidation;
  /**
   * Timezones of restaurants you already know (`{ 12: 'Europe/Brussels' }`, IANA names), so that
   * the first booking at each does not spend a request reading the restaurants list.
   */
  restaurantTimezones?: Record<string | number, string>;
  /** Observers of each attempt, retry and 429. */
  hooks?: ClientHooks;
  /**
   * Time source for retry sleeps and polling. Default: the real clock. The limiter built from
   * `{ requestsPerSecond }` always runs on real time; to pace on this clock too, pass
   * `rateLimit: createClockRateLimiter({ requestsPerSecond, clock })` from `restaurant-partner-sdk/testing`.
   */
  clock?: Clock;
  /** Also store each create's idempotency key in `metadata`, so it can be looked up. Default true. */
  idempotencyMetadata?: boolean;
  /**
   * Declares that the service honours `Idempotency-Key` (a repeated create with the same key
   * returns the first reservation instead of booking again). Only then does the client send a
   * create again after a failure that leaves its outcome unknown. Default false: the spec does not
   * promise it, so the client looks the key up instead and never sends a second create that could
   * book twice.
   */
  idempotencyKeyHonoured?: boolean;
  /**
   * After a create whose outcome is unknown (a gateway 5xx, a dropped connection, a timeout), how
   * long the client keeps looking its key up before it gives up with `AmbiguousCreateError`: a few
   * look-ups spread over this window, within the call's deadline, so a booking the service commits
   * a few seconds late is still found. Default 10 000 ms; 0 looks up once.
   */
  createLookupWindowMs?: number;
  /**
   * Where creates with your own `idempotencyKey` are claimed and their outcomes kept. Default
   * `createMemoryBookingLedger()`: one per process, shared by every client and every copy of this
   * package in it. Several processes or hosts need `createRedisBookingLedger` from
   * `restaurant-partner-sdk/redis`: with it, two processes creating with one key book once.
   */
  bookingLedger?: BookingLedger;
  /**
   * After a create ends in `AmbiguousCreateError` (your own key, or the random one in
   * `error.idempotencyKey`), or its process died after sending, how long a repeat with that key
   * sends nothing (it looks the key up, and returns the booking or throws `AmbiguousCreateError`
   * again with the same `holdUntil`), since the service may still commit the first.
   * Default 900 000 (15 minutes).
   */
  ambiguousHoldMs?: number;
  /**
   * A wait for the rate-limit budget longer than this gives one warning naming the operation and
   * its call id (the budget is too small for the calls made). Default 10 000 ms.
   */
  slowWaitWarnMs?: number;
  /**
   * Time limit of a whole call, in milliseconds: its rate-limit wait, every attempt, the retry
   * sleeps and any look-ups it makes. Per call too (`{ deadlineMs }`). Default 120 000.
   */
  deadlineMs?: number;
  /** Largest answer body the client reads, in bytes; a larger one is refused with `ResponseTooLargeError`. Default 10 MiB. */
  maxResponseBytes?: number;
  /** Most pages one list call follows; past it the list fails rather than reading on. Default 1000. */
  maxPages?: number;
  /**
   * The live service's answers where the interface is open: the parsed `partner-dialect.json`
   * that `restaurant-partner doctor` writes (or plain `{ createStatus: 201, ... }` switches).
   * Every answer is compared with the points it settles; a departure is logged once per client
   * and point (a warning naming the point), or fails the call under `strictDialect`. Points the
   * file lists as unknown are not watched. The client still accepts every plausible answer.
   */
  dialect?: DialectFile | Partial<DialectPointValues>;
  /**
   * With `dialect`: a departure fails the call with `DialectDriftError` instead of a warning (for
   * CI runs against a fake or a staging service). The answer was received, so a write may have
   * taken effect. Default false.
   */
  strictDialect?: boolean;
}

/**
 * What `withOptions` takes: any client option, with `defaultHeaders` merged over the client's
 * (`null` removes one) rather than replacing them.
 */
export type ClientOptionOverrides = Partial<Omit<ClientOptions, 'defaultHeaders'>> & {
  defaultHeaders?: RequestHeaders;
};

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 3;
const DEFAULT_DEADLINE_MS = 120_000;
const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
const DEFAULT_MAX_PAGES = 1000;
const DEFAULT_CREATE_LOOKUP_WINDOW_MS = 10_000;
const DEFAULT_SLOW_WAIT_WARN_MS = 10_000;

const isRateLimiter = (value: unknown): value is RateLimiter =>
  typeof value === 'object' && value !== null && typeof (value as RateLimiter).acquire === 'function';

function invalid(field: string, message: string): never {
  throw new InputValidationError([{ field, path: [field], code: 'invalid_option', message }]);
}

// Refused as input naming the field, like every other option, rather than as the limiter's RangeError.
function checkRateLimitOption(rateLimit: unknown): void {
  if (rateLimit === false || isRateLimiter(rateLimit)) return;
  if (typeof rateLimit !== 'object' || rateLimit === null) {
    invalid('rateLimit', 'expected { requestsPerSecond }, a RateLimiter, or false');
  }
  const { requestsPerSecond, maxQueue } = rateLimit as { requestsPerSecond?: unknown; maxQueue?: unknown };
  if (!(
    typeof requestsPerSecond === 'number' &&
    requestsPerSecond > 0 &&
    Number.isFinite(requestsPerSecond)
  )) {
    invalid('rateLimit.requestsPerSecond', 'expected a finite number > 0');
  }
  if (
    maxQueue !== undefined &&
    !(typeof maxQueue === 'number' && Number.isSafeInteger(maxQueue) && maxQueue >= 0)
  ) {
    invalid('rateLimit.maxQueue', 'expected an integer >= 0');
  }
}

function checkLimitOptions(options: ClientOptions): void {
  const { maxResponseBytes, maxPages, createLookupWindowMs, idempotencyKeyHonoured } = options;
  if (maxResponseBytes !== undefined && !(Number.isSafeInteger(maxResponseBytes) && maxResponseBytes > 0))
    invalid('maxResponseBytes', 'expected an integer number of bytes > 0');
  if (maxPages !== undefined && !(Number.isSafeInteger(maxPages) && maxPages > 0))
    invalid('maxPages', 'expected an integer > 0');
  if (
    createLookupWindowMs !== undefined &&
    !(
      typeof createLookupWindowMs === 'number' &&
      createLookupWindowMs >= 0 &&
      Number.isFinite(createLookupWindowMs)
    )
  ) {
    invalid('createLookupWindowMs', 'expected a finite number of milliseconds >= 0');
  }
  if (idempotencyKeyHonoured !== undefined && typeof idempotencyKeyHonoured !== 'boolean')
    invalid('idempotencyKeyHonoured', 'expected a boolean');
  const { ambiguousHoldMs, bookingLedger, slowWaitWarnMs } = options;
  if (
    slowWaitWarnMs !== undefined &&
    !(typeof slowWaitWarnMs === 'number' && slowWaitWarnMs >= 0 && Number.isFinite(slowWaitWarnMs))
  )
    invalid('slowWaitWarnMs', 'expected a finite number of milliseconds >= 0');
  if (
    ambiguousHoldMs !== undefined &&
    !(typeof ambiguousHoldMs === 'number' && ambiguousHoldMs >= 0 && Number.isFinite(ambiguousHoldMs))
  ) {
    invalid('ambiguousHoldMs', 'expected a finite number of milliseconds >= 0');
  }
  if (bookingLedger !== undefined) {
    const ledger = bookingLedger as Partial<Record<keyof BookingLedger, unknown>> | null;
    if (
      typeof ledger !== 'object' ||
      ledger === null ||
      !(['claim', 'renew', 'settle'] as const).every((name) => typeof ledger[name] === 'function')
    ) {
      invalid(
        'bookingLedger',
        'expected a booking ledger (createMemoryBookingLedger() or createRedisBookingLedger(...))',
      );
    }
  }
}

// Checked here rather than failing at the first call as a misleading ConnectionError or TypeError.
function checkCallbackOptions(options: { fetch?: unknown; logger?: unknown; hooks?: unknown }): void {
  const { fetch: customFetch, logger, hooks } = options;
  if (customFetch !== undefined && typeof customFetch !== 'function')
    invalid('fetch', 'expected a fetch function');
  if (logger !== undefined) {
    if (typeof logger !== 'object' || logger === null)
      invalid('logger', 'expected an object with warn and error methods');
    const candidate = logger as Partial<Record<keyof Logger, unknown>>;
    for (const level of ['warn', 'error'] as const) {
      if (typeof candidate[level] !== 'function') invalid(`logger.${level}`, 'expected a function');
    }
    for (const level of ['debug', 'info'] as const) {
      if (candidate[level] !== undefined && typeof candidate[level] !== 'function')
        invalid(`logger.${level}`, 'expected a function');
    }
  }
  if (hooks !== undefined) {
    if (typeof hooks !== 'object' || hooks === null) invalid('hooks', 'expected an object of hook functions');
    // Only the known hooks: the object may carry anything else of the caller's.
    for (const name of ['onRequest', 'onResponse', 'onRetry', 'onRateLimited'] as const) {
      const hook = (hooks as Record<string, unknown>)[name];
      if (hook !== undefined && typeof hook !== 'function') invalid(`hooks.${name}`, 'expected a function');
    }
  }
}

/**
 * The service URL, checked. A `baseUrl` copied with the API prefix (`.../api/v1/partnership/`) is
 * accepted with the prefix removed (`prefixRemoved`), since the client appends it itself and a
 * doubled prefix would make every call a 404; an operation's URL is refused.
 */
function normaliseBaseUrl(baseUrl: unknown): { url: URL; prefixRemoved: boolean } {
  if (typeof baseUrl !== 'string' || baseUrl === '')
    invalid('baseUrl', 'expected the service URL, for example https://api.example.com');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    invalid('baseUrl', 'expected an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    invalid('baseUrl', 'expected an http or https URL');
  // Credentials in the URL would travel outside the Authorization header and show in logs.
  if (url.username || url.password)
    invalid('baseUrl', 'must not contain credentials; pass partnerId and apiToken instead');
  url.search = '';
  url.hash = '';
  url.pathname = url.pathname.replace(/\/+$/, '');
  if (url.pathname.includes(`${API_PREFIX}/`)) {
    invalid(
      'baseUrl',
      `is the URL of an operation; pass the part before ${API_PREFIX}/ (the client appends the paths itself)`,
    );
  }
  const prefixRemoved = url.pathname.endsWith(API_PREFIX);
  if (prefixRemoved) url.pathname = url.pathname.slice(0, -API_PREFIX.length);
  return { url, prefixRemoved };
}

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
    if (!options || typeof options !== 'object')
      invalid('options', 'expected { baseUrl, partnerId, apiToken }');
    const { url: base, prefixRemoved } = normaliseBaseUrl(options.baseUrl);
    if (typeof options.partnerId !== 'string' || options.partnerId === '')
      invalid('partnerId', 'expected the partner UUID');
    if (typeof options.apiToken !== 'string' || options.apiToken === '')
      invalid('apiToken', 'expected the partner API token');
    checkRequestOptions({
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      deadlineMs: options.deadlineMs,
    });
    checkLimitOptions(options);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    const clock = options.clock ?? systemClock;

    const rateLimit = options.rateLimit ?? { requestsPerSecond: 1 };
    checkRateLimitOption(rateLimit);
    checkCallbackOptions(options);
    if (
      options.priority !== undefined &&
      options.priority !== 'interactive' &&
      options.priority !== 'background'
    )
      invalid('priority', "expected 'interactive' or 'background'");
    const defaultHeaders = checkHeaders(options.defaultHeaders, 'defaultHeaders', false) as Record<
      string,
      string
    >;
    const knownTimezones = checkRestaurantTimezones(options.restaurantTimezones);
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
