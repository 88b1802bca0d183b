/**
 * The request pipeline, one layer each: throttle -> HTTP (fetch) -> map errors -> retry (p-retry)
 * -> validate output. Resources hand it a path, a body, the caller's options and a parser; it
 * hands back the parsed data with the raw response.
 * @module
 */
import { AbortError, ConnectionError, PartnerApiError, PartnerSdkError, RateLimitError, TimeoutError, type FieldIssue } from '../errors.js';
import type { WithResponse } from './api-promise.js';
import type { BasicAuth } from './auth.js';
import type { Clock } from './clock.js';
import { errorFromResponse, headersToObject, redactUrl } from './errors.js';
import { sendAttempt, wasNeverSent } from './http.js';
import type { RateLimiter } from './rate-limiter.js';
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
}


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
  limiter: RateLimiter | undefined;
  clock: Clock;
  fetch: typeof fetch | undefined;
  timeoutMs: number;
  maxRetries: number;
  /** Already filtered to the client's log level (`debug`/`info` absent below it) and redacting the credentials. */
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
   * elsewhere (a create found by its idempotency key) or throw another error. Returns undefined to
   * let the failure stand.
   */
  recover?(error: unknown, attempt: number): Promise<{ body: unknown } | undefined>;
  /** Replaces the default retry decision. */
  isRetryable?(error: unknown): boolean;
}

/** The path prefix of every operation (spec: "all paths start with /api/v1/partnership/"). */
export const API_PREFIX = '/api/v1/partnership';

/** True when the failed request certainly never reached the server (refused connection, DNS failure): even a create may be sent again. */
export function neverReachedServer(error: unknown): boolean {
  return error instanceof ConnectionError && !(error instanceof TimeoutError) && wasNeverSent(error);
}

/** True when a failed attempt may have been carried out all the same: no answer (dropped, timed out), 408 or 5xx. */
export function outcomeUnknown(error: unknown): boolean {
  return error instanceof ConnectionError || (error instanceof PartnerApiError && (error.status === 408 || error.status >= 500));
}

/** Default retry decision: 429 always; network errors, 408 and 5xx only where a repeat is harmless. */
function isRetryableByDefault(error: unknown, safeToRepeat: boolean): boolean {
  if (error instanceof RateLimitError) return true;
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

  /** The full URL of a path under the API prefix. */
  urlFor(path: string, query?: RequestSpec<unknown>['query']): URL {
    const url = new URL(`${this.#settings.baseUrl}${API_PREFIX}${path}`);
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    return url;
  }

  #hook(name: keyof ClientHooks, event: RequestEvent): void {
    const hook = this.#settings.hooks[name];
    if (!hook) return;
    try {
      hook(event);
    } catch (error) {
      this.#settings.logger.warn(`hook ${name} threw; ignored`, { error: error instanceof Error ? error.message : String(error) });
    }
  }

  /** Runs one call through the whole pipeline. */
  async request<T>(spec: RequestSpec<T>): Promise<WithResponse<T>> {
    const settings = this.#settings;
    const options = spec.options ?? {};
    checkRequestOptions(options);
    const extraHeaders = mergeHeaders(settings.defaultHeaders, options.headers);
    const signal = options.signal;
    const url = spec.url ? new URL(spec.url) : this.urlFor(spec.path ?? '/', spec.query);
    const safeUrl = redactUrl(url);
    const where = { method: spec.method, url: safeUrl };
    const timeoutMs = options.timeoutMs ?? settings.timeoutMs;
    const isRetryable = spec.isRetryable ?? ((error: unknown) => isRetryableByDefault(error, spec.safeToRepeat));

    const attemptOnce = async (attempt: number) => {
      if (signal?.aborted) throw new AbortError('The call was aborted', { cause: signal.reason });
      if (settings.limiter) {
        try {
          await settings.limiter.acquire({ signal });
        } catch (error) {
          if (signal?.aborted) throw new AbortError('The call was aborted while waiting for a rate-limit slot', { cause: signal.reason });
          throw error;
        }
      }
      this.#hook('onRequest', { ...where, attempt });
      settings.logger.debug?.(`request ${spec.method} ${safeUrl} (attempt ${attempt})`, { ...where, attempt });
      const startedAt = Date.now();
      const answer = await sendAttempt({
        method: spec.method,
        url: url.toString(),
        safeUrl,
        headers: {
          accept: 'application/json',
          ...extraHeaders,
          ...spec.headers,
          authorization: settings.auth.header(),
        },
        json: spec.body,
        timeoutMs,
        signal,
        fetch: settings.fetch,
      });
      const { response, body } = answer;
      const durationMs = Date.now() - startedAt;
      this.#hook('onResponse', { ...where, attempt, status: response.status, durationMs });
      settings.logger.debug?.(`response ${spec.method} ${safeUrl} ${response.status} in ${durationMs} ms (attempt ${attempt})`, {
        ...where,
        status: response.status,
        attempt,
        durationMs,
      });
      if (response.ok) return answer;
      const error = errorFromResponse({
        status: response.status,
        // The error keeps what the server answered; an answer that echoes the credentials must not.
        headers: settings.auth.redact(headersToObject(response.headers)),
        body: settings.auth.redact(body),
        ...where,
        attempts: attempt,
        now: settings.clock.now(),
      });
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
    };

    const operation = async (attempt: number): Promise<{ response: Response | null; body: unknown }> => {
      try {
        return await attemptOnce(attempt);
      } catch (error) {
        if (error instanceof PartnerSdkError && 'attempts' in error) (error as { attempts: number }).attempts = attempt;
        // An answer outside 2xx already has its response line; an attempt without one gets this.
        if (!(error instanceof PartnerApiError)) {
          const name = error instanceof Error ? error.name : 'Error';
          settings.logger.debug?.(`no answer to ${spec.method} ${safeUrl}: ${name} (attempt ${attempt})`, { ...where, attempt, error: name });
        }
        if (spec.recover && !(error instanceof AbortError)) {
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
}
