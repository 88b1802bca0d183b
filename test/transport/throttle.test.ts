import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createRateLimiter,
  grantSpacingMs,
  prepareFirstRequest,
  RateLimitQueueFullError,
} from '../../src/transport/throttle.js';
import type { RateLimiter } from '../../src/transport/rate-limiter.js';

// The real-time limiter runs on Date.now and timers (p-throttle's own), so these tests drive it
// with vitest's fake timers; one test at the end measures it on the real clock.

/** Acquires `count` slots at once and records the time each one was granted. */
function acquireMany(limiter: RateLimiter, count: number) {
  const grantedAt: number[] = [];
  const all = Array.from({ length: count }, () => limiter.acquire().then(() => grantedAt.push(Date.now())));
  return { grantedAt, all: Promise.all(all) };
}

describe('createRateLimiter (p-throttle paced, real time)', () => {
  // What a process's first request needs is loaded once per process, before its first grant.
  beforeAll(() => prepareFirstRequest());
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 23, 12, 0, 0) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('grants the first call at once and spaces the next ones by one interval plus a small margin', async () => {
    const limiter = createRateLimiter({ requestsPerSecond: 1 });
    const start = Date.now();
    const { grantedAt, all } = acquireMany(limiter, 5);
    await vi.runAllTimersAsync();
    await all;
    const offsets = grantedAt.map((at) => at - start);
    expect(offsets[0]).toBe(0);
    // After an idle spell the first request reaches the service late (connection set-up), so the
    // second grant keeps an extra 50 ms; the others are one interval plus the margin apart.
    expect(offsets[1]).toBe(grantSpacingMs(1) + 50);
    for (let index = 2; index < offsets.length; index++) {
      expect(offsets[index]! - offsets[index - 1]!).toBe(grantSpacingMs(1));
    }
  });

  it('grants a free slot synchronously, so a call that finds the limiter idle never queues', () => {
    const limiter = createRateLimiter({ requestsPerSecond: 1, maxQueue: 0 });
    let granted = false;
    void limiter.acquire().then(() => (granted = true));
    expect(limiter.queueDepth).toBe(0);
    return Promise.resolve().then(() => expect(granted).toBe(true));
  });

  it('keeps at least 97 % of the limit at slow and fast rates', async () => {
    for (const rate of [0.5, 1, 5, 50]) {
      const limiter = createRateLimiter({ requestsPerSecond: rate });
      const { grantedAt, all } = acquireMany(limiter, 30);
      await vi.runAllTimersAsync();
      await all;
      // From the second grant on (the first carries the idle margin).
      const achieved = ((grantedAt.length - 2) / (grantedAt.at(-1)! - grantedAt[1]!)) * 1000;
      expect(achieved / rate).toBeGreaterThanOrEqual(0.97);
      expect(achieved / rate).toBeLessThan(1);
    }
  });

  it('never grants two slots inside one interval over 20 calls', async () => {
    const limiter = createRateLimiter({ requestsPerSecond: 2 });
    const { grantedAt, all } = acquireMany(limiter, 20);
    await vi.runAllTimersAsync();
    await all;
    for (let index = 1; index < grantedAt.length; index++) {
      expect(grantedAt[index]! - grantedAt[index - 1]!).toBeGreaterThanOrEqual(500);
    }
  });

  it('reports the queue depth while calls wait', async () => {
    const limiter = createRateLimiter({ requestsPerSecond: 1 });
    await limiter.acquire();
    const waiting = [limiter.acquire(), limiter.acquire()];
    expect(limiter.queueDepth).toBe(2);
    await vi.advanceTimersByTimeAsync(1100);
    expect(limiter.queueDepth).toBe(1);
    await vi.runAllTimersAsync();
    await Promise.all(waiting);
    expect(limiter.queueDepth).toBe(0);
  });

  it('aborting one queued call rejects it with the reason and frees its place for the next', async () => {
    const limiter = createRateLimiter({ requestsPerSecond: 1 });
    const start = Date.now();
    await limiter.acquire();
    const controller = new AbortController();
    const aborted = limiter.acquire({ signal: controller.signal });
    const laterAt: number[] = [];
    const later = limiter.acquire().then(() => laterAt.push(Date.now() - start));
    controller.abort(new Error('caller gave up'));
    await expect(aborted).rejects.toThrow('caller gave up');
    expect(limiter.queueDepth).toBe(1);
    await vi.runAllTimersAsync();
    await later;
    // The remaining call took the freed slot: one interval (and the idle margin) after the first
    // grant, not two.
    expect(laterAt[0]).toBe(grantSpacingMs(1) + 50);
  });

  it('a cancelled head costs no slot even when the queue empties while p-throttle waits', async () => {
    const limiter = createRateLimiter({ requestsPerSecond: 1 });
    const start = Date.now();
    await limiter.acquire();
    await vi.advanceTimersByTimeAsync(1200);
    await limiter.acquire(); // granted at 1200
    const controller = new AbortController();
    const aborted = limiter.acquire({ signal: controller.signal });
    await vi.advanceTimersByTimeAsync(300);
    controller.abort(new Error('gone'));
    await expect(aborted).rejects.toThrow('gone');
    const next = limiter.acquire().then(() => Date.now() - start);
    await vi.runAllTimersAsync();
    // The slot the cancelled call waited for goes to the next caller, not one interval later.
    expect(await next).toBe(1200 + grantSpacingMs(1));
  });

  it('rejects at once when the signal is already aborted', async () => {
    const limiter = createRateLimiter({ requestsPerSecond: 1 });
    await expect(limiter.acquire({ signal: AbortSignal.abort(new Error('already')) })).rejects.toThrow(
      'already',
    );
    expect(limiter.queueDepth).toBe(0);
  });

  it('pause() holds every caller of the bucket, including a call already waiting', async () => {
    const limiter = createRateLimiter({ requestsPerSecond: 1 });
    const start = Date.now();
    await limiter.acquire();
    const grantedAt: number[] = [];
    const waiting = limiter.acquire().then(() => grantedAt.push(Date.now() - start));
    limiter.pause(5000);
    await vi.advanceTimersByTimeAsync(4000);
    expect(grantedAt).toEqual([]);
    await vi.runAllTimersAsync();
    await waiting;
    expect(grantedAt[0]).toBeGreaterThanOrEqual(5000);
    // A fresh caller after the pause is also spaced from the last grant.
    const next = limiter.acquire().then(() => grantedAt.push(Date.now() - start));
    await vi.runAllTimersAsync();
    await next;
    expect(grantedAt[1]! - grantedAt[0]!).toBeGreaterThanOrEqual(1000);
  });

  it('a pause with no one waiting delays the next caller', async () => {
    const limiter = createRateLimiter({ requestsPerSecond: 10 });
    const start = Date.now();
    limiter.pause(3000);
    const call = limiter.acquire().then(() => Date.now() - start);
    await vi.runAllTimersAsync();
    expect(await call).toBeGreaterThanOrEqual(3000);
  });

  it('refuses a call beyond maxQueue with a typed error', async () => {
    const limiter = createRateLimiter({ requestsPerSecond: 1, maxQueue: 2 });
    await limiter.acquire();
    const queued = [limiter.acquire(), limiter.acquire()];
    const refused = limiter.acquire();
    await expect(refused).rejects.toBeInstanceOf(RateLimitQueueFullError);
    expect(limiter.queueDepth).toBe(2);
    await vi.runAllTimersAsync();
    await Promise.all(queued);
  });

  it('maxQueue 0: a free slot is granted, a busy one refused', async () => {
    const limiter = createRateLimiter({ requestsPerSecond: 1, maxQueue: 0 });
    await limiter.acquire();
    await expect(limiter.acquire()).rejects.toBeInstanceOf(RateLimitQueueFullError);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('is independent per instance: two limiters do not share a budget', async () => {
    const first = createRateLimiter({ requestsPerSecond: 1 });
    const second = createRateLimiter({ requestsPerSecond: 1 });
    await first.acquire();
    let secondGranted = false;
    void second.acquire().then(() => (secondGranted = true));
    await Promise.resolve();
    expect(secondGranted).toBe(true);
  });

  it('one limiter shared by several callers grants in arrival order', async () => {
    const limiter = createRateLimiter({ requestsPerSecond: 5 });
    const order: string[] = [];
    const calls = ['a1', 'b1', 'a2', 'b2', 'c1'].map((name) =>
      limiter.acquire().then(() => order.push(name)),
    );
    await vi.runAllTimersAsync();
    await Promise.all(calls);
    expect(order).toEqual(['a1', 'b1', 'a2', 'b2', 'c1']);
  });

  it('leaves no timer pending once every waiter has aborted', async () => {
    const limiter = createRateLimiter({ requestsPerSecond: 1 });
    await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire({ signal: controller.signal });
    expect(vi.getTimerCount()).toBe(1);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('refuses a clock, pointing to the limiter that takes one', () => {
    expect(() => createRateLimiter({ requestsPerSecond: 1, clock: { now: Date.now } } as never)).toThrow(
      /createClockRateLimiter/,
    );
  });

  it('rejects a non-positive rate and a bad maxQueue', () => {
    expect(() => createRateLimiter({ requestsPerSecond: 0 })).toThrow(RangeError);
    expect(() => createRateLimiter({ requestsPerSecond: 1, maxQueue: -1 })).toThrow(RangeError);
  });
});

describe('createRateLimiter on the real clock', () => {
  it("holds a process's first grant until what its request needs (ky, fetch) is loaded, not its send", async () => {
    vi.resetModules();
    // A fresh copy of the module, as in a process that has sent nothing yet.
    const fresh = await import('../../src/transport/throttle.js');
    const limiter = fresh.createRateLimiter({ requestsPerSecond: 1 });
    let granted = false;
    const grant = limiter.acquire().then(() => (granted = true));
    await Promise.resolve();
    expect(granted).toBe(false);
    await fresh.prepareFirstRequest();
    await grant;
    expect(granted).toBe(true);
    // From then on a free slot is granted at once.
    expect(limiter.queueDepth).toBe(0);
  });

  it("never puts more grants in one of the service's windows than it allows, even when the event loop stalls", async () => {
    const rate = 40;
    const limiter = createRateLimiter({ requestsPerSecond: rate });
    const grantedAt: number[] = [];
    const calls = Array.from({ length: 48 }, (_, index) =>
      limiter.acquire().then(() => {
        grantedAt.push(performance.now());
        // A stall after the fourth grant makes the next slots late: they are made up after it.
        if (index === 3) {
          const until = performance.now() + 40;
          while (performance.now() < until);
        }
      }),
    );
    await Promise.all(calls);
    // performance.now and Date.now can disagree by under a millisecond, and a loaded machine may
    // record a grant a little after it was made. The service counts `rate` requests per second:
    // no second holds more grants.
    const windows = grantedAt.slice(rate).map((at, index) => at - grantedAt[index]!);
    expect(Math.min(...windows)).toBeGreaterThanOrEqual(1000 - 3);
  });
});
