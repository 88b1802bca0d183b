/**
 * A clock for a reservation sync under test (and in the bench): it reads the fake's time, and its
 * sleeps end only when `advance` moves the fake's clock past them, each at its own time, letting
 * the work it starts run before going on. The schedule is then proven step by step on the fake's
 * clock, instead of racing ahead as it would on the fake's own sleeps (each of which moves time).
 * Plain JavaScript so the bench, which runs the built package, uses the same clock.
 */

/** @param {{ clock: { now(): number; set(at: number): Promise<void> }; requests: unknown[]; deliveries: unknown[] }} fake */
export function followerClock(fake) {
  const sleepers = new Set();
  const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
  // Lets started work run until nothing moves: the time, the sleepers, the requests, the deliveries.
  const quiet = async () => {
    let stable = 0;
    let last = '';
    for (let round = 0; round < 500 && stable < 4; round++) {
      await tick();
      const now = `${fake.clock.now()} ${sleepers.size} ${fake.requests.length} ${fake.deliveries.length}`;
      stable = now === last ? stable + 1 : 0;
      last = now;
    }
  };
  return {
    now: () => fake.clock.now(),
    sleep(ms, signal) {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const sleeper = { at: fake.clock.now() + Math.max(0, ms), resolve };
        sleepers.add(sleeper);
        signal?.addEventListener(
          'abort',
          () => {
            sleepers.delete(sleeper);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    },
    async advance(ms) {
      const target = fake.clock.now() + ms;
      await quiet();
      for (;;) {
        const due = [...sleepers].filter((sleeper) => sleeper.at <= target).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        if (due.at > fake.clock.now()) await fake.clock.set(due.at);
        sleepers.delete(due);
        due.resolve();
        await quiet();
      }
      if (target > fake.clock.now()) await fake.clock.set(target);
      await quiet();
    },
    quiet,
    get pendingSleeps() {
      return sleepers.size;
    },
  };
}
