/**
 * The rate-limit contract. The client asks its limiter for a slot before every attempt (retries
 * and pages included). One limiter may be shared by several clients of the same partner, and the
 * `/redis` store implements the same interface to share one budget across processes.
 * @module
 */
import type { Priority } from './call.js';

/** Options of one wait for a slot. */
export interface AcquireOptions {
  /** Aborting it rejects the wait with the signal's reason and frees the queue place. */
  signal?: AbortSignal | undefined;
  /** The calling request's priority (`'interactive'` unless the call said `'background'`). */
  priority?: Priority | undefined;
}

/** A limiter the client waits on before each attempt. */
export interface RateLimiter {
  /** Resolves when one request may be sent now. Rejects when `signal` aborts or the queue is full. */
  acquire(options?: AcquireOptions): Promise<void>;
  /**
   * The service answered 429: nobody using this limiter may send for `ms` milliseconds. The
   * whole bucket pauses, not just the failing call, because the service counts per partner.
   */
  pause(ms: number): void | Promise<void>;
  /** How many calls are waiting for a slot (for load shedding and monitoring). */
  readonly queueDepth: number;
}
