/**
 * The body time limits of one receiver's deliveries on one timer, instead of a timer per
 * delivery: under load a timer armed and cleared for every delivery costs more than the rest of
 * its bookkeeping, while a limit almost never fires.
 * @module
 */

/** One delivery's limit; `cancel()` once its body has arrived (or it was answered otherwise). */
export interface BodyDeadline {
  cancel(): void;
}

class Watch implements BodyDeadline {
  /** Neighbours in the owner's list of pending limits (an intrusive list: no hashing, no array). */
  previous: Watch | undefined;
  next: Watch | undefined;
  pending = true;

  constructor(
    readonly at: number,
    readonly onExpired: () => void,
    readonly owner: BodyDeadlines,
  ) {}

  cancel(): void {
    this.owner.forget(this);
  }
}

/**
 * Pending limits, checked by one timer armed for the earliest of them. A limit that ends is
 * unlinked at once (nothing is kept for a delivery that was answered), and the timer is cleared
 * when none is pending, so nothing outlives the deliveries it watches. Times come from
 * `performance.now()`, which no clock adjustment moves.
 */
export class BodyDeadlines {
  // Oldest first. Deliveries mostly arrive in deadline order, but a token provider answering late
  // may reorder them, so the timer always aims at the smallest deadline.
  #first: Watch | undefined;
  #last: Watch | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Number.POSITIVE_INFINITY;

  /** Calls `onExpired` once `at` (a `performance.now()` time) has passed, unless cancelled first. */
  watch(at: number, onExpired: () => void): BodyDeadline {
    const watch = new Watch(at, onExpired, this);
    watch.previous = this.#last;
    if (this.#last) this.#last.next = watch;
    else this.#first = watch;
    this.#last = watch;
    if (at < this.#timerAt) this.#arm(at);
    return watch;
  }

  /** @internal Drops a limit (its `cancel()`). */
  forget(watch: Watch): void {
    if (!watch.pending) return;
    this.#unlink(watch);
    if (this.#first !== undefined || this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
  }

  #unlink(watch: Watch): void {
    watch.pending = false;
    if (watch.previous) watch.previous.next = watch.next;
    else this.#first = watch.next;
    if (watch.next) watch.next.previous = watch.previous;
    else this.#last = watch.previous;
    watch.previous = watch.next = undefined;
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, Math.ceil(at - performance.now())));
    // The socket of a delivery still being read keeps the process alive; this timer need not.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #expire(): void {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    const expired: Watch[] = [];
    for (let watch = this.#first; watch; watch = watch.next) {
      if (watch.at <= now) expired.push(watch);
      else if (watch.at < next) next = watch.at;
    }
    for (const watch of expired) this.#unlink(watch);
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
    for (const watch of expired) watch.onExpired();
  }
}
