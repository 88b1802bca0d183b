import { describe, expect, it } from 'vitest';
import { realWaitsDuring } from './real-waits.js';

describe('realWaitsDuring (the "never sleeps" check used by the fake-clock tests)', () => {
  it('reports a real timer that fired, and ignores one that was cleared', async () => {
    const { waits } = await realWaitsDuring(async () => {
      clearTimeout(setTimeout(() => undefined, 30_000)); // a per-attempt timeout that never fires
      await new Promise((resolve) => setTimeout(resolve, 60)); // a real wait
    });
    expect(waits).toEqual([60]);
  });
});
