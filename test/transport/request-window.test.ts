import { HttpResponse } from 'msw';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RateLimiter, SlotOutcome } from '../../src/transport/rate-limiter.js';
import { createRateLimiter, grantSpacingMs, prepareFirstRequest } from '../../src/transport/throttle.js';
import { json, mockApi } from '../support/hostile-server.js';
import { systemClock } from '../../src/transport/clock.js';

// The in-process limiter counts the service's window from each request's answer, and makes up
// slots a busy event loop made late. Driven by vitest's fake timers: nothing sleeps for real.

describe('createRateLimiter: the service window counted from answers', () => {
  beforeAll(() => prepareFirstRequest());
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 23, 12, 0, 0) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /**
   * `calls` callers in a row at 2 requests per second (2 per 1 s window): each request is answered
   * `answerAfter(index)` ms after its grant, and reported when `report` is set. Resolves with the grant times.
   */
  async function run(calls: number, answerAfter: (index: number) => number, report: boolean) {
    const limiter = createRateLimiter({ requestsPerSecond: 2 });
    const grantedAt: number[] = [];
    const all = Array.from({ length: calls }, (_, index) =>
      limiter.acquire().then((slot) => {
        grantedAt[index] = Date.now();
        setTimeout(() => report && slot.end('answered'), answerAfter(index));
      }),
    );
    await vi.runAllTimersAsync();
    await Promise.all(all);
    return grantedAt;
  }
  // Two grants a window after the first: a slot nobody reports on counts its spacing's margin
  // twice (2 x 10 ms) plus, after an idle spell, the 50 ms idle margin.
  const unreportedAfterIdle = 1000 + 2 * (grantSpacingMs(2) - 500) + 50;

  it('keeps a request answered late out of the window of the ones after it', async () => {
    // The first request reaches the service (and is answered) 300 ms after its grant; the others at once.
    const late = (index: number) => (index === 0 ? 300 : 1);
    const reported = await run(3, late, true);
    // Two per window: the third grant waits until a full window after the first request's answer.
    expect(reported[2]! - reported[0]!).toBe(1300);
    // Counted from grants alone (a caller that does not report), the third would have come
    // earlier, inside the window the service still counted the first request in.
    const unreported = await run(3, late, false);
    expect(unreported[2]! - unreported[0]!).toBe(unreportedAfterIdle);
  });

  it('after an idle spell, an answer that came quickly replaces the idle margin', async () => {
    const grantedAt = await run(3, () => 5, true);
    expect(grantedAt[2]! - grantedAt[0]!).toBeGreaterThanOrEqual(1005);
    expect(grantedAt[2]! - grantedAt[0]!).toBeLessThan(unreportedAfterIdle);
  });

  it('once round trips are known, counts a request from its answer less half the shortest one', async () => {
    // Requests answered 30 ms after their grants teach the limiter that round trip.
    const grantedAt = await run(108, (index) => (index === 104 ? 130 : 30), true);
    const twoApart = (index: number) => grantedAt[index + 2]! - grantedAt[index]!;
    // Until 100 round trips are known, a request counts from its answer (30 ms after its grant).
    expect(twoApart(50)).toBeCloseTo(1030, 0);
    // Then from its answer less 15 ms, half the round trip (the way back).
    expect(twoApart(102)).toBeCloseTo(1015, 0);
    // The 105th request took 130 ms: the grant two after it waits a window after its answer less 15 ms.
    expect(twoApart(104)).toBeCloseTo(130 - 15 + 1000, 0);
  });

  it('a request that failed without an answer counts from its failure; one never sent from its grant', async () => {
    for (const [outcome, third] of [
      ['failed', 1200],
      ['unsent', unreportedAfterIdle],
    ] as const) {
      const limiter = createRateLimiter({ requestsPerSecond: 2 });
      const grantedAt: number[] = [];
      const all = Array.from({ length: 3 }, (_, index) =>
        limiter.acquire().then((slot) => {
          grantedAt[index] = Date.now();
          setTimeout(() => slot.end(index === 0 ? outcome : 'answered'), index === 0 ? 200 : 1);
        }),
      );
      await vi.runAllTimersAsync();
      await Promise.all(all);
      expect(grantedAt[2]! - grantedAt[0]!).toBe(third);
    }
  });

  it('reporting twice counts once: only the first end is kept', async () => {
    const limiter = createRateLimiter({ requestsPerSecond: 2 });
    const start = Date.now();
    const first = await limiter.acquire();
    vi.advanceTimersByTime(100);
    first.end('unsent');
    vi.advanceTimersByTime(400);
    // A later report would push the first request to now (500 ms after its grant).
    first.end('failed');
    const second = limiter.acquire().then(() => Date.now());
    const third = limiter.acquire().then(() => Date.now());
    await vi.runAllTimersAsync();
    await second;
    expect((await third) - start).toBe(unreportedAfterIdle);
  });

  it('with one request per window (1 per second), counts from grants: an answer costs no round trip', async () => {
    const limiter = createRateLimiter({ requestsPerSecond: 1 });
    const grantedAt: number[] = [];
    const all = Array.from({ length: 3 }, (_, index) =>
      limiter.acquire().then((slot) => {
        grantedAt[index] = Date.now();
        setTimeout(() => slot.end('answered'), 40);
      }),
    );
    await vi.runAllTimersAsync();
    await Promise.all(all);
    expect(grantedAt[2]! - grantedAt[1]!).toBe(grantSpacingMs(1));
  });

  it('makes up slots a stalled event loop made late, never more than the window allows', async () => {
    const rate = 50;
    const limiter = createRateLimiter({ requestsPerSecond: rate });
    const grantedAt: number[] = [];
    let stalled = false;
    const all = Array.from({ length: 150 }, (_, index) =>
      limiter.acquire().then((slot) => {
        grantedAt[index] = Date.now();
        slot.end('answered');
        // A stall of 120 ms after the 60th grant: the timers due meanwhile fire together after it.
        if (index === 60 && !stalled) {
          stalled = true;
          vi.setSystemTime(Date.now() + 120);
        }
      }),
    );
    await vi.runAllTimersAsync();
    await Promise.all(all);
    // The slots due during the stall (61-66) are made up together as soon as it ends...
    expect(grantedAt[61]! - grantedAt[60]!).toBeGreaterThanOrEqual(120);
    expect(grantedAt[66]).toBe(grantedAt[61]);
    // ...so over the next second the stall costs less than one slot.
    expect(grantedAt[120]! - grantedAt[60]!).toBeLessThan(60 * grantSpacingMs(rate) + 20);
    // The service's window is never exceeded: any 50 consecutive grants span at least one second.
    const windows = grantedAt.slice(rate).map((at, index) => at - grantedAt[index]!);
    expect(Math.min(...windows)).toBeGreaterThanOrEqual(1000);
  });
});

describe('the client reports how each request ended to its limiter', () => {
  const api = mockApi();

  /** A limiter of your own that grants at once and records each slot's report (undefined: none). */
  function recordingLimiter() {
    const ends: (SlotOutcome | undefined)[] = [];
    const limiter: RateLimiter = {
      acquire: async () => {
        const index = ends.push(undefined) - 1;
        return { end: (outcome: SlotOutcome) => void (ends[index] ??= outcome) } satisfies RateLimiter.Slot;
      },
      pause: () => undefined,
      queueDepth: 0,
    };
    return { limiter, ends };
  }

  it('answered for every answer (429 and 500 included), unsent when the deadline passed before sending, failed for a dropped connection', async () => {
    const { limiter, ends } = recordingLimiter();
    const client = api.client({ rateLimit: limiter, maxRetries: 2 });
    api.reply(
      () => json({ detail: 'slow down' }, 429, { 'retry-after': '0' }),
      () => json({ detail: 'boom' }, 500),
      () => json({ uuid: '6f1c2a9e-9d1b-4c55-8f0e-2b7f3c0d4e11' }),
    );
    await client.profile.retrieve().catch(() => undefined);
    expect(ends).toEqual(['answered', 'answered', 'answered']);

    ends.length = 0;
    api.always(() => HttpResponse.error());
    await client.profile.retrieve({ maxRetries: 0 }).catch(() => undefined);
    expect(ends).toEqual(['failed']);

    ends.length = 0;
    const slowLimiter: RateLimiter = {
      ...limiter,
      // Grants just after the call's deadline: the request is never sent.
      acquire: async (options) => {
        const slot = await limiter.acquire(options);
        await new Promise((resolve) => setTimeout(resolve, 30));
        return slot;
      },
    };
    const late = api.client({ rateLimit: slowLimiter, clock: systemClock });
    await expect(late.profile.retrieve({ deadlineMs: 10 })).rejects.toThrow(/deadline/);
    expect(ends).toEqual(['unsent']);
  });
});
