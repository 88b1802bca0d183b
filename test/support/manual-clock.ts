/**
 * The one test clock of test/ (a `Clock` the code under test sleeps on). Two ways to sleep:
 *
 * - manual (default): a sleep ends only when the test moves time (`advance`, `runAll`), so a test
 *   proves a schedule step by step;
 * - `autoAdvance: true`: a sleep moves time forward itself and returns at once, so a call that
 *   backs off or waits on its limiter finishes without the test driving it.
 *
 * Either way every requested sleep is recorded in `sleeps`. A test on the fake service uses the
 * fake's own clock instead (`createFakeService({ clock: { frozen: true } })`); a sync under test
 * follows it with test/sync/support/follower-clock.mjs. test/house/doubles.test.ts fails when
 * another file writes a clock of its own.
 */
import type { Clock } from '../../src/transport/clock.js';

/** A Clock that only moves when a test (or, with `autoAdvance`, a sleep) says so. */
export interface ManualClock extends Clock {
  /** Moves time forward by `ms`, firing due sleeps in time order. */
  advance(ms: number): Promise<void>;
  /** Advances until nothing is sleeping (bounded), returning how far time moved. */
  runAll(limitMs?: number): Promise<number>;
  readonly pendingSleeps: number;
  /** Every sleep requested, in milliseconds, in order. */
  readonly sleeps: number[];
}

export interface ManualClockOptions {
  /** Epoch milliseconds the clock starts at. Default: 2026-11-23T12:00:00Z. */
  start?: number;
  /** Sleeps move time forward and return at once instead of waiting for `advance`. */
  autoAdvance?: boolean;
}

const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
  await new Promise((resolve) => setImmediate(resolve));
};

export function createManualClock(options: ManualClockOptions = {}): ManualClock {
  let now = options.start ?? Date.UTC(2026, 10, 23, 12, 0, 0);
  let sequence = 0;
  const requested: number[] = [];
  const pending = new Map<number, { at: number; resolve: () => void }>();
  const clock: ManualClock = {
    now: () => now,
    sleep(ms, signal) {
      if (options.autoAdvance) {
        if (signal?.aborted) return Promise.reject(signal.reason);
        requested.push(ms);
        now += Math.max(0, ms);
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        requested.push(ms);
        const id = sequence++;
        pending.set(id, { at: now + Math.max(0, ms), resolve });
        signal?.addEventListener(
          'abort',
          () => {
            pending.delete(id);
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
        const due = [...pending.entries()]
          .filter(([, sleep]) => sleep.at <= target)
          .sort((a, b) => a[1].at - b[1].at || a[0] - b[0]);
        const first = due[0];
        if (!first) break;
        now = Math.max(now, first[1].at);
        pending.delete(first[0]);
        first[1].resolve();
        await flush();
      }
      now = target;
      await flush();
    },
    async runAll(limitMs = 3_600_000) {
      const begin = now;
      await flush();
      while (pending.size > 0 && now - begin < limitMs) {
        const next = Math.min(...[...pending.values()].map((sleep) => sleep.at));
        await clock.advance(Math.max(0, next - now));
      }
      return now - begin;
    },
    get pendingSleeps() {
      return pending.size;
    },
    sleeps: requested,
  };
  return clock;
}
