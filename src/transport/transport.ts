/**
 * The request pipeline, one layer each: throttle -> HTTP (ky) -> map errors -> retry (p-retry)
 * -> validate output. Resources hand it a path, a body, the caller's options and a parser; it
 * hands back the parsed data with the raw response. Every error leaving it is scrubbed of the
 * secrets by value, and every call ends by its deadline.
 * @module
 */
import {
  PartnerApiError,
  PartnerSdkError,
  RateLimitError,
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
import { isTraced, publish, traced, type CallMessage, type GuestFields } from './diagnostics.js';
import { sendObserved, waitObserved } from './observed.js';
import type { AnswerSource, ResponseValidation } from './response-validation.js';
import type { Logger } from '../logger.js';
import { followedService } from './followed-services.js';
import { isRetryableByDefault, neverReachedServer } from './outcome.js';
import type { DialectWatch } from '../dialect/watch.js';

export { Call, type RequestOptions } from './call.js';

/** What hooks receive. Never headers: the request's carry the credentials. */
export interface RequestEvent {
  /** The public call this request belongs to: `reservations.create`, `restaurants.list`, ... */
  operation: string;
  /** The call's id, shared by all its requests (a create's look-ups included) and its warnings. */
  callId: string;
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

/** The path prefix of every operation (spec: "all paths start with /api/v1/partnership/"). */
export const API_PREFIX = '/api/v1/partnership';

export { neverReachedServer, outcomeUnknown } from './outcome.js';

/** Most redirects followed for one read (each within the service's origin). */
const MAX_REDIRECTS = 5;

/** The HTTP pipeline of one client. */
export class Transport {
  readonly #settings: TransportSettings;
  // The path of `/api/v1/partnership` on this service: what the dialect watch strips from a URL.
  readonly #apiPath: string;

  constructor(settings: TransportSettings) {
    this.#settings = settings;
    this.#apiPath = `${new URL(settings.baseUrl).pathname.replace(/\/+$/, '')}${API_PREFIX}`;
  }

  /** The clock of this call: a test fake's when it follows the service (`followed-services.ts`), else the client's. */
  get clock(): Clock {
    return followedService(this.#settings.baseUrl)?.clock ?? this.#settings.clock;
  }

  /** The limiter of this call, read like the clock; a client built without one stays without. */
  #limiter(): RateLimiter | undefined {
    const { limiter, baseUrl, partnerId } = this.#settings;
    if (!limiter) return undefined;
    return followedService(baseUrl)?.limiterFor(partnerId) ?? limiter;
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
   * headers, priority and validation mode. `operation` names it in hooks, logs and traces; a call
   * that is to appear in traces starts through {@link Transport.run}.
   */
  call(options: RequestOptions | Call | undefined, operation = 'request'): Call {
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
      clock: this.clock,
      operation,
    });
  }

  /** The client's logger (already levelled and redacting the credentials). */
  get logger(): Logger {
    return this.#settings.logger;
  }

  /**
   * Runs one public call: `body` receives the call made from `options` and runs as it, published
   * on the `call` channel. Given a call already, `body` runs as part of it (a sub-request).
   */
  async run<T>(
    options: RequestOptions | Call | undefined,
    operation: string,
    body: (call: Call) => Promise<T>,
    description?: CallDescription,
  ): Promise<T> {
    if (options instanceof Call) return body(options);
    const call = this.call(options, operation);
    if (!isTraced('call')) return body(call);
    const message: CallMessage = {
      operation,
      callId: call.id,
      priority: call.priority,
      restaurantId: description?.restaurantId,
      guest: description?.guest,
    };
    // Observers get the call's facts, not its answer (a guest's details, a webhook's token).
    let result: T | undefined;
    await traced('call', message, async () => {
      result = await body(call);
    });
    return result as T;
  }

  #hook(name: keyof ClientHooks, event: RequestEvent): void {
    const hooks = this.#settings.hooks;
    if (!hooks[name]) return;
    try {
      // Called on the hooks object: a partner's hooks written as a class keep their `this`.
      hooks[name](event);
    } catch (error) {
      this.#settings.logger.warn(`hook ${name} threw; ignored`, {
        error: this.#settings.secrets.scrubText(error instanceof Error ? error.message : String(error)),
      });
    }
  }

  /** Checks an answer against the client's dialect, when it was given one (may throw `DialectDriftError`). */
  /** Runs one call through the whole pipeline. Every error it throws is scrubbed of the secrets. */
  async request<T>(spec: RequestSpec<T>): Promise<WithResponse<T>> {
    try {
      return await this.run(spec.options, spec.operation ?? 'request', (call) => this.#request(spec, call), {
        restaurantId: spec.restaurantId,
      });
    } catch (error) {
      throw this.#settings.secrets.scrubError(error);
    }
  }

  async #request<T>(spec: RequestSpec<T>, call: Call): Promise<WithResponse<T>> {
    const settings = this.#settings;
    // Read once per call: a fake that starts or stops following the service affects the next call.
    const clock = this.clock;
    const limiter = this.#limiter();
    const extraHeaders = mergeHeaders(settings.defaultHeaders, call.headers);
    const signal = call.signal;
    const url = spec.url ? new URL(spec.url) : this.urlFor(spec.path ?? '/', spec.query);
    const safeUrl = this.safeUrl(url);
    const where = { method: spec.method, url: safeUrl };
    // What hooks and log lines say of each request: where it went, and which call it serves.
    const said = { operation: call.operation, callId: call.id, ...where };
    const isRetryable =
      spec.isRetryable ?? ((error: unknown) => isRetryableByDefault(error, spec.safeToRepeat));
    // What this request's attempts sent so far: an error raised before the next send says as much.
    let sent: RequestSent = 'no';
    // Requests of this request sent so far (its retries and followed redirects).
    let sends = 0;

    const attemptOnce = async (attempt: number) => {
      let target = url;
      // Each request of the attempt (a followed redirect is one more) waits for its slot and its deadline.
      for (let redirects = 0; ; redirects += 1) {
        if (signal?.aborted) throw call.abortError('The call was aborted', sent, attempt - 1);
        if (call.expired) throw call.deadlineError(where, sent, attempt - 1);
        const slot = limiter ? await this.#acquireSlot(limiter, call, attempt, sent, said) : undefined;
        const left = call.remainingMs();
        if (left !== undefined && left <= 0) {
          slot?.end('unsent');
          throw call.deadlineError(where, sent, attempt - 1);
        }
        const targetUrl = target === url ? safeUrl : this.safeUrl(target);
        settings.logger.debug?.(`request ${spec.method} ${targetUrl} (attempt ${attempt})`, {
          ...said,
          url: targetUrl,
          attempt,
        });
        const startedAt = Date.now();
        const resendCount = sends;
        sends += 1;
        call.requestsSent += 1;
        // The limiter counts the request in the service's window from its answer, when it comes.
        const attempted = sendObserved(
          call,
          { method: spec.method, url: targetUrl, target, attempt, resendCount },
          (traceHeaders) =>
            sendAttempt({
              method: spec.method,
              url: target.href,
              safeUrl: targetUrl,
              headers: {
                accept: 'application/json',
                ...extraHeaders,
                ...spec.headers,
                ...traceHeaders,
                authorization: settings.auth.header(),
              },
              json: spec.body,
              timeoutMs: left !== undefined && left < call.timeoutMs ? left : call.timeoutMs,
              deadlineMs: left !== undefined && left < call.timeoutMs ? call.deadlineMs : undefined,
              maxResponseBytes: settings.maxResponseBytes,
              signal,
              fetch: settings.fetch,
              beforeRequest: settings.hooks.onRequest
                ? () => this.#hook('onRequest', { ...said, attempt })
                : undefined,
              onAnswer: slot && (() => slot.end('answered')),
              attempt,
              sentBefore: sent,
            }),
        );
        const answer = await attempted.catch((error: unknown) => {
          slot?.end(neverReachedServer(error) ? 'unsent' : 'failed');
          throw error;
        });
        sent = 'yes';
        const { response, body } = answer;
        const durationMs = Date.now() - startedAt;
        this.#hook('onResponse', { ...said, attempt, status: response.status, durationMs });
        this.#settings.dialect?.checkResponse(this.#apiPath, spec.method, target, response, body, targetUrl);
        settings.logger.debug?.(
          `response ${spec.method} ${targetUrl} ${response.status} in ${durationMs} ms (attempt ${attempt})`,
          {
            ...said,
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
          await limiter?.pause(pauseMs);
          publish('rateLimitPause', () => ({ callId: call.id, operation: call.operation, pauseMs }));
          settings.logger.info?.(
            `rate limited on ${spec.method} ${safeUrl}: every call of this limiter waits ${pauseMs} ms (attempt ${attempt})`,
            {
              ...said,
              status: 429,
              attempt,
              delayMs: pauseMs,
            },
          );
          this.#hook('onRateLimited', { ...said, attempt, status: 429, delayMs: pauseMs });
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
            ...said,
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
      clock,
      signal,
      isRetryable,
      remainingMs: () => call.remainingMs(),
      onRetry: ({ error, attempt, delayMs }) => {
        const status = error instanceof PartnerApiError ? error.status : undefined;
        const name = error instanceof Error ? error.name : 'Error';
        settings.logger.info?.(
          `retrying ${spec.method} ${safeUrl} in ${delayMs} ms after ${name}${status ? ` ${status}` : ''} (attempt ${attempt})`,
          {
            ...said,
            status,
            attempt,
            delayMs,
            error: name,
          },
        );
        this.#hook('onRetry', { ...said, attempt, status, delayMs, error: name });
      },
    });
    return { data: this.#parse(spec, call, answer, where), response: answer.response };
  }

  /** Waits for the rate limiter's slot for one request of `call`, within its signal and deadline. */
  async #acquireSlot(
    limiter: RateLimiter,
    call: Call,
    attempt: number,
    sent: RequestSent,
    said: { operation: string; callId: string; method: string; url: string },
  ): Promise<RateLimitSlot | undefined> {
    const settings = this.#settings;
    const stop = call.stopSignal();
    try {
      const slot = await waitObserved(
        { ...settings, clock: this.clock, limiter, call, details: { ...said, attempt } },
        // The time left lets the limiter refuse at once a call whose place puts it past its deadline.
        () =>
          limiter.acquire({ signal: stop.signal, priority: call.priority, maxWaitMs: call.remainingMs() }),
      );
      // A limiter of your own may hand back nothing to report on.
      return slot ?? undefined;
    } catch (error) {
      if (call.signal?.aborted)
        throw call.abortError('The call was aborted while waiting for a rate-limit slot', sent, attempt - 1);
      if (stop.deadline?.aborted)
        throw call.deadlineError({ method: said.method, url: said.url }, sent, attempt - 1);
      throw error;
    } finally {
      stop.release();
    }
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
    if (!refusedRedirectFrom) return errorFromResponse({ ...details, now: this.clock.now() });
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
