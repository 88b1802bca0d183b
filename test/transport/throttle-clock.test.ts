import { describe, expect, it } from 'vitest';
import { createClockRateLimiter } from '../../src/testing/clock-rate-limiter.js';
import { grantSpacingMs, RateLimitQueueFullError } from '../../src/transport/throttle.js';
import { createManualClock } from '../support/manual-clock.js';

/** Acquires `count` slots at once and records the clock time each one was granted. */
function acquireMany(
  limiter: ReturnType<typeof createClockRateLimiter>,
  clock: { now(): number },
  count: number,
) {
  const grantedAt: number[] = [];
  const all = Array.from({ length: count }, () => limiter.acquire().then(() => grantedAt.push(clock.now())));
  return { grantedAt, all: Promise.all(all) };
}

describe('createClockRateLimiter (a limiter on a Clock of your choice)', () => {
  it('grants the first call at once and spaces the next ones by one interval plus a small margin', async () => {
    const clock = createManualClock();
    const limiter = createClockRateLimiter({ requestsPerSecond: 1, clock });
    const start = clock.now();
    const { grantedAt, all } = acquireMany(limiter, clock, 5);
    await clock.runAll();
    await all;
    const offsets = grantedAt.map((at) => at - start);
    expect(offsets[0]).toBe(0);
    // After an idle spell the first request reaches the service late (connection set-up), so the
    // second grant keeps an extra 50 ms; the others are one interval plus the margin apart.
    expect(offsets[1]).toBe(grantSpacingMs(1) + 50);
    for (let index = 2; index < offsets.length; index++) {
      const gap = offsets[index]! - offsets[index - 1]!;
      expect(gap).toBeGreaterThanOrEqual(1000);
      expect(gap).toBeLessThanOrEqual(1000 / 0.97);
    }
  });

  it('does not let timer lateness add up into a lower rate', async () => {
    const clock = createManualClock();
    // A clock whose timers fire 1 ms late, as real timers do under load.
    const lateClock = {
      now: () => clock.now(),
      sleep: (ms: number, signal?: AbortSignal) => clock.sleep(ms + 1, signal),
    };
    const rate = 20;
    const limiter = createClockRateLimiter({ requestsPerSecond: rate, clock: lateClock });
    const { grantedAt, all } = acquireMany(limiter, clock, 101);
    await clock.runAll();
    await all;
    const gaps = grantedAt.slice(2).map((at, index) => at - grantedAt[index + 1]!);
    const meanGap = gaps.reduce((sum, gap) => sum + gap, 0) / gaps.length;
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1000 / rate);
    expect(meanGap).toBeLessThanOrEqual(grantSpacingMs(rate) + 0.05);
  });

  it('keeps at least 97 % of the limit at slow and fast rates', () => {
    for (const rate of [0.5, 1, 5, 50, 500]) {
      const efficiency = 1000 / rate / grantSpacingMs(rate);
      expect(efficiency).toBeGreaterThanOrEqual(0.97);
      expect(efficiency).toBeLessThan(1);
    }
  });

  it('never grants two slots inside one interval over 20 calls', async () => {
    const clock = createManualClock();
    const limiter = createClockRateLimiter({ requestsPerSecond: 2, clock });
    const { grantedAt, all } = acquireMany(limiter, clock, 20);
    await clock.runAll();
    await all;
    for (let index = 1; index < grantedAt.length; index++) {
      expect(grantedAt[index]! - grantedAt[index - 1]!).toBeGreaterThanOrEqual(500);
    }
  });

  it('reports the queue depth while calls wait', async () => {
    const clock = createManualClock();
    const limiter = createClockRateLimiter({ requestsPerSecond: 1, clock });
    await limiter.acquire();
    const waiting = [limiter.acquire(), limiter.acquire()];
    expect(limiter.queueDepth).toBe(2);
    await clock.advance(1100);
    expect(limiter.queueDepth).toBe(1);
    await clock.runAll();
    await Promise.all(waiting);
    expect(limiter.queueDepth).toBe(0);
  });

  it('aborting one queued call rejects it with the reason and frees its place for the next', async () => {
    const clock = createManualClock();
    const limiter = createClockRateLimiter({ requestsPerSecond: 1, clock });
    const start = clock.now();
    await limiter.acquire();
    const controller = new AbortController();
    const aborted = limiter.acquire({ signal: controller.signal });
    const laterAt: number[] = [];
    const later = limiter.acquire().then(() => laterAt.push(clock.now() - start));
    controller.abort(new Error('caller gave up'));
    await expect(aborted).rejects.toThrow('caller gave up');
    expect(limiter.queueDepth).toBe(1);
    await clock.runAll();
    await later;
    // The remaining call took the freed slot: one interval after the first grant, not two.
    expect(laterAt[0]).toBeLessThan(1100);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const limiter = createClockRateLimiter({ requestsPerSecond: 1, clock: createManualClock() });
    await expect(limiter.acquire({ signal: AbortSignal.abort(new Error('already')) })).rejects.toThrow(
      'already',
    );
    expect(limiter.queueDepth).toBe(0);
  });

  it('pause() holds every caller of the bucket, including a call already waiting', async () => {
    const clock = createManualClock();
    const limiter = createClockRateLimiter({ requestsPerSecond: 1, clock });
    const start = clock.now();
    await limiter.acquire();
    const grantedAt: number[] = [];
    const waiting = limiter.acquire().then(() => grantedAt.push(clock.now() - start));
    limiter.pause(5000);
    await clock.advance(4000);
    expect(grantedAt).toEqual([]);
    await clock.runAll();
    await waiting;
    expect(grantedAt[0]).toBeGreaterThanOrEqual(5000);
    // A fresh caller after the pause is also spaced from the last grant.
    const next = limiter.acquire().then(() => grantedAt.push(clock.now() - start));
    await clock.runAll();
    await next;
    expect(grantedAt[1]! - grantedAt[0]!).toBeGreaterThanOrEqual(1000);
  });

  it('a pause with no one waiting delays the next caller', async () => {
    const clock = createManualClock();
    const limiter = createClockRateLimiter({ requestsPerSecond: 10, clock });
    const start = clock.now();
    limiter.pause(3000);
    let grantedAt = -1;
    const call = limiter.acquire().then(() => (grantedAt = clock.now() - start));
    await clock.runAll();
    await call;
    expect(grantedAt).toBeGreaterThanOrEqual(3000);
  });

  it('refuses a call beyond maxQueue with a typed error', async () => {
    const clock = createManualClock();
    const limiter = createClockRateLimiter({ requestsPerSecond: 1, clock, maxQueue: 2 });
    await limiter.acquire();
    const queued = [limiter.acquire(), limiter.acquire()];
    const refused = limiter.acquire();
    await expect(refused).rejects.toBeInstanceOf(RateLimitQueueFullError);
    await clock.runAll();
    await Promise.all(queued);
  });

  it('is independent per instance: two limiters do not share a budget', async () => {
    const clock = createManualClock();
    const first = createClockRateLimiter({ requestsPerSecond: 1, clock });
    const second = createClockRateLimiter({ requestsPerSecond: 1, clock });
    await first.acquire();
    let secondGranted = false;
    await second.acquire().then(() => (secondGranted = true));
    expect(secondGranted).toBe(true);
  });

  it('leaves no sleep pending once every waiter has aborted', async () => {
    const clock = createManualClock();
    const limiter = createClockRateLimiter({ requestsPerSecond: 1, clock });
    await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire({ signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    await clock.advance(0);
    expect(clock.pendingSleeps).toBe(0);
  });

  it('rejects a non-positive rate', () => {
    expect(() => createClockRateLimiter({ requestsPerSecond: 0, clock: createManualClock() })).toThrow(
      RangeError,
    );
  });
});
