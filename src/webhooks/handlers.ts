/**
 * Running the partner's handlers of one event, in order, under their time limit, with a context
 * whose signal aborts when that limit passes.
 * @module
 */
import { WebhookHandlerError } from './errors.js';
import type { WebhookEvent } from './events.js';
import { isThenable, withTimeLimit } from './time-limit.js';
import type { WebhookHandler, WebhookHandlerContext } from './types.js';

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

/**
 * Runs `handlers` on `event`, rejecting with a {@link WebhookHandlerError} when their time runs
 * out. Handlers that answer synchronously need no timer (a timer cannot interrupt them anyway):
 * the time limit starts with the first one that returns a promise, counting the time already
 * spent, so a delivery whose handlers all answer at once arms no timer.
 */
export async function runHandlers(
  handlers: readonly WebhookHandler[],
  event: WebhookEvent,
  handlerTimeoutMs: number,
): Promise<void> {
  const context = new HandlerContext();
  const startedAt = Date.now();
  for (let index = 0; index < handlers.length; index += 1) {
    const running = handlers[index]!(event, context);
    if (!isThenable(running)) continue;
    await withTimeLimit(
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
    return;
  }
}
