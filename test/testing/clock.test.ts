import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeClock } from 'restaurant-partner-sdk/testing';
import { realWaitsDuring } from '../support/real-waits.js';

describe('FakeClock', () => {
  afterEach(() => vi.useRealTimers());

  it('frozen: stays put until advanced or set, accepting ISO durations and instants', async () => {
    const clock = new FakeClock({ frozen: true, startAt: '2026-12-01T08:00:00Z' });
    expect(clock.now()).toBe(Date.parse('2026-12-01T08:00:00Z'));
    await clock.advance('PT1H30M');
    expect(clock.date().toISOString()).toBe('2026-12-01T09:30:00.000Z');
    await clock.advance(500);
    await clock.set('2026-12-02T00:00:00Z');
    expect(clock.date().toISOString()).toBe('2026-12-02T00:00:00.000Z');
    await expect(clock.set('2026-01-01T00:00:00Z')).rejects.toThrow(/backwards/);
    await expect(clock.advance('one hour')).rejects.toThrow(/ISO 8601/);
    await expect(clock.advance(-5)).rejects.toThrow(RangeError);
  });

  it('following real time: keeps ticking with the wall clock, plus any advance', async () => {
    const clock = new FakeClock({ startAt: '2030-01-01T00:00:00Z' });
    const first = clock.now();
    expect(Math.abs(first - Date.parse('2030-01-01T00:00:00Z'))).toBeLessThan(1000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(clock.now()).toBeGreaterThanOrEqual(first + 15);
    await clock.advance('PT1H');
    expect(clock.now() - first).toBeGreaterThanOrEqual(3_600_000);
  });

  it('sleep moves virtual time instead of waiting, waking concurrent sleepers in order', async () => {
    const clock = new FakeClock({ frozen: true, startAt: 0 });
    const woke: [string, number][] = [];
    const { waits } = await realWaitsDuring(() =>
      Promise.all([
        clock.sleep(60_000).then(() => woke.push(['minute', clock.now()])),
        clock.sleep(1_000).then(() => woke.push(['second', clock.now()])),
        clock.sleep(3_600_000).then(() => woke.push(['hour', clock.now()])),
      ]),
    );
    expect(waits).toEqual([]);
    expect(woke).toEqual([
      ['second', 1_000],
      ['minute', 60_000],
      ['hour', 3_600_000],
    ]);
  });

  it('sleep rejects with the signal’s reason when aborted, before or during', async () => {
    const clock = new FakeClock({ frozen: true, startAt: 0 });
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(clock.sleep(1000, controller.signal)).rejects.toThrow('stop');
    const later = new AbortController();
    const sleeping = clock.sleep(1000, later.signal);
    later.abort(new Error('later'));
    await expect(sleeping).rejects.toThrow('later');
    expect(clock.now()).toBe(0);
  });

  it('keeps working when the test installs fake timers', async () => {
    vi.useFakeTimers();
    const clock = new FakeClock({ frozen: true, startAt: 0 });
    await clock.sleep(5_000);
    expect(clock.now()).toBe(5_000);
  });
});
