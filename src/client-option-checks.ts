/**
 * The checks of `PartnerClient`'s options, run in its constructor before anything is built: a bad
 * option is an `InputValidationError` naming the field and the rule, never a failure at the first
 * call. Apart from the client so the constructor reads as what it builds.
 * @module
 */
import { InputValidationError } from './errors.js';
import type { RateLimiter } from './transport/rate-limiter.js';
import type { Logger } from './logger.js';
import { API_PREFIX } from './transport/transport.js';
import type { BookingLedger } from './lib/booking-ledger.js';
import { checkHeaders } from './transport/headers.js';
import { checkRequestOptions } from './transport/validate.js';
import { checkRestaurantTimezones } from './restaurant-timezones.js';
import type { ClientOptions } from './client-options.js';

export const isRateLimiter = (value: unknown): value is RateLimiter =>
  typeof value === 'object' && value !== null && typeof (value as RateLimiter).acquire === 'function';

export function invalid(field: string, message: string): never {
  throw new InputValidationError([{ field, path: [field], code: 'invalid_option', message }]);
}

// Refused as input naming the field, like every other option, rather than as the limiter's RangeError.
export function checkRateLimitOption(rateLimit: unknown): void {
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

export function checkLimitOptions(options: ClientOptions): void {
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
export function checkCallbackOptions(options: { fetch?: unknown; logger?: unknown; hooks?: unknown }): void {
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
export function normaliseBaseUrl(baseUrl: unknown): { url: URL; prefixRemoved: boolean } {
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

/** What the checks of a new client's options resolved, for the constructor to build from. */
export interface CheckedClientOptions {
  base: URL;
  /** The `baseUrl` ended in the API prefix, which was removed (the constructor says so at debug). */
  prefixRemoved: boolean;
  rateLimit: NonNullable<ClientOptions['rateLimit']>;
  defaultHeaders: Record<string, string>;
  knownTimezones: ReturnType<typeof checkRestaurantTimezones>;
}

/** Every check of a new client's options, in one place, before anything is built. */
export function checkClientOptions(options: ClientOptions): CheckedClientOptions {
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
  return { base, prefixRemoved, rateLimit, defaultHeaders, knownTimezones };
}
