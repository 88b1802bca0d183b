import { vi } from 'vitest';

/**
 * Runs `run` and reports every real timer of at least `minimumMs` that fired meanwhile: a real
 * wait. Timers that are set and cleared (per-attempt timeouts) are not waits. This proves "never
 * sleeps" as behaviour, without asserting on wall time.
 */
export async function realWaitsDuring<T>(
  run: () => Promise<T>,
  minimumMs = 50,
): Promise<{ result: T; waits: number[] }> {
  const original = globalThis.setTimeout;
  const waits: number[] = [];
  const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((
    callback: (...args: unknown[]) => void,
    ms?: number,
    ...args: unknown[]
  ) =>
    original(
      (...inner: unknown[]) => {
        if ((ms ?? 0) >= minimumMs) waits.push(ms ?? 0);
        callback(...inner);
      },
      ms,
      ...args,
    )) as unknown as typeof setTimeout);
  try {
    return { result: await run(), waits };
  } finally {
    spy.mockRestore();
  }
}
