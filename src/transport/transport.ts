/**
 * The request pipeline, one layer each: throttle -> HTTP (ky) -> map errors -> retry (p-retry)
 * -> validate output. Resources hand it a path, a body, the caller's options and a parser; it
 * hands back the parsed data with the raw response. Every error leaving it is scrubbed of the
 * secrets by value, and every call ends by its deadline.
 * @module
 */
import { PartnerApiError, PartnerSdkError, RateLimitError, type RequestSent } from '../errors.js';
import { redactUrl } from '../internal/redact-url.js';
import { strongerSent } from '../internal/request-sent.js';
import type { WithResponse } from './api-promise.js';
import { Call, type RequestOptions } from './call.js';
import type { Clock } from './clock.js';
import { sendAttempt } from './http.js';
import type { Secrets } from './secrets.js';
import type { RateLimiter } from './rate-limiter.js';
import { DEFAULT_RATE_LIMIT_WAIT_MS, withRetries } from './retry.js';
import { checkRequestOptions } from './validate.js';
import { mergeHeaders } from './headers.js';
import { isTraced, publish, traced, type CallMessage } from './diagnostics.js';
import { sendObserved, waitObserved } from './observed.js';
import type { Logger } from '../logger.js';
import { followedService } from './followed-services.js';
import { isRetryableByDefault, neverReachedServer } from './outcome.js';
import { callHook, type ClientHooks, type RequestEvent } from './hooks.js';
import type { CallDescription, RequestSpec, TransportSettings } from './request-spec.js';
import { errorForAnswer, isRedirect, parseAnswer, redirectTarget } from './answer.js';

export { Call, type RequestOptions } from './call.js';
// Where the pipeline's types and hooks were first declared; importers keep reading them here.
export type { ClientHooks, RequestEvent } from './hooks.js';
export type { CallDescription, RequestSpec, TransportSettings } from './request-spec.js';

/** The path prefix of every operation (spec: "all paths start with /api/v1/partnership/"). */
export const API_PREFIX = '/api/v1/partnership';

export { neverReachedServer, outcomeUnknown } from './outcome.js';

/** What hooks and log lines say of each request: which call it serves, and where it went. */
type Said = { operation: string; callId: string; method: string; url: string };

/** Most redirects followed for one read (each within the service's origin). */
const MAX_REDIRECTS = 5;

/** The HTTP pipeline of one client. */
export class Transport {
  readonly #settings: TransportSettings;
  // The path of `/api/v1/partnership` on this service: what the dialect watch strips from a URL.
  readonly #apiPath: string;
  // The only origin a redirect may lead to (the credentials go nowhere else).
  readonly #origin: string;

  constructor(settings: TransportSettings) {
    this.#settings = settings;
    const base = new URL(settings.baseUrl);
    this.#apiPath = `${base.pathname.replace(/\/+$/, '')}${API_PREFIX}`;
    this.#origin = base.origin;
  }

  #hook(name: keyof ClientHooks, event: RequestEvent): void {
    callHook(this.#settings.hooks, this.#settings.logger, this.#settings.secrets, name, event);
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

  /** Runs one call through the whole pipeline. Every error it throws is scrubbed of the secrets. */
  async request<T>(spec: RequestSpec<T>): Promise<WithResponse<T>> {
    try {
      // The spec is its own description (its restaurantId): nothing more is built per call.
      return await this.run(
        spec.options,
        spec.operation ?? 'request',
        (call) => this.#request(spec, call),
        spec,
      );
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
        this.#answered(said, attempt, { target, targetUrl, response, body, durationMs });
        if (response.ok) return answer;
        const next = redirectTarget(spec.method, target, response, this.#origin);
        if (next && redirects < MAX_REDIRECTS) {
          target = next;
          continue;
        }
        const error = errorForAnswer(
          response,
          body,
          where,
          attempt,
          next === undefined && isRedirect(response) ? target : undefined,
          { secrets: settings.secrets, now: this.clock.now(), safeUrl: (unsafe) => this.safeUrl(unsafe) },
        );
        if (error instanceof RateLimitError) await this.#rateLimited(error, limiter, call, said, attempt);
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
        if (!(error instanceof PartnerApiError)) this.#unanswered(said, error, attempt);
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
      onRetry: (retry) => this.#retrying(said, retry),
    });
    return {
      data: parseAnswer(spec, call, answer, where, settings.logger),
      response: answer.response,
      callId: call.id,
    };
  }

  // The steps around each answer that only report it: the onResponse hook, the dialect check
  // (which may throw DialectDriftError under strictDialect), the debug line.
  #answered(
    said: Said,
    attempt: number,
    answer: { target: URL; targetUrl: string; response: Response; body: unknown; durationMs: number },
  ): void {
    const { target, targetUrl, response, body, durationMs } = answer;
    // The event is built only for a hook that exists: this runs for every answer.
    if (this.#settings.hooks.onResponse)
      this.#hook('onResponse', { ...said, attempt, status: response.status, durationMs });
    this.#settings.dialect?.checkResponse(this.#apiPath, said.method, target, response, body, targetUrl);
    this.#settings.logger.debug?.(
      `response ${said.method} ${targetUrl} ${response.status} in ${durationMs} ms (attempt ${attempt})`,
      { ...said, url: targetUrl, status: response.status, attempt, durationMs },
    );
  }

  #unanswered(said: Said, error: unknown, attempt: number): void {
    const name = error instanceof Error ? error.name : 'Error';
    this.#settings.logger.debug?.(`no answer to ${said.method} ${said.url}: ${name} (attempt ${attempt})`, {
      ...said,
      attempt,
      error: name,
    });
  }

  // A 429: the service counts per partner, so every caller of this bucket must wait, not just this call.
  async #rateLimited(
    error: RateLimitError,
    limiter: RateLimiter | undefined,
    call: Call,
    said: Said,
    attempt: number,
  ): Promise<void> {
    const pauseMs = error.retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS;
    await limiter?.pause(pauseMs);
    publish('rateLimitPause', () => ({ callId: call.id, operation: call.operation, pauseMs }));
    this.#settings.logger.info?.(
      `rate limited on ${said.method} ${said.url}: every call of this limiter waits ${pauseMs} ms (attempt ${attempt})`,
      { ...said, status: 429, attempt, delayMs: pauseMs },
    );
    this.#hook('onRateLimited', { ...said, attempt, status: 429, delayMs: pauseMs });
  }

  // Before each retry sleep: one info line and the onRetry hook.
  #retrying(said: Said, retry: { error: unknown; attempt: number; delayMs: number }): void {
    const { error, attempt, delayMs } = retry;
    const status = error instanceof PartnerApiError ? error.status : undefined;
    const name = error instanceof Error ? error.name : 'Error';
    this.#settings.logger.info?.(
      `retrying ${said.method} ${said.url} in ${delayMs} ms after ${name}${status ? ` ${status}` : ''} (attempt ${attempt})`,
      { ...said, status, attempt, delayMs, error: name },
    );
    this.#hook('onRetry', { ...said, attempt, status, delayMs, error: name });
  }

  /** Waits for the rate limiter's slot for one request of `call`, within its signal and deadline. */
  async #acquireSlot(
    limiter: RateLimiter,
    call: Call,
    attempt: number,
    sent: RequestSent,
    said: Said,
  ): Promise<RateLimiter.Slot | undefined> {
    const { slowWaitWarnMs, logger } = this.#settings;
    const stop = call.stopSignal();
    try {
      const slot = await waitObserved(
        // Only what the wait reads: this runs for every request, observed or not.
        { limiter, call, clock: this.clock, slowWaitWarnMs, logger, said, attempt },
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
}
