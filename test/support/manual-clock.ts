import type { Clock } from '../../src/transport/clock.js';

/** A Clock that only moves when a test says so: `advance(ms)` fires due sleeps in time order. */
export interface ManualClock extends Clock {
  advance(ms: number): Promise<void>;
  /** Advances until nothing is sleeping (bounded), returning how far time moved. */
  runAll(limitMs?: number): Promise<number>;
  readonly pendingSleeps: number;
}

const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
  await new Promise((resolve) => setImmediate(resolve));
};

export function createManualClock(start = Date.UTC(2026, 10, 23, 12, 0, 0)): ManualClock {
  let now = start;
  let sequence = 0;
  const sleeps = new Map<number, { at: number; resolve: () => void }>();
  const clock: ManualClock = {
    now: () => now,
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const id = sequence++;
        sleeps.set(id, { at: now + Math.max(0, ms), resolve });
        signal?.addEventListener(
          'abort',
          () => {
            sleeps.delete(id);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    },
    async advance(ms) {
      const target = now + ms;
      await flush();
      for (;;) {
        const due = [...sleeps.entries()]
          .filter(([, sleep]) => sleep.at <= target)
          .sort((a, b) => a[1].at - b[1].at || a[0] - b[0]);
        const first = due[0];
        if (!first) break;
        now = Math.max(now, first[1].at);
        sleeps.delete(first[0]);
        first[1].resolve();
        await flush();
      }
      now = target;
      await flush();
    },
    async runAll(limitMs = 3_600_000) {
      const begin = now;
      await flush();
      while (sleeps.size > 0 && now - begin < limitMs) {
        const next = Math.min(...[...sleeps.values()].map((sleep) => sleep.at));
        await clock.advance(Math.max(0, next - now));
      }
      return now - begin;
    },
    get pendingSleeps() {
      return sleeps.size;
    },
  };
  return clock;
}
