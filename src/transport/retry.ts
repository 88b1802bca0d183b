/**
 * Retries with p-retry (loaded on first use), waiting through the client's {@link Clock} so a
 * virtual clock drives back-off in tests. p-retry has no per-error delay, so the wait is ours:
 * `Retry-After` for a 429 or a 503, full-jitter exponential back-off otherwise. No wait runs past the
 * call's deadline: when the next one would, the last error stands at once.
 * @module
 */
import { AbortError, PartnerSdkError, RateLimitError, ServerError } from '../errors.js';
import type { Clock } from './clock.js';

/** First back-off step (full jitter draws a wait between 0 and the step, which doubles per retry). */
const BACKOFF_BASE_MS = 500;
/** Ceiling of the back-off step. */
const BACKOFF_CAP_MS = 8_000;
/** Wait after a 429 that carried no usable `Retry-After`: one window of the spec's 1 request/s. */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 1_000;

/** What the retry layer reports before each retry. */
export interface RetryNotice {
  error: unknown;
  /** The attempt that just failed (1-based). */
  attempt: number;
  delayMs: number;
}

/** Options of {@link withRetries}. */
export interface RetryOptions {
  maxRetries: number;
  clock: Clock;
  signal?: AbortSignal | undefined;
  /** Whether this failure may be repeated at all. */
  isRetryable(error: unknown): boolean;
  /** Milliseconds left before the call's deadline (undefined: no deadline). */
  remainingMs?(): number | undefined;
  onRetry?(notice: RetryNotice): void;
  random?: () => number;
}

/** How long to wait before retry number `retryIndex` (0-based) after `error`. */
export function retryDelayMs(error: unknown, retryIndex: number, random: () => number = Math.random): number {
  if (error instanceof RateLimitError) return error.retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS;
  if (error instanceof ServerError && error.retryAfterMs !== undefined) return error.retryAfterMs;
  const step = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retryIndex);
  return Math.floor(random() * step);
}

let pRetryModule: Promise<typeof import('p-retry')> | undefined;

/**
 * Runs `operation` (given the 1-based attempt number) and retries it while `isRetryable` says so
 * and `maxRetries` allows. The last error is thrown as it was built (its `attempts` is the number
 * of the attempt that raised it).
 *
 * The first attempt runs on its own: most calls succeed at once, and p-retry's set-up on every
 * call was a measurable share of the client's per-call overhead. p-retry takes over from the first
 * failure that may be retried.
 */
export async function withRetries<T>(
  operation: (attempt: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  let attempts = 0;
  let lastError: unknown;
  const run = async (attemptNumber: number) => {
    attempts = attemptNumber;
    try {
      return await operation(attemptNumber);
    } catch (error) {
      lastError = error;
      throw error;
    }
  };
  // Decides on a failed attempt; true once the wait before the next attempt is over.
  const retryAfter = async (error: unknown, attemptNumber: number): Promise<boolean> => {
    if (!options.isRetryable(error)) return false;
    const delayMs = retryDelayMs(error, attemptNumber - 1, options.random);
    const remaining = options.remainingMs?.();
    // A wait that would end after the deadline is not started: the call fails now, not later.
    if (remaining !== undefined && delayMs >= remaining) return false;
    options.onRetry?.({ error, attempt: attemptNumber, delayMs });
    await options.clock.sleep(delayMs, options.signal);
    return true;
  };
  try {
    try {
      return await run(1);
    } catch (error) {
      if (options.signal?.aborted || options.maxRetries < 1 || !(await retryAfter(error, 1))) throw error;
    }
    const { default: pRetry } = await (pRetryModule ??= import('p-retry'));
    return await pRetry((attemptNumber) => run(attemptNumber + 1), {
      retries: options.maxRetries - 1,
      minTimeout: 0,
      maxTimeout: 0,
      randomize: false,
      signal: options.signal,
      shouldRetry: ({ error, attemptNumber }) => retryAfter(error, attemptNumber + 1),
    });
  } catch (error) {
    if (options.signal?.aborted && !(error instanceof AbortError)) {
      // Aborted during a retry sleep: what the attempts before it sent stands.
      const sent = lastError instanceof PartnerSdkError ? lastError.sent : 'no';
      throw new AbortError('The call was aborted', { cause: options.signal.reason, sent, attempts });
    }
    throw error;
  }
}
