/**
 * The request pipeline, one layer each: throttle -> HTTP (ky) -> map errors -> retry (p-retry)
 * -> validate output. Resources hand it a path, a body, the caller's options and a parser; it
 * hands back the parsed data with the raw response. Every error leaving it is scrubbed of the
 * secrets by value, and every call ends by its deadline.
 * @module
 */
import {
  AbortError,
  ConnectionError,
  PartnerApiError,
  PartnerSdkError,
  RateLimitError,
  ResponseTooLargeError,
  ResponseValidationError,
  TimeoutError,
  type FieldIssue,
} from '../errors.js';
import type { WithResponse } from './api-promise.js';
import type { BasicAuth } from './auth.js';
import type { Clock } from './clock.js';
import { errorFromResponse, headersToObject, redactUrl } from './error-from-response.js';
import { markNeverSent, sendAttempt, untilAborted, wasNeverSent } from './http.js';
import type { Secrets } from './secrets.js';
import type { Priority, RateLimiter } from './rate-limiter.js';
import { DEFAULT_RATE_LIMIT_WAIT_MS, withRetries } from './retry.js';
import { checkRequestOptions } from './validate.js';
import { mergeHeaders, type RequestHeaders } from './headers.js';
import { reportOffContract, type ResponseValidation } from './response-validation.js';
import type { Logger } from '../logger.js';

/** Options every method takes as its last argument. */
export interface RequestOptions {
  /** Cancels the call: the request in flight, a wait for a rate-limit slot, or a retry sleep. */
  signal?: AbortSignal | undefined;
  /** Per-attempt timeout for this call, overriding the client's `timeoutMs`. */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt for this call, overriding the client's `maxRetries`. */
  maxRetries?: number | undefined;
  /**
   * Extra headers for this call, over the client's `defaultHeaders` (`null` removes a default one).
   * Headers the SDK sets itself (`authorization`, `idempotency-key`, `content-type`, `accept`, ...)
   * are refused.
   */
  headers?: RequestHeaders | undefined;
  /**
   * Time limit of the whole call, overriding the client's `deadlineMs`: rate-limit waits, every
   * attempt, retry sleeps and the look-ups a create may need all end by then.
   */
  deadlineMs?: number | undefined;
  /**
   * Which calls the rate limiter serves first: `'interactive'` (a person waits for the answer,
   * such as a guest's booking) or `'background'` (a job that can wait, such as a sync), granted a
   * slot only when no interactive call of the partner waits. Overrides the client's `priority`.
   */
  priority?: Priority | undefined;
}

// The absolute deadline a call fixed when it started, carried into its sub-requests (timezone
// look-up, look-ups by key, retrieve fallback, polling) so they share it instead of restarting it.
const CALL_DEADLINE = Symbol('callDeadline');
/** Per-call options with the call's deadline fixed: what {@link Transport.subRequestOptions} returns. */
export type CallOptions = RequestOptions & { readonly [CALL_DEADLINE]?: { at: number; ms: number } | undefined };

/** What hooks receive. Never headers: the request's carry the credentials. */
export interface RequestEvent {
  method: string;
  /** The URL with credentials and secret query values removed. */
  url: string;
  /** 1 for the first attempt, 2 for the first retry, ... */
  attempt: number;
  /** HTTP status, when there is an answer. */
  status?: number | undefined;
  /** Wait before the next attempt, in milliseconds (onRetry, onRateLimited). */
  delayMs?: number | undefined;
  /** Name of the error class that caused a retry (onRetry). */
  error?: string | undefined;
  /** How long the attempt took (onResponse). */
  durationMs?: number | undefined;
}

/** Observers of the pipeline. A hook that throws is logged and ignored: it never breaks a call. */
export interface ClientHooks {
  /** Before each attempt is sent (after its rate-limit wait). */
  onRequest?(event: RequestEvent): void;
  /** After each attempt is answered, whatever the status. */
  onResponse?(event: RequestEvent): void;
  /** Before each retry sleep. */
  onRetry?(event: RequestEvent): void;
  /** When the service answers 429 (the whole bucket pauses for `delayMs`). */
  onRateLimited?(event: RequestEvent): void;
}


/** The transport's settings, built once by the client. */
export interface TransportSettings {
  baseUrl: string;
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
  options?: RequestOptions | undefined;
  /** Validates and shapes the 2xx body (output validation). */
  parse(body: unknown, response: Response | null, where: { method: string; url: string }): T;
  /**
   * Called when an attempt fails, before the retry decision; may settle the call with a body found
   * elsewhere or throw another error. Returns undefined to let the failure stand.
   */
  recover?(error: unknown, attempt: number): Promise<{ body: unknown } | undefined>;
  /** Replaces the default retry decision. */
  isRetryable?(error: unknown): boolean;
}

/** The path prefix of every operation (spec: "all paths start with /api/v1/partnership/"). */
export const API_PREFIX = '/api/v1/partnership';

/** Most redirects followed for one read (each within the service's origin). */
const MAX_REDIRECTS = 5;

/** True when the failed request certainly never reached the server (refused connection, DNS failure, a wait that ended before sending): even a create may be sent again. */
export function neverReachedServer(error: unknown): boolean {
  return wasNeverSent(error);
}

/**
 * True when a failed attempt may have been carried out all the same: no answer (dropped, timed
 * out), 408, 5xx, a redirect (a write is never followed), an answer too large to read, or a 2xx
 * outside the contract.
 */
export function outcomeUnknown(error: unknown): boolean {
  if (wasNeverSent(error)) return false;
  if (error instanceof ConnectionError || error instanceof ResponseValidationError) return true;
  if (error instanceof ResponseTooLargeError) return error.status < 400 || error.status === 408 || error.status >= 500;
  return error instanceof PartnerApiError && (error.status === 408 || error.status >= 500 || (error.status >= 300 && error.status < 400));
}

/** Default retry decision: 429 always; network errors, 408 and 5xx only where a repeat is harmless. */
function isRetryableByDefault(error: unknown, safeToRepeat: boolean): boolean {
  if (error instanceof RateLimitError) return true;
  if (error instanceof ResponseValidationError || error instanceof ResponseTooLargeError) return false;
  if (error instanceof PartnerApiError && error.status < 400) return false;
  return safeToRepeat ? outcomeUnknown(error) : neverReachedServer(error);
}

/** The HTTP pipeline of one client. */
export class Transport {
  readonly #settings: TransportSettings;

  constructor(settings: TransportSettings) {
    this.#settings = settings;
  }

  get clock(): Clock {
    return this.#settings.clock;
  }

  get baseUrl(): string {
    return this.#settings.baseUrl;
  }

  /** The secrets of this client, to scrub an error built outside the pipeline. */
  get secrets(): Secrets {
    return this.#settings.secrets;
  }

  /** Most pages one list call reads. */
  get maxPages(): number {
    return this.#settings.maxPages;
  }

  /** The full URL of a path under the API prefix. */
  urlFor(path: string, query?: RequestSpec<unknown>['query']): URL {
    const url = new URL(`${this.#settings.baseUrl}${API_PREFIX}${path}`);
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    return url;
  }

  /** A URL as errors, logs and hooks may show it: credentials, secret-named query values and every secret value removed. */
  safeUrl(url: URL): string {
    return this.#settings.secrets.scrubText(redactUrl(url));
  }

  /**
   * The one place a call's options are handed on to the requests it makes itself (the timezone
   * look-up, look-ups by key, the retrieve fallback, polling): the caller's signal, timeout,
   * retries and headers as given, and the call's deadline fixed now, so every sub-request ends by it.
   */
  subRequestOptions(options: RequestOptions | undefined): CallOptions {
    const given = (options ?? {}) as CallOptions;
    checkRequestOptions(given);
    return {
      signal: given.signal,
      timeoutMs: given.timeoutMs,
      maxRetries: given.maxRetries,
      deadlineMs: given.deadlineMs,
      // Tracing headers follow the call into the requests it makes itself.
      headers: given.headers,
      [CALL_DEADLINE]: this.#deadlineOf(given),
    };
  }

  /** Milliseconds left before the deadline of `options` (undefined: none). */
  remainingMs(options: CallOptions): number | undefined {
    const deadline = options[CALL_DEADLINE];
    return deadline === undefined ? undefined : deadline.at - this.#settings.clock.now();
  }

  /** The error of a call whose deadline passed before it could send (nothing was sent). */
  deadlineError(options: CallOptions, where: { method?: string; url?: string } = {}): TimeoutError {
    const ms = options[CALL_DEADLINE]?.ms ?? this.#settings.deadlineMs;
    return markNeverSent(new TimeoutError(`The call's deadline of ${ms} ms passed`, where));
  }

  /**
   * Waits for `work` (another call's request this call shares) no longer than this call's own
   * signal and deadline allow; then an {@link AbortError} or the deadline's {@link TimeoutError},
   * both marked as sent nothing.
   */
  async within<T>(work: Promise<T>, options: CallOptions, where: { method?: string; url?: string } = {}): Promise<T> {
    const stop = this.#stopSignal(options);
    if (!stop.signal) return work;
    try {
      return await untilAborted(work, stop.signal);
    } catch (error) {
      if (options.signal?.aborted) throw markNeverSent(new AbortError('The call was aborted', { cause: options.signal.reason }));
      if (stop.deadline?.aborted) throw this.deadlineError(options, where);
      throw error;
    } finally {
      stop.release();
    }
  }

  /**
   * A signal that aborts with the caller's signal or at this call's deadline (`deadline` tells
   * which). The deadline runs on our own timer, cleared by `release`: on Deno, an
   * `AbortSignal.timeout` that was listened to keeps the process alive until it fires (the 120 s
   * default deadline). The virtual clock's deadline is checked after the wait.
   */
  #stopSignal(options: CallOptions): { signal: AbortSignal | undefined; deadline: AbortSignal | undefined; release(): void } {
    const left = this.remainingMs(options);
    if (left === undefined) return { signal: options.signal, deadline: undefined, release: () => undefined };
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), Math.max(1, Math.min(Math.ceil(left), 2_147_483_647)));
    return {
      signal: options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal,
      deadline: deadline.signal,
      release: () => clearTimeout(timer),
    };
  }

  #deadlineOf(options: CallOptions): { at: number; ms: number } | undefined {
    const fixed = options[CALL_DEADLINE];
    if (fixed) return fixed;
    const ms = options.deadlineMs ?? this.#settings.deadlineMs;
    return ms === undefined ? undefined : { at: this.#settings.clock.now() + ms, ms };
  }

  #hook(name: keyof ClientHooks, event: RequestEvent): void {
    const hook = this.#settings.hooks[name];
    if (!hook) return;
    try {
      hook(event);
    } catch (error) {
      this.#settings.logger.warn(`hook ${name} threw; ignored`, { error: this.#settings.secrets.scrubText(error instanceof Error ? error.message : String(error)) });
    }
  }

  /** Runs one call through the whole pipeline. Every error it throws is scrubbed of the secrets. */
  async request<T>(spec: RequestSpec<T>): Promise<WithResponse<T>> {
    try {
      return await this.#request(spec);
    } catch (error) {
      throw this.#settings.secrets.scrubError(error);
    }
  }

  async #request<T>(spec: RequestSpec<T>): Promise<WithResponse<T>> {
    const settings = this.#settings;
    const options = spec.options ?? {};
    checkRequestOptions(options);
    const extraHeaders = mergeHeaders(settings.defaultHeaders, options.headers);
    const call: CallOptions = { ...options, [CALL_DEADLINE]: this.#deadlineOf(options as CallOptions) };
    const deadline = call[CALL_DEADLINE];
    const signal = options.signal;
    const url = spec.url ? new URL(spec.url) : this.urlFor(spec.path ?? '/', spec.query);
    const safeUrl = this.safeUrl(url);
    const where = { method: spec.method, url: safeUrl };
    const timeoutMs = options.timeoutMs ?? settings.timeoutMs;
    const isRetryable = spec.isRetryable ?? ((error: unknown) => isRetryableByDefault(error, spec.safeToRepeat));
    const remainingMs = () => this.remainingMs(call);

    const acquireSlot = async () => {
      const stop = this.#stopSignal(call);
      try {
        // The time left lets the limiter refuse at once a call whose place puts it past its deadline.
        await settings.limiter!.acquire({ signal: stop.signal, priority: options.priority ?? settings.priority, maxWaitMs: remainingMs() });
      } catch (error) {
        if (signal?.aborted) throw markNeverSent(new AbortError('The call was aborted while waiting for a rate-limit slot', { cause: signal.reason }));
        if (stop.deadline?.aborted) throw this.deadlineError(call, where);
        throw error;
      } finally {
        stop.release();
      }
    };

    const attemptOnce = async (attempt: number) => {
      let target = url;
      // Each request of the attempt (a followed redirect is one more) waits for its slot and its deadline.
      for (let redirects = 0; ; redirects += 1) {
        if (signal?.aborted) throw markNeverSent(new AbortError('The call was aborted', { cause: signal.reason }));
        if (deadline && remainingMs()! <= 0) throw this.deadlineError(call, where);
        if (settings.limiter) await acquireSlot();
        const left = remainingMs();
        if (left !== undefined && left <= 0) throw this.deadlineError(call, where);
        const targetUrl = target === url ? safeUrl : this.safeUrl(target);
        settings.logger.debug?.(`request ${spec.method} ${targetUrl} (attempt ${attempt})`, { ...where, url: targetUrl, attempt });
        const startedAt = Date.now();
        const answer = await sendAttempt({
          method: spec.method,
          url: target.href,
          safeUrl: target === url ? safeUrl : this.safeUrl(target),
          headers: {
            accept: 'application/json',
            ...extraHeaders,
            ...spec.headers,
            authorization: settings.auth.header(),
          },
          json: spec.body,
          timeoutMs: left !== undefined && left < timeoutMs ? left : timeoutMs,
          deadlineMs: left !== undefined && left < timeoutMs ? deadline!.ms : undefined,
          maxResponseBytes: settings.maxResponseBytes,
          signal,
          fetch: settings.fetch,
          beforeRequest: settings.hooks.onRequest ? () => this.#hook('onRequest', { ...where, attempt }) : undefined,
        });
        const { response, body } = answer;
        const durationMs = Date.now() - startedAt;
        this.#hook('onResponse', { ...where, attempt, status: response.status, durationMs });
        settings.logger.debug?.(`response ${spec.method} ${targetUrl} ${response.status} in ${durationMs} ms (attempt ${attempt})`, {
          ...where,
          url: targetUrl,
          status: response.status,
          attempt,
          durationMs,
        });
        if (response.ok) return answer;
        const next = this.#redirectTarget(spec.method, target, response);
        if (next && redirects < MAX_REDIRECTS) {
          target = next;
          continue;
        }
        const error = this.#errorFor(response, body, where, attempt, next === undefined && isRedirect(response) ? target : undefined);
        if (error instanceof RateLimitError) {
          const pauseMs = error.retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS;
          // The service counts per partner, so every caller of this bucket must wait, not just us.
          await settings.limiter?.pause(pauseMs);
          settings.logger.info?.(`rate limited on ${spec.method} ${safeUrl}: every call of this limiter waits ${pauseMs} ms (attempt ${attempt})`, {
            ...where,
            status: 429,
            attempt,
            delayMs: pauseMs,
          });
          this.#hook('onRateLimited', { ...where, attempt, status: 429, delayMs: pauseMs });
        }
        throw error;
      }
    };

    const operation = async (attempt: number): Promise<{ response: Response | null; body: unknown }> => {
      try {
        const answer = await attemptOnce(attempt);
        return answer;
      } catch (error) {
        if (error instanceof PartnerSdkError && 'attempts' in error) (error as { attempts: number }).attempts = attempt;
        // An answer outside 2xx already has its response line; an attempt without one gets this.
        if (!(error instanceof PartnerApiError)) {
          const name = error instanceof Error ? error.name : 'Error';
          settings.logger.debug?.(`no answer to ${spec.method} ${safeUrl}: ${name} (attempt ${attempt})`, { ...where, attempt, error: name });
        }
        if (spec.recover) {
          const recovered = await spec.recover(error, attempt);
          if (recovered) return { response: null, body: recovered.body };
        }
        throw error;
      }
    };

    const answer = await withRetries(operation, {
      maxRetries: options.maxRetries ?? settings.maxRetries,
      clock: settings.clock,
      signal,
      isRetryable,
      remainingMs,
      onRetry: ({ error, attempt, delayMs }) => {
        const status = error instanceof PartnerApiError ? error.status : undefined;
        const name = error instanceof Error ? error.name : 'Error';
        settings.logger.info?.(`retrying ${spec.method} ${safeUrl} in ${delayMs} ms after ${name}${status ? ` ${status}` : ''} (attempt ${attempt})`, {
          ...where,
          status,
          attempt,
          delayMs,
          error: name,
        });
        this.#hook('onRetry', { ...where, attempt, status, delayMs, error: name });
      },
    });
    return { data: this.#parse(spec, answer, where), response: answer.response };
  }

  // In warn mode an off-contract answer is returned as received, with one warning naming every
  // off-contract field (never the body: it carries guests' names and may carry a webhook token).
  #parse<T>(spec: RequestSpec<T>, answer: { response: Response | null; body: unknown }, where: { method: string; url: string }): T {
    if (this.#settings.responseValidation === 'strict') return spec.parse(answer.body, answer.response, where);
    const offContract: FieldIssue[] = [];
    const details = { ...where };
    reportOffContract(details, (issues) => offContract.push(...issues));
    const data = spec.parse(answer.body, answer.response, details);
    if (offContract.length > 0) {
      const fields = [...new Set(offContract.map((issue) => issue.field || '(root)'))];
      this.#settings.logger.warn(`off-contract answer to ${where.method} ${where.url}, returned as received: ${offContract.map((issue) => `${issue.field || '(root)'}: ${issue.message}`).join('; ')}`, {
        ...where,
        fields,
      });
    }
    return data;
  }

  /**
   * Where a redirect may be followed: only for a read, and only within the service's origin (the
   * credentials go nowhere else). Undefined when it must not be followed.
   */
  #redirectTarget(method: string, from: URL, response: Response): URL | undefined {
    if (method !== 'GET' || !isRedirect(response)) return undefined;
    const location = response.headers.get('location');
    if (!location) return undefined;
    let target: URL;
    try {
      target = new URL(location, from);
    } catch {
      return undefined;
    }
    return target.origin === new URL(this.#settings.baseUrl).origin ? target : undefined;
  }

  /** The error for an answer outside 2xx; `refusedRedirectFrom` set for a redirect not followed. */
  #errorFor(response: Response, body: unknown, where: { method: string; url: string }, attempt: number, refusedRedirectFrom: URL | undefined): PartnerApiError {
    const secrets = this.#settings.secrets;
    const status = response.status === 0 ? 302 : response.status;
    const details = { status, headers: secrets.scrub(headersToObject(response.headers)), body: secrets.scrub(body), ...where, attempts: attempt };
    if (!refusedRedirectFrom) return errorFromResponse({ ...details, now: this.#settings.clock.now() });
    let location = '';
    try {
      if (details.headers.location) location = ` to ${this.safeUrl(new URL(details.headers.location, refusedRedirectFrom))}`;
    } catch {
      location = ' to an unreadable location';
    }
    const why = where.method === 'GET' ? 'leads to another origin' : `answered a ${where.method}`;
    return new PartnerApiError(`HTTP ${status}: not following a redirect${location}, which ${why}`, details);
  }
}

function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
}
