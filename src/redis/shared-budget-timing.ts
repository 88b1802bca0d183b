/**
 * The shared budget's timing figures (`shared-budget.ts`): how far apart its slots come, how late
 * a slot may still be used, how long a request may be out, and how often a process asks Redis.
 * They stand apart because each is derived once from the partner's rate and the Redis options,
 * with the measurement behind it, and the budget only reads them.
 *
 * Why a chain of requests rather than slots alone: a slot is a time on Redis's clock, but a
 * request leaves its process later, and on a loaded host much later (measured: 40 ms typical,
 * 300 ms at worst between a grant and the answer beside one CPU-bound process on 2 cores). Two
 * processes' requests whose slots were a spacing apart then reach the service closer than its
 * window. Counting the window from when the request before was reported ended (an answer came,
 * so the service had it) holds however late it left.
 * @module
 */
import { grantSpacingMs, serviceWindow } from '../transport/throttle.js';

/**
 * How often a process waiting for its turn asks Redis again, at the longest. Each answer brings
 * the slots up to date (a request that left late moves later slots back): a process that has
 * to pace alone when Redis stops answering paces on what it heard last, so it hears often.
 */
export const HEARTBEAT_MS = 250;

/** How often a process whose slot has come asks again while the request before it is still out. */
export const HOLD_POLL_MS = 20;

/** After this many tries at Redis, a process with no slot of its own paces at the fallback rate. */
export const LONG_OUTAGE_TRIES = 10;

/** The figures one shared budget times its slots and its asks by (milliseconds). */
export interface BudgetTiming {
  /** How far apart two slots of the lattice come. */
  spacing: number;
  /** How late the head may come for its slot before Redis takes it as missed, or an idle lattice starts again. */
  tolerance: number;
  /** The head reserves its slot this long after the slot before it has come. */
  reserveAfter: number;
  /** The service's window between two requests, as the chain counts it (a rounding margin on top). */
  window: number;
  /** How long a request granted without Redis's knowledge may still take to reach the service. */
  assumeOut: number;
  /** How long a request may stay out unreported before the next goes (its process died or stalled). */
  holdMax: number;
  /** How late a slot may still be used when pacing alone. */
  aloneTolerance: number;
  /** How long processes keep to their own slots after an outage. */
  recoveryMs: number;
  /** How long the keys outlive the last ask. */
  keyTtlMs: number;
}

/** Derives the timing of a budget of `requestsPerSecond` from its Redis options. */
export function budgetTiming(options: {
  requestsPerSecond: number;
  commandTimeoutMs: number;
  retryRedisAfterMs: number;
}): BudgetTiming {
  const { requestsPerSecond, commandTimeoutMs, retryRedisAfterMs } = options;
  const interval = 1000 / requestsPerSecond;
  // The slots' pace: 3 % over the interval, at most 30 ms (97 % at best). It is not what keeps
  // requests a window apart at the service (a busy host delays a request by far more): the
  // chain does (see GO), and pacing alone uses every other slot.
  const spacing = Math.max(grantSpacingMs(requestsPerSecond), interval + Math.min(interval * 0.03, 30));
  // Longer than a request was ever seen to take from its grant to its answer on a loaded host
  // (300 ms beside a CPU-bound process on 2 cores), at most half an interval.
  const assumeOut = Math.min(500, interval / 2);
  return {
    spacing,
    // Half the margin the service's window allows.
    tolerance: Math.max(1, 0.5 * (spacing - interval) * serviceWindow(requestsPerSecond).count),
    reserveAfter: Math.min(spacing / 4, 150),
    // Requests a whole interval apart on the service's clock (it stamps whole milliseconds).
    window: interval + 2,
    assumeOut,
    holdMax: assumeOut,
    // Pacing alone keeps a whole interval between two processes' slots (every other slot):
    // a timer that much late still leaves most of it.
    aloneTolerance: Math.min(200, interval / 5),
    // After an outage, processes keep to their own slots until every one of them has had time to
    // find Redis again (each asks every retryRedisAfterMs, each ask bounded by commandTimeoutMs).
    recoveryMs: 2 * retryRedisAfterMs + 2 * commandTimeoutMs + spacing,
    // An empty lattice costs the next grant a wait (it may follow a request just sent): the keys
    // outlive a minute of silence.
    keyTtlMs: Math.ceil(Math.max(60_000, 4 * spacing)),
  };
}
