/**
 * What happens to a verified delivery: the duplicate store's lease, the partner's handlers under
 * their time limit, and the store's record of the outcome.
 * @module
 */
import type { DuplicateStore } from './duplicates.js';
import { WebhookConfigurationError, WebhookError, WebhookHandlerError } from './errors.js';
import type { WebhookEvent } from './events.js';
import { runHandlers } from './handlers.js';
import { AddLease, claimLease, type Lease } from './leases.js';
import type { WebhookHandler, WebhookLogger, WebhookResult } from './types.js';

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

/**
 * The dispatcher of one receiver: `processKeyed` for a delivery with a duplicate key, `process`
 * for one without. Neither rejects: every failure is an answer.
 */
export function createDispatcher(options: DispatchOptions): {
  process: (
    event: WebhookEvent,
    key: string | undefined,
    tokens: readonly string[],
  ) => Promise<WebhookResult>;
  processKeyed: (event: WebhookEvent, key: string, tokens: readonly string[]) => Promise<WebhookResult>;
} {
  const { duplicateStore, handlersByType, handlerTimeoutMs, log, refusal, accepted } = options;
  // Deliveries being processed right now, by duplicate key: a concurrent repeat waits for the
  // first instead of running the handler twice.
  const inFlight = new Map<string, Promise<WebhookResult>>();

  /**
   * Takes the delivery in the duplicate store: a lease to run it, or the answer when it must not
   * run (processed already; held by another receiver past the wait).
   */
  async function takeLease(
    store: DuplicateStore,
    key: string,
    event: WebhookEvent,
  ): Promise<Lease | 'processed' | WebhookError> {
    if (store.claim) return await claimLease(store, key, event, handlerTimeoutMs, log);
    return (await store.has(key)) ? 'processed' : new AddLease(store, key);
  }

  /**
   * The answer to a verified event: duplicates, handlers, and the store's record of it. A handler
   * that failed frees the lease, so a retry of the delivery runs the handler again.
   */
  async function process(
    event: WebhookEvent,
    key: string | undefined,
    tokens: readonly string[],
  ): Promise<WebhookResult> {
    let lease: Lease | undefined;
    if (duplicateStore && key !== undefined) {
      let taken: Lease | 'processed' | WebhookError;
      try {
        taken = await takeLease(duplicateStore, key, event);
      } catch (cause) {
        // Answering 500 keeps at-least-once delivery without risking a second run of the handler.
        const error = new WebhookConfigurationError('The duplicate store failed to answer', { cause });
        return refusal(error, tokens, event);
      }
      if (taken instanceof WebhookError) return refusal(taken, tokens, event);
      if (taken === 'processed') {
        log('info', 'Webhook delivery already processed; answered 200 without running the handler', {
          deliveryId: event.id,
          event: event.event,
        });
        return accepted(event, true);
      }
      lease = taken;
    }
    const specific = handlersByType.get(event.type);
    const handlers = specific && specific.length > 0 ? specific : handlersByType.get('*');
    try {
      if (handlers && handlers.length > 0) await runHandlers(handlers, event, handlerTimeoutMs);
    } catch (cause) {
      try {
        await lease?.release();
      } catch {
        // The claim expires on its own; the 500 still leaves the delivery unprocessed.
      }
      const error =
        cause instanceof WebhookHandlerError ? cause : new WebhookHandlerError(event.event, event.id, cause);
      return refusal(error, tokens, event);
    }
    try {
      await lease?.complete();
    } catch (cause) {
      // The handler ran: answering 500 would make the service send it again, so log and accept.
      log('error', 'The duplicate store failed to record a processed delivery', {
        deliveryId: event.id,
        cause: options.redact(cause instanceof Error ? cause.message : String(cause), tokens),
      });
    }
    if (options.debug)
      log('debug', 'Webhook delivery processed', { deliveryId: event.id, event: event.event });
    return accepted(event, false);
  }

  /** Runs a delivery once even when it arrives again while it runs: a concurrent repeat waits. */
  async function processKeyed(
    event: WebhookEvent,
    key: string,
    tokens: readonly string[],
  ): Promise<WebhookResult> {
    // Several repeats may wait on one run: the first to wake runs, the others wait on it in turn.
    for (let running = inFlight.get(key); running; running = inFlight.get(key)) await running;
    const run = process(event, key, tokens);
    inFlight.set(key, run);
    try {
      return await run;
    } finally {
      // Only this run's entry: a repeat that waited on it may have set its own already.
      if (inFlight.get(key) === run) inFlight.delete(key);
    }
  }

  return { process, processKeyed };
}
