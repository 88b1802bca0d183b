/**
 * What happens to a verified delivery: the duplicate store's lease, the partner's handlers under
 * their time limit, and the store's record of the outcome. Every step answers at once when what
 * it asks answers at once (the in-memory store, synchronous handlers).
 * @module
 */
import type { DuplicateStore } from './duplicates.js';
import { WebhookConfigurationError, WebhookError, WebhookHandlerError } from './errors.js';
import type { WebhookEvent } from './events.js';
import { AddLease, claimLease, type Lease } from './leases.js';
import { isThenable, type Soon, withTimeLimit } from './time-limit.js';
import type { WebhookHandler, WebhookHandlerContext, WebhookLogger, WebhookResult } from './types.js';

/**
 * The context given to handlers. The signal is made on first use: most handlers never read it,
 * and an AbortController costs more than the rest of a delivery's bookkeeping.
 */
class HandlerContext implements WebhookHandlerContext {
  #controller: AbortController | undefined;
  #expired: Error | undefined;

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#expired) this.#controller.abort(this.#expired);
    }
    return this.#controller.signal;
  }

  /** Whether the handlers' time ran out. */
  hasExpired(): boolean {
    return this.#expired !== undefined;
  }

  expire(error: Error): void {
    this.#expired = error;
    this.#controller?.abort(error);
  }
}

/** What {@link createDispatcher} needs from its receiver. */
export interface DispatchOptions {
  duplicateStore: DuplicateStore | undefined;
  handlersByType: ReadonlyMap<string, readonly WebhookHandler[]>;
  handlerTimeoutMs: number;
  /** Whether `log` writes debug lines (checked before building one per delivery). */
  debug: boolean;
  log: (level: keyof WebhookLogger, message: string, details: Record<string, unknown>) => void;
  refusal: (error: WebhookError, tokens: readonly string[], event?: WebhookEvent) => WebhookResult;
  accepted: (event: WebhookEvent, duplicate: boolean) => WebhookResult;
  redact: (text: string, tokens: readonly string[]) => string;
}

/** The dispatcher of one receiver: `processKeyed` for a delivery with a duplicate key, `process` for one without. */
export function createDispatcher(options: DispatchOptions): {
  process: (event: WebhookEvent, key: string | undefined, tokens: readonly string[]) => Soon<WebhookResult>;
  processKeyed: (event: WebhookEvent, key: string, tokens: readonly string[]) => Soon<WebhookResult>;
} {
  const { duplicateStore, handlersByType, handlerTimeoutMs, log, refusal, accepted } = options;
  // Deliveries being processed right now, by duplicate key: a concurrent repeat waits for the
  // first instead of running the handler twice.
  const inFlight = new Map<string, Promise<WebhookResult>>();

  /**
   * Takes the delivery in the duplicate store: a lease to run it, or the answer when it must not
   * run (processed already; held by another receiver past the wait).
   */
  function takeLease(
    store: DuplicateStore,
    key: string,
    event: WebhookEvent,
  ): Lease | 'processed' | Promise<Lease | 'processed' | WebhookError> {
    if (!store.claim) {
      const seen = store.has(key);
      // A store answering at once (the in-memory one) costs no trip through the microtask queue.
      if (typeof seen === 'boolean') return seen ? 'processed' : new AddLease(store, key);
      return Promise.resolve(seen).then((processed) => (processed ? 'processed' : new AddLease(store, key)));
    }
    return claimLease(store, key, event, handlerTimeoutMs, log);
  }

  /**
   * Runs the handlers of one event. Handlers that answer synchronously need no timer (a timer
   * cannot interrupt them anyway): the time limit starts with the first one that returns a
   * promise, counting the time already spent.
   */
  function runHandlers(event: WebhookEvent): void | Promise<void> {
    const specific = handlersByType.get(event.type);
    const handlers = specific && specific.length > 0 ? specific : handlersByType.get('*');
    if (!handlers || handlers.length === 0) return;
    const context = new HandlerContext();
    const startedAt = Date.now();
    for (let index = 0; index < handlers.length; index += 1) {
      const running = handlers[index]!(event, context);
      if (isThenable(running)) return finishHandlers(event, context, handlers, index, running, startedAt);
    }
  }

  /** The rest of {@link runHandlers} once a handler returned a promise, under the time limit. */
  function finishHandlers(
    event: WebhookEvent,
    context: HandlerContext,
    handlers: readonly WebhookHandler[],
    index: number,
    running: PromiseLike<unknown>,
    startedAt: number,
  ): Promise<void> {
    return withTimeLimit(
      async () => {
        await running;
        for (let next = index + 1; next < handlers.length; next += 1) {
          if (context.hasExpired()) return;
          await handlers[next]!(event, context);
        }
      },
      Math.max(0, startedAt + handlerTimeoutMs - Date.now()),
      () => new WebhookHandlerError(event.event, event.id, undefined, handlerTimeoutMs),
      (error) => context.expire(error),
    );
  }

  /** The answer to a verified event: duplicates, handlers, and the store's record of it. */
  function process(
    event: WebhookEvent,
    key: string | undefined,
    tokens: readonly string[],
  ): Soon<WebhookResult> {
    if (!duplicateStore || key === undefined) return runAndRecord(event, undefined, tokens);
    let taken: ReturnType<typeof takeLease>;
    try {
      taken = takeLease(duplicateStore, key, event);
    } catch (cause) {
      return storeFailed(cause, tokens, event);
    }
    if (!(taken instanceof Promise)) return afterLease(event, taken, tokens);
    return leaseLater(taken, event, tokens);
  }

  // The waiting branches live in functions of their own: a closure in the function answering at
  // once would cost its context on every delivery, waiting or not.
  const leaseLater = (
    taken: Promise<Lease | 'processed' | WebhookError>,
    event: WebhookEvent,
    tokens: readonly string[],
  ): Promise<WebhookResult> =>
    taken.then(
      (lease) => afterLease(event, lease, tokens),
      (cause: unknown) => storeFailed(cause, tokens, event),
    );

  // Answering 500 keeps at-least-once delivery without risking a second run of the handler.
  const storeFailed = (cause: unknown, tokens: readonly string[], event: WebhookEvent): WebhookResult =>
    refusal(new WebhookConfigurationError('The duplicate store failed to answer', { cause }), tokens, event);

  function afterLease(
    event: WebhookEvent,
    taken: Lease | 'processed' | WebhookError,
    tokens: readonly string[],
  ): Soon<WebhookResult> {
    if (taken instanceof WebhookError) return refusal(taken, tokens, event);
    if (taken === 'processed') {
      log('info', 'Webhook delivery already processed; answered 200 without running the handler', {
        deliveryId: event.id,
        event: event.event,
      });
      return accepted(event, true);
    }
    return runAndRecord(event, taken, tokens);
  }

  function runAndRecord(
    event: WebhookEvent,
    lease: Lease | undefined,
    tokens: readonly string[],
  ): Soon<WebhookResult> {
    let running: void | Promise<void>;
    try {
      running = runHandlers(event);
    } catch (cause) {
      return handlerFailed(event, lease, tokens, cause);
    }
    if (!(running instanceof Promise)) return record(event, lease, tokens);
    return recordLater(running, event, lease, tokens);
  }

  const recordLater = (
    running: Promise<void>,
    event: WebhookEvent,
    lease: Lease | undefined,
    tokens: readonly string[],
  ): Promise<WebhookResult> =>
    running.then(
      () => record(event, lease, tokens),
      (cause: unknown) => handlerFailed(event, lease, tokens, cause),
    );

  /** A handler threw: the lease is freed, so a retry of the delivery runs the handler again. */
  function handlerFailed(
    event: WebhookEvent,
    lease: Lease | undefined,
    tokens: readonly string[],
    cause: unknown,
  ): Soon<WebhookResult> {
    const error =
      cause instanceof WebhookHandlerError ? cause : new WebhookHandlerError(event.event, event.id, cause);
    const answer = () => refusal(error, tokens, event);
    let releasing: void | Promise<void> | undefined;
    try {
      releasing = lease?.release();
    } catch {
      // The claim expires on its own; the 500 still leaves the delivery unprocessed.
    }
    return isThenable(releasing) ? Promise.resolve(releasing).then(answer, answer) : answer();
  }

  /** The handlers succeeded: the store remembers the delivery as processed. */
  function record(
    event: WebhookEvent,
    lease: Lease | undefined,
    tokens: readonly string[],
  ): Soon<WebhookResult> {
    let completing: void | Promise<void> | undefined;
    try {
      completing = lease?.complete();
    } catch (cause) {
      return recordFailed(event, tokens, cause);
    }
    if (!isThenable(completing)) return processed(event);
    return recordedLater(completing, event, tokens);
  }

  const recordedLater = (
    completing: PromiseLike<unknown>,
    event: WebhookEvent,
    tokens: readonly string[],
  ): Promise<WebhookResult> =>
    Promise.resolve(completing).then(
      () => processed(event),
      (cause: unknown) => recordFailed(event, tokens, cause),
    );

  // The handler ran: answering 500 would make the service send it again, so log and accept.
  function recordFailed(event: WebhookEvent, tokens: readonly string[], cause: unknown): WebhookResult {
    log('error', 'The duplicate store failed to record a processed delivery', {
      deliveryId: event.id,
      cause: options.redact(cause instanceof Error ? cause.message : String(cause), tokens),
    });
    return processed(event);
  }

  function processed(event: WebhookEvent): WebhookResult {
    if (options.debug)
      log('debug', 'Webhook delivery processed', { deliveryId: event.id, event: event.event });
    return accepted(event, false);
  }

  /** Runs a delivery once even when it arrives again while it runs: a concurrent repeat waits. */
  function processKeyed(event: WebhookEvent, key: string, tokens: readonly string[]): Soon<WebhookResult> {
    if (inFlight.has(key)) return processAfterRunning(event, key, tokens);
    const result = process(event, key, tokens);
    // Answered at once: nothing else ran meanwhile, so nothing can have seen it in flight.
    if (!(result instanceof Promise)) return result;
    return markInFlight(result, key);
  }

  function markInFlight(result: Promise<WebhookResult>, key: string): Promise<WebhookResult> {
    const run = result.finally(() => inFlight.delete(key));
    inFlight.set(key, run);
    return run;
  }

  async function processAfterRunning(
    event: WebhookEvent,
    key: string,
    tokens: readonly string[],
  ): Promise<WebhookResult> {
    for (let running = inFlight.get(key); running; running = inFlight.get(key)) await running.catch(() => {});
    return processKeyed(event, key, tokens);
  }

  return { process, processKeyed };
}
