/**
 * The body time limits `nodeHandler()` keeps on one timer: each fires once its time has passed
 * (never before), whatever order the limits were set in; a cancelled one never fires; and no timer
 * is left once no limit is pending. On the fake clock.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { BodyDeadlines } from '../../src/webhooks/body-deadlines.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

it('fires each limit once its time has passed, in any order they were set', () => {
  const deadlines = new BodyDeadlines();
  const fired: string[] = [];
  const start = performance.now();
  deadlines.watch(start + 300, () => fired.push('c'));
  deadlines.watch(start + 100, () => fired.push('a'));
  deadlines.watch(start + 200, () => fired.push('b'));
  vi.advanceTimersByTime(99);
  expect(fired).toEqual([]);
  vi.advanceTimersByTime(1);
  expect(fired).toEqual(['a']);
  vi.advanceTimersByTime(150);
  expect(fired).toEqual(['a', 'b']);
  vi.advanceTimersByTime(50);
  expect(fired).toEqual(['a', 'b', 'c']);
  vi.advanceTimersByTime(10_000);
  expect(fired).toEqual(['a', 'b', 'c']);
  expect(vi.getTimerCount()).toBe(0);
});

it('a cancelled limit never fires, and no timer is left once none is pending', () => {
  const deadlines = new BodyDeadlines();
  const fired: string[] = [];
  const start = performance.now();
  const first = deadlines.watch(start + 100, () => fired.push('first'));
  const second = deadlines.watch(start + 200, () => fired.push('second'));
  const third = deadlines.watch(start + 300, () => fired.push('third'));
  first.cancel();
  vi.advanceTimersByTime(150);
  expect(fired).toEqual([]);
  second.cancel();
  second.cancel();
  expect(vi.getTimerCount()).toBe(1);
  third.cancel();
  expect(vi.getTimerCount()).toBe(0);
  vi.advanceTimersByTime(1_000);
  expect(fired).toEqual([]);
  // Set again after emptying: armed again.
  deadlines.watch(performance.now() + 50, () => fired.push('again'));
  vi.advanceTimersByTime(50);
  expect(fired).toEqual(['again']);
});
