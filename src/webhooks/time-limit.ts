/**
 * Time limits on the partner's code (handlers, token provider, body reader).
 * @module
 */

/**
 * Settles as `work` does, or rejects with `onTimeout()` after `ms` (calling `onExpired` with that
 * error first). The partner's code may never settle; the answer must not wait for it. Built on one
 * promise and one timer.
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
