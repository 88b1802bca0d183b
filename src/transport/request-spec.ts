/**
 * What the transport is built with (the client's settings) and what a resource hands it for one
 * call (`RequestSpec`): the pipeline's inputs, apart from the pipeline so a resource reads only these.
 * @module
 */
import type { BasicAuth } from './auth.js';
import type { Call, RequestOptions } from './call.js';
import type { Clock } from './clock.js';
import type { Secrets } from './secrets.js';
import type { Priority, RateLimiter } from './rate-limiter.js';
import type { GuestFields } from './diagnostics.js';
import type { AnswerSource, ResponseValidation } from './response-validation.js';
import type { Logger } from '../logger.js';
import type { DialectWatch } from '../dialect/watch.js';
import type { ClientHooks } from './hooks.js';

/** The transport's settings, built once by the client. */
export interface TransportSettings {
  baseUrl: string;
  /** The partner UUID (whose limiter a followed service hands out). */
  partnerId: string;
  auth: BasicAuth;
  /** The secrets no error, log line or hook payload may show. */
  secrets: Secrets;
  limiter: RateLimiter | undefined;
  /** The priority of calls that do not give one. */
  priority: Priority;
  clock: Clock;
  fetch: typeof fetch | undefined;
  timeoutMs: number;
  maxRetries: number;
  /** Default time limit of a whole call; undefined for none. */
  deadlineMs: number | undefined;
  /** Largest answer body accepted, in bytes. */
  maxResponseBytes: number;
  /** Most pages one list call reads. */
  maxPages: number;
  /** Already filtered to the client's log level (`debug`/`info` absent below it), redacting the credentials, and never throwing (`createLevelledLogger`): a log line must not fail the call it reports. */
  logger: Logger;
  hooks: ClientHooks;
  /** Checked headers (lower-case names) sent with every request. */
  defaultHeaders: Readonly<Record<string, string>>;
  responseValidation: ResponseValidation;
  /** A wait for the rate-limit budget longer than this gives one warning. */
  slowWaitWarnMs: number;
  /** Checks each answer against the dialect the client was given (undefined: none given). */
  dialect?: DialectWatch | undefined;
}

/** What a call says of itself to observers, besides its operation. */
export interface CallDescription {
  restaurantId?: number | string | undefined;
  guest?: GuestFields | undefined;
}

/** One call as a resource describes it. */
export interface RequestSpec<T> {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  /** Path under `/api/v1/partnership`, built with the `path` helper. */
  path?: string;
  /** An absolute URL already checked to be on the service's origin (next pages). */
  url?: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Whether a network error, 408 or 5xx may be retried (the repeat cannot do harm). */
  safeToRepeat: boolean;
  /** The caller's options, or the call they already belong to (a sub-request shares its call). */
  options?: RequestOptions | Call | undefined;
  /** The public operation, when this request is a call of its own (`options` not a {@link Call}). */
  operation?: string | undefined;
  /** The restaurant the call is about, for observers. */
  restaurantId?: number | string | undefined;
  /** Validates and shapes the 2xx body (output validation); in warn mode `where` carries `offContract`. */
  parse(body: unknown, response: Response | null, where: AnswerSource): T;
  /**
   * Called when an attempt fails, before the retry decision; may settle the call with a body found
   * elsewhere or throw another error. Returns undefined to let the failure stand.
   */
  recover?(error: unknown, attempt: number): Promise<{ body: unknown } | undefined>;
  /** Replaces the default retry decision. */
  isRetryable?: (error: unknown) => boolean;
}
