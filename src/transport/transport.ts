/**
 * The request pipeline, one layer each: throttle -> HTTP (ky) -> map errors -> retry (p-retry)
 * -> validate output. Resources hand it a path, a body, the caller's options and a parser; it
 * hands back the parsed data with the raw response. Every error leaving it is scrubbed of the
 * secrets by value, and every call ends by its deadline.
 * @module
 */
import {
  ConnectionError,
  PartnerApiError,
  PartnerSdkError,
  RateLimitError,
  ResponseTooLargeError,
  ResponseValidationError,
  strongerSent,
  type FieldIssue,
  type RequestSent,
} from '../errors.js';
import type { WithResponse } from './api-promise.js';
import type { BasicAuth } from './auth.js';
import { Call, type RequestOptions } from './call.js';
import type { Clock } from './clock.js';
import { errorFromResponse, headersToObject, redactUrl } from './error-from-response.js';
import { sendAttempt } from './http.js';
import type { Secrets } from './secrets.js';
import type { Priority, RateLimiter, RateLimitSlot } from './rate-limiter.js';
import { DEFAULT_RATE_LIMIT_WAIT_MS, withRetries } from './retry.js';
import { checkRequestOptions } from './validate.js';
import { mergeHeaders } from './headers.js';
import type { AnswerSource, ResponseValidation } from './response-validation.js';
import type { Logger } from '../logger.js';
import type { DialectWatch } from '../dialect/watch.js';

export { Call, type RequestOptions } from './call.js';

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
  /** Checks each answer against the dialect the client was given (undefined: none given). */
  dialect?: DialectWatch | undefined;
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
  /** Validates and shapes the 2xx body (output validation); in warn mode `where` carries `offContract`. */
  parse(body: unknown, response: Response | null, where: AnswerSource): T;
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

/** True when the failed request certainly never reached the server (`sent: 'no'`): even a create may be sent again. */
export function neverReachedServer(error: unknown): boolean {
  return error instanceof PartnerSdkError && error.sent === 'no';
}

/**
 * True when a failed attempt may have been carried out all the same: no answer (dropped, timed
 * out) after the request may have left, 408, 5xx, a redirect (a write is never followed), an
 * answer too large to read, or a 2xx outside the contract.
 */
export function outcomeUnknown(error: unknown): boolean {
  if (neverReachedServer(error)) return false;
  if (error instanceof ConnectionError || error instanceof ResponseValidationError) return true;
  if (error instanceof ResponseTooLargeError)
    return error.status < 400 || error.status === 408 || error.status >= 500;
  return (
    error instanceof PartnerApiError &&
    (error.status === 408 || error.status >= 500 || (error.status >= 300 && error.status < 400))
  );
}

/**
 * Default retry decision: 429 always, and a connection that was never opened (nothing was sent);
 * network errors, 408 and 5xx only where a repeat is harmless.
 */
function isRetryableByDefault(error: unknown, safeToRepeat: boolean): boolean {
  if (error instanceof RateLimitError) return true;
  if (error instanceof ConnectionError && error.sent === 'no') return true;
  if (error instanceof ResponseValidationError || error instanceof ResponseTooLargeError) return false;
  if (error instanceof PartnerApiError && error.status < 400) return false;
  return safeToRepeat && outcomeUnknown(error);
}

/** The HTTP pipeline of one client. */
export class Transport {
  readonly #settings: TransportSettings;
  // The path of `/api/v1/partnership` on this service: what the dialect watch strips from a URL.
  readonly #apiPath: string;

  constructor(settings: TransportSettings) {
    this.#settings = settings;
    this.#apiPath = `${new URL(settings.baseUrl).pathname.replace(/\/+$/, '')}${API_PREFIX}`;
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
    for (const [key, value] of Object.entries(query ?? {}))
      if (value !== undefined) url.searchParams.set(key, String(value));
    return url;
  }

  /** A URL as errors, logs and hooks may show it: credentials, secret-named query values and every secret value removed. */
  safeUrl(url: URL): string {
    return this.#settings.secrets.scrubText(redactUrl(url));
  }

  /**
   * The call object of a public call: made once, when the call starts, from the caller's checked
   * options and the client's defaults (the deadline fixed now). Given a call already (a
   * sub-request of it), returns that call, so every request it makes shares its deadline, signal,
   * headers, priority and validation mode.
   */
  call(options: RequestOptions | Call | undefined): Call {
    if (options instanceof Call) return options;
    const given = options ?? {};
    checkRequestOptions(given);
    const settings = this.#settings;
    return new Call({
      signal: given.signal,
      timeoutMs: given.timeoutMs ?? settings.timeoutMs,
      maxRetries: given.maxRetries ?? settings.maxRetries,
      headers: given.headers,
      deadlineMs: given.deadlineMs ?? settings.deadlineMs,
      priority: given.priority ?? settings.priority,
      validation: settings.responseValidation,
      clock: settings.clock,
    });
  }

  #hook(name: keyof ClientHooks, event: RequestEvent): void {
    const hook = this.#settings.hooks[name];
    if (!hook) return;
    try {
      hook(event);
    } catch (error) {
      this.#settings.logger.warn(`hook ${name} threw; ignored`, {
        error: this.#settings.secrets.scrubText(error instanceof Error ? error.message : String(error)),
      });
    }
  }

  /** Checks an answer against the client's dialect, when it was given one (may throw `DialectDriftError`). */
  #watchDialect(method: string, target: URL, response: Response, body: unknown, safeUrl: string): void {
    const watch = this.#settings.dialect;
    if (!watch || !target.pathname.startsWith(this.#apiPath)) return;
    watch.check(
      {
        method,
        path: target.pathname.slice(this.#apiPath.length),
        search: target.search,
        status: response.status,
        header: (name) => response.headers.get(name),
        body,
      },
      safeUrl,
    );
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
    const call = this.call(spec.options);
    const extraHeaders = mergeHeaders(settings.defaultHeaders, call.headers);
    const signal = call.signal;
    const url = spec.url ? new URL(spec.url) : this.urlFor(spec.path ?? '/', spec.query);
    const safeUrl = this.safeUrl(url);
    const where = { method: spec.method, url: safeUrl };
    const isRetryable =
      spec.isRetryable ?? ((error: unknown) => isRetryableByDefault(error, spec.safeToRepeat));
    // What this request's attempts sent so far: an error raised before the next send says as much.
    let sent: RequestSent = 'no';

    const acquireSlot = async (attempt: number): Promise<RateLimitSlot | undefined> => {
      const stop = call.stopSignal();
      try {
        // The time left lets the limiter refuse at once a call whose place puts it past its deadline.
        const slot = await settings.limiter!.acquire({
          signal: stop.signal,
          priority: call.priority,
          maxWaitMs: call.remainingMs(),
        });
        // A limiter of your own may hand back nothing to report on.
        return slot ?? undefined;
      } catch (error) {
        if (signal?.aborted)
          throw call.abortError(
            'The call was aborted while waiting for a rate-limit slot',
            sent,
            attempt - 1,
          );
        if (stop.deadline?.aborted) throw call.deadlineError(where, sent, attempt - 1);
        throw error;
      } finally {
        stop.release();
      }
    };

    const attemptOnce = async (attempt: number) => {
      let target = url;
      // Each request of the attempt (a followed redirect is one more) waits for its slot and its deadline.
      for (let redirects = 0; ; redirects += 1) {
        if (signal?.aborted) throw call.abortError('The call was aborted', sent, attempt - 1);
        if (call.expired) throw call.deadlineError(where, sent, attempt - 1);
        const slot = settings.limiter ? await acquireSlot(attempt) : undefined;
        const left = call.remainingMs();
        if (left !== undefined && left <= 0) {
          slot?.end('unsent');
          throw call.deadlineError(where, sent, attempt - 1);
        }
        const targetUrl = target === url ? safeUrl : this.safeUrl(target);
        settings.logger.debug?.(`request ${spec.method} ${targetUrl} (attempt ${attempt})`, {
          ...where,
          url: targetUrl,
          attempt,
        });
        const startedAt = Date.now();
        // The limiter counts the request in the service's window from its answer, when it comes.
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
          timeoutMs: left !== undefined && left < call.timeoutMs ? left : call.timeoutMs,
          deadlineMs: left !== undefined && left < call.timeoutMs ? call.deadlineMs : undefined,
          maxResponseBytes: settings.maxResponseBytes,
          signal,
          fetch: settings.fetch,
          beforeRequest: settings.hooks.onRequest
            ? () => this.#hook('onRequest', { ...where, attempt })
            : undefined,
          onAnswer: slot && (() => slot.end('answered')),
          attempt,
          sentBefore: sent,
        }).catch((error: unknown) => {
          slot?.end(neverReachedServer(error) ? 'unsent' : 'failed');
          throw error;
        });
        sent = 'yes';
        const { response, body } = answer;
        const durationMs = Date.now() - startedAt;
        this.#hook('onResponse', { ...where, attempt, status: response.status, durationMs });
        this.#watchDialect(spec.method, target, response, body, targetUrl);
        settings.logger.debug?.(
          `response ${spec.method} ${targetUrl} ${response.status} in ${durationMs} ms (attempt ${attempt})`,
          {
            ...where,
            url: targetUrl,
            status: response.status,
            attempt,
            durationMs,
          },
        );
        if (response.ok) return answer;
        const next = this.#redirectTarget(spec.method, target, response);
        if (next && redirects < MAX_REDIRECTS) {
          target = next;
          continue;
        }
        const error = this.#errorFor(
          response,
          body,
          where,
          attempt,
          next === undefined && isRedirect(response) ? target : undefined,
        );
        if (error instanceof RateLimitError) {
          const pauseMs = error.retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS;
          // The service counts per partner, so every caller of this bucket must wait, not just us.
          await settings.limiter?.pause(pauseMs);
          settings.logger.info?.(
            `rate limited on ${spec.method} ${safeUrl}: every call of this limiter waits ${pauseMs} ms (attempt ${attempt})`,
            {
              ...where,
              status: 429,
              attempt,
              delayMs: pauseMs,
            },
          );
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
        if (error instanceof PartnerSdkError) sent = strongerSent(sent, error.sent);
        // An answer outside 2xx already has its response line; an attempt without one gets this.
        if (!(error instanceof PartnerApiError)) {
          const name = error instanceof Error ? error.name : 'Error';
          settings.logger.debug?.(`no answer to ${spec.method} ${safeUrl}: ${name} (attempt ${attempt})`, {
            ...where,
            attempt,
            error: name,
          });
        }
        if (spec.recover) {
          const recovered = await spec.recover(error, attempt);
          if (recovered) return { response: null, body: recovered.body };
        }
        throw error;
      }
    };

    const answer = await withRetries(operation, {
      maxRetries: call.maxRetries,
      clock: settings.clock,
      signal,
      isRetryable,
      remainingMs: () => call.remainingMs(),
      onRetry: ({ error, attempt, delayMs }) => {
        const status = error instanceof PartnerApiError ? error.status : undefined;
        const name = error instanceof Error ? error.name : 'Error';
        settings.logger.info?.(
          `retrying ${spec.method} ${safeUrl} in ${delayMs} ms after ${name}${status ? ` ${status}` : ''} (attempt ${attempt})`,
          {
            ...where,
            status,
            attempt,
            delayMs,
            error: name,
          },
        );
        this.#hook('onRetry', { ...where, attempt, status, delayMs, error: name });
      },
    });
    return { data: this.#parse(spec, call, answer, where), response: answer.response };
  }

  // In warn mode an off-contract answer is returned as received, with one warning naming every
  // off-contract field (never the body: it carries guests' names and may carry a webhook token).
  #parse<T>(
    spec: RequestSpec<T>,
    call: Call,
    answer: { response: Response | null; body: unknown },
    where: { method: string; url: string },
  ): T {
    if (call.validation === 'strict') return spec.parse(answer.body, answer.response, where);
    const offContract: FieldIssue[] = [];
    const data = spec.parse(answer.body, answer.response, {
      ...where,
      offContract: (issues) => offContract.push(...issues),
    });
    if (offContract.length > 0) {
      const fields = [...new Set(offContract.map((issue) => issue.field || '(root)'))];
      this.#settings.logger.warn(
        `off-contract answer to ${where.method} ${where.url}, returned as received: ${offContract.map((issue) => `${issue.field || '(root)'}: ${issue.message}`).join('; ')}`,
        {
          ...where,
          fields,
        },
      );
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
  #errorFor(
    response: Response,
    body: unknown,
    where: { method: string; url: string },
    attempt: number,
    refusedRedirectFrom: URL | undefined,
  ): PartnerApiError {
    const secrets = this.#settings.secrets;
    const status = response.status === 0 ? 302 : response.status;
    const details = {
      status,
      headers: secrets.scrub(headersToObject(response.headers)),
      body: secrets.scrub(body),
      ...where,
      attempts: attempt,
    };
    if (!refusedRedirectFrom) return errorFromResponse({ ...details, now: this.#settings.clock.now() });
    let location = '';
    try {
      if (details.headers.location)
        location = ` to ${this.safeUrl(new URL(details.headers.location, refusedRedirectFrom))}`;
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
