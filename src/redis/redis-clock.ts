/**
 * How one process's clock reads the Redis server's, for the shared budget (`shared-budget.ts`).
 * It stands apart because it is one measurement with its own rule (keep the smallest offset seen),
 * used by every ask the budget makes, and it knows nothing of slots or queues.
 * @module
 */

/**
 * A host's clock may be off by seconds, and the limiter sends at slots timed by Redis. Each
 * answer tells Redis's time when it ran; the answer reaches this process some time later (more
 * on a busy host, where it can be tens of milliseconds). The smallest difference seen, local
 * arrival minus Redis time, is the offset plus the shortest trip back: reading Redis times
 * through it puts a slot no earlier than it is, and later by that shortest trip only (well under
 * a millisecond on a quiet host). A slot read early would bring a request closer to the one
 * before it than the service allows.
 */
export class RedisClock {
  #offset = 0;
  #measuredAt = Number.NEGATIVE_INFINITY;
  known = false;

  observe(redisNow: number, receivedAt: number): void {
    const offset = receivedAt - redisNow;
    // A smaller one replaces it, or any one once it is a minute old (the host's clock may be set).
    if (this.known && offset > this.#offset && receivedAt - this.#measuredAt < 60_000) return;
    this.#offset = offset;
    this.#measuredAt = receivedAt;
    this.known = true;
  }

  toLocal(redisTime: number): number {
    return redisTime + this.#offset;
  }

  toRedis(localTime: number): number {
    return localTime - this.#offset;
  }

  /**
   * A command's deadline on Redis's clock, for a command sent at `sentAt` that its caller gives up
   * on after `timeoutMs` (a little before, so Redis never runs one its caller gave up on); '' while
   * the offset is unknown.
   */
  deadline(sentAt: number, timeoutMs: number): string {
    return this.known ? (this.toRedis(sentAt) + timeoutMs - 10).toFixed(3) : '';
  }
}
