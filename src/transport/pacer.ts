/**
 * What the in-process limiter (`throttle.ts`) loads on first use, once per process: its pacer
 * (p-throttle where it can run, plain timers elsewhere) and the modules a process's first request
 * needs. Process-wide caches of lazily imported modules, kept apart from the limiter itself, whose
 * state lives on each limiter object.
 * @module
 */

/**
 * Loads what a process's first request needs: ky, which the transport imports on first use, and
 * with it the runtime's fetch implementation (Node loads its own on first use). Without this, a
 * process's first request reaches the service long after its grant (measured 90-300 ms on a busy
 * host, against 15-35 ms once loaded), and the next grant lands less than an interval after it at
 * the service. Limiters call it when they are created (and the Redis limiter before a process's
 * first grant); it runs once per process. It loads the limiter's pacer too.
 */
let firstRequestPrepared: Promise<void> | undefined;
let firstRequestReady = false;
/** True once {@link prepareFirstRequest} has finished in this process. */
export const firstRequestIsReady = (): boolean => firstRequestReady;
export const prepareFirstRequest = (): Promise<void> =>
  (firstRequestPrepared ??= (async () => {
    try {
      await import('ky');
      await new Response('{}').json();
    } catch {
      // Nothing more to load in this runtime; the first request loads what it needs.
    }
    await loadPacer();
    firstRequestReady = true;
  })());

/** Paces one slot at a time: `serve` runs when the slot opens, synchronously when one is free. */
export type Slot = (serve: () => void) => Promise<void>;
/** Builds a {@link Slot} whose slots are `interval` apart, each anchored on the previous slot. */
type Pacer = (interval: number, signal: AbortSignal) => Slot;

/**
 * The same pacing as p-throttle's windowed mode with a limit of 1, on plain timers: for runtimes
 * where p-throttle cannot load (it builds a FinalizationRegistry when its module loads, which
 * Cloudflare Workers refuse before the 2025-05-05 compatibility date).
 */
const timerPacer: Pacer = (interval, signal) => {
  let tick = 0;
  return (serve) =>
    new Promise<void>((resolve, reject) => {
      signal.throwIfAborted();
      const now = Date.now();
      let delay = 0;
      if (now - tick > interval) tick = now;
      else {
        tick += interval;
        delay = tick - now;
      }
      if (delay <= 0) {
        serve();
        resolve();
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        serve();
        resolve();
      }, delay);
      signal.addEventListener('abort', onAbort, { once: true });
    });
};

let pacer: Pacer | undefined;
/** A pacer whose slots are `interval` apart (after {@link prepareFirstRequest} has loaded it). */
export const newPacer = (interval: number, signal: AbortSignal): Slot => pacer!(interval, signal);
let pacerLoading: Promise<void> | undefined;
/**
 * Loads p-throttle on first use, only where it can run (FinalizationRegistry and WeakRef exist),
 * so that the core entry loads everywhere; elsewhere {@link timerPacer} paces the same way.
 */
const loadPacer = (): Promise<void> =>
  (pacerLoading ??= (async () => {
    if (typeof FinalizationRegistry === 'function' && typeof WeakRef === 'function') {
      try {
        const { default: pThrottle } = await import('p-throttle');
        pacer = (interval, signal) =>
          pThrottle({ limit: 1, interval, signal })((serve: () => void) => Promise.resolve(serve()));
        return;
      } catch {
        // Not loadable here after all: pace on plain timers.
      }
    }
    pacer = timerPacer;
  })());
