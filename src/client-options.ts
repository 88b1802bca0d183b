/**
 * The options of `PartnerClient` as a partner passes them, and the defaults of those not given.
 * Their own module so the client reads as what it builds; the checks are in `client-option-checks.ts`.
 * @module
 */
import type { Clock } from './transport/clock.js';
import type { Priority, RateLimiter } from './transport/rate-limiter.js';
import type { Logger } from './logger.js';
import type { ClientHooks } from './transport/transport.js';
import type { RequestHeaders } from './transport/headers.js';
import type { LogLevel } from './transport/log-level.js';
import type { ResponseValidation } from './transport/response-validation.js';
import type { BookingLedger } from './lib/booking-ledger.js';
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

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_DEADLINE_MS = 120_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_PAGES = 1000;
export const DEFAULT_CREATE_LOOKUP_WINDOW_MS = 10_000;
export const DEFAULT_SLOW_WAIT_WARN_MS = 10_000;
