/**
 * The queue in front of a rate limiter: callers wait in arrival order, and one whose signal aborts
 * leaves at once, so a cancelled call costs nobody a slot. Shared by the limiter that follows a
 * clock of your choice and the Redis limiter; each grants from the head in its own way.
 * @module
 */

/** A caller waiting for a slot. Whoever grants it removes `onAbort` from its signal first. */
export interface Waiter {
  resolve: () => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * Puts a caller at the back of `waiters`, then calls `serve`. If the caller's signal aborts while it
 * waits, it leaves the line and rejects with the signal's reason; when it was the last one waiting,
 * `onEmpty` runs (to end the server's sleep, so no timer outlives the queue).
 */
export function waitInLine(waiters: Waiter[], signal: AbortSignal | undefined, serve: () => void, onEmpty: () => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const waiter: Waiter = { resolve, signal, onAbort: undefined };
    if (signal) {
      waiter.onAbort = () => {
        const index = waiters.indexOf(waiter);
        if (index >= 0) waiters.splice(index, 1);
        if (waiters.length === 0) onEmpty();
        reject(signal.reason);
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
    }
    waiters.push(waiter);
    serve();
  });
}
