/**
 * What happens to a verified delivery: the duplicate store's lease, the partner's handlers under
 * their time limit, and the store's record of the outcome. Every step answers at once when what
 * it asks answers at once (the in-memory store, synchronous handlers).
 * @module
 */
import type { DuplicateClaim, DuplicateStore } from './duplicates.js';
import {
  WebhookConfigurationError,
  WebhookDeliveryInProgressError,
  WebhookError,
  WebhookHandlerError,
} from './errors.js';
import type { WebhookEvent } from './events.js';
import type { WebhookHandler, WebhookHandlerContext, WebhookLogger, WebhookResult } from './receiver.js';

/**
 * Settles as `work` does, or rejects with `onTimeout()` after `ms` (calling `onExpired` with that
 * error first). The partner's code may never settle; the answer must not wait for it. Built on one
 * promise and one timer: it runs twice for every delivery.
 */
export function withTimeLimit<T>(
  work: () => T | Promise<T>,
  ms: number,
  onTimeout: () => Error,
  onExpired?: (error: Error) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = onTimeout();
      onExpired?.(error);
      reject(error);
    }, ms);
    const settle = (outcome: () => void) => {
      clearTimeout(timer);
      outcome();
    };
    let running: T | Promise<T>;
    try {
      running = work();
    } catch (error) {
      settle(() => reject(error));
      return;
    }
    Promise.resolve(running).then(
      (value) => settle(() => resolve(value)),
      (error: unknown) => settle(() => reject(error)),
    );
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  typeof (value as { then?: unknown }).then === 'function';

/**
 * A value now, or a promise of it. The receiver's steps answer at once when nothing they ask has
 * to wait (a token list, the in-memory store, synchronous handlers): a delivery then costs no trip
 * through the microtask queue, which under load is most of what the receiver adds to a request.
 */
export type Soon<T> = T | Promise<T>;

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

/** What a delivery holds in the duplicate store while its handlers run. */
interface Lease {
  complete(): void | Promise<void>;
  release(): void | Promise<void>;
}

/** The lease of a store without claims: the delivery is added once its handlers succeed. */
class AddLease implements Lease {
  readonly #store: DuplicateStore;
  readonly #key: string;
  constructor(store: DuplicateStore, key: string) {
    this.#store = store;
    this.#key = key;
  }
  complete(): void | Promise<void> {
    return this.#store.add(this.#key);
  }
  release(): void | Promise<void> {
    return this.#store.release?.(this.#key);
  }
}

/**
 * The lease of a store that renews claims: renewed every third of the claim's length while the
 * handlers run, so the claim stays short and a receiver that stops (killed, cut off) holds the
 * delivery only briefly. Ending it stops the renewals and waits for one still on its way, so the
 * store sees the renewal before the completion or release (a renewal landing after a release
 * would take the delivery again).
 */
class RenewedLease implements Lease {
  readonly #claim: DuplicateClaim & { status: 'claimed' };
  readonly #renewClaim: () => Promise<boolean>;
  readonly #onLost: () => void;
  readonly #timer: ReturnType<typeof setInterval>;
  /** The renewal on its way to the store, if any: at most one at a time. */
  #renewing: Promise<void> | undefined;

  constructor(
    claim: DuplicateClaim & { status: 'claimed' },
    renew: () => Promise<boolean>,
    everyMs: number,
    onLost: () => void,
  ) {
    this.#claim = claim;
    this.#renewClaim = renew;
    this.#onLost = onLost;
    this.#timer = setInterval(() => this.#renew(), everyMs);
    // The handlers' own promise and time limit keep the process alive, not the renewals.
    this.#timer.unref?.();
  }

  #renew(): void {
    // One renewal at a time: while the store is slow, the one on its way renews when it lands.
    if (this.#renewing) return;
    this.#renewing = Promise.resolve()
      .then(() => this.#renewClaim.call(this.#claim))
      .then(
        (held) => {
          if (held) return;
          clearInterval(this.#timer);
          this.#onLost();
        },
        // A renewal the store did not answer: the next one tries again while the claim lasts.
        () => undefined,
      )
      .finally(() => (this.#renewing = undefined));
  }

  #end(then: () => Promise<void>): Promise<void> {
    clearInterval(this.#timer);
    return this.#renewing ? this.#renewing.then(then) : then();
  }

  complete(): Promise<void> {
    return this.#end(() => this.#claim.complete());
  }

  release(): Promise<void> {
    return this.#end(() => this.#claim.release());
  }
}

/** Added to a renewed claim's length for the longest wait on another receiver's claim: a poll lands after it ran out. */
const CLAIM_WAIT_MARGIN_MS = 100;

/**
 * Claims the delivery in a store with leases, waiting while another receiver holds it. Answering
 * 200 then would lose the event if that one's handler fails, so the wait is for its outcome, as
 * long as a handler may take; but a renewed claim is held only while a handler runs, and one left
 * behind (its receiver stopped, or gave up on a claim that landed late) runs out within
 * `claimTtlMs`: past that wait, a claim still held is a handler still running, answered 409 within
 * a second rather than holding the delivery.
 */
async function claimLease(
  store: DuplicateStore,
  key: string,
  event: WebhookEvent,
  handlerTimeoutMs: number,
  log: DispatchOptions['log'],
): Promise<Lease | 'processed' | WebhookError> {
  const renewed = store.renewsClaims === true;
  const waitMs = renewed
    ? Math.min(store.claimTtlMs! + CLAIM_WAIT_MARGIN_MS, handlerTimeoutMs)
    : handlerTimeoutMs;
  const longestPauseMs = renewed ? CLAIM_WAIT_MARGIN_MS : 1000;
  let waitUntil: number | undefined;
  for (let pauseMs = 25; ; pauseMs = Math.min(pauseMs * 2, longestPauseMs)) {
    const claim: DuplicateClaim = await store.claim!(key);
    if (claim.status === 'claimed') {
      if (!renewed || !claim.renew) return claim;
      // Bound: a partner's store may be a class whose renew() reads `this`.
      return new RenewedLease(claim, claim.renew.bind(claim), store.claimTtlMs! / 3, () =>
        log(
          'warn',
          'The claim on a webhook delivery ran out while its handler ran; another receiver may run it too',
          {
            deliveryId: event.id,
            event: event.event,
          },
        ),
      );
    }
    if (claim.status === 'processed') return 'processed';
    // Counted from the first answer: a claim that took long to answer has not been waited on.
    const now = Date.now();
    waitUntil ??= now + waitMs;
    if (now >= waitUntil) return new WebhookDeliveryInProgressError(event.id);
    await sleep(Math.min(pauseMs, waitUntil - now));
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
