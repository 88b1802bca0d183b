/**
 * Time limits on the partner's code (handlers, token provider, body reader), and the receiver's
 * "a value now, or a promise of it".
 * @module
 */

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

export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  typeof (value as { then?: unknown }).then === 'function';

/**
 * A value now, or a promise of it. The receiver's steps answer at once when nothing they ask has
 * to wait (a token list, the in-memory store, synchronous handlers): a delivery then costs no trip
 * through the microtask queue, which under load is most of what the receiver adds to a request.
 * Measured (bench/README.md): with plain async steps instead, the receiver served 0.75 of a bare
 * handler's deliveries per second against 0.84 with these, below its goal of 0.8.
 */
export type Soon<T> = T | Promise<T>;
