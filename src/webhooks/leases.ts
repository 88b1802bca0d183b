/**
 * A delivery's hold on the duplicate store while its handlers run: added once they succeed (a
 * store without claims), or claimed first, waiting on another receiver's claim, and renewed while
 * the handlers run (a store with leases).
 * @module
 */
import type { DuplicateClaim, DuplicateStore } from './duplicates.js';
import { WebhookDeliveryInProgressError, type WebhookError } from './errors.js';
import type { WebhookEvent } from './events.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What a delivery holds in the duplicate store while its handlers run. */
export interface Lease {
  complete(): void | Promise<void>;
  release(): void | Promise<void>;
}

/** The lease of a store without claims: the delivery is added once its handlers succeed. */
export class AddLease implements Lease {
  readonly #store: DuplicateStore;
  readonly #key: string;
  constructor(store: DuplicateStore, key: string) {
    this.#store = store;
    this.#key = key;
  }
  complete(): void | Promise<void> {
    return this.#store.add(this.#key);
  }
  release(): void | Promise<void> {
    return this.#store.release?.(this.#key);
  }
}

/**
 * The lease of a store that renews claims: renewed every third of the claim's length while the
 * handlers run, so the claim stays short and a receiver that stops (killed, cut off) holds the
 * delivery only briefly. Ending it stops the renewals and waits for one still on its way, so the
 * store sees the renewal before the completion or release (a renewal landing after a release
 * would take the delivery again).
 */
class RenewedLease implements Lease {
  readonly #claim: DuplicateClaim & { status: 'claimed' };
  readonly #renewClaim: () => Promise<boolean>;
  readonly #onLost: () => void;
  readonly #timer: ReturnType<typeof setInterval>;
  /** The renewal on its way to the store, if any: at most one at a time. */
  #renewing: Promise<void> | undefined;

  constructor(
    claim: DuplicateClaim & { status: 'claimed' },
    renew: () => Promise<boolean>,
    everyMs: number,
    onLost: () => void,
  ) {
    this.#claim = claim;
    this.#renewClaim = renew;
    this.#onLost = onLost;
    this.#timer = setInterval(() => this.#renew(), everyMs);
    // The handlers' own promise and time limit keep the process alive, not the renewals.
    this.#timer.unref?.();
  }

  #renew(): void {
    // One renewal at a time: while the store is slow, the one on its way renews when it lands.
    if (this.#renewing) return;
    this.#renewing = Promise.resolve()
      .then(() => this.#renewClaim.call(this.#claim))
      .then(
        (held) => {
          if (held) return;
          clearInterval(this.#timer);
          this.#onLost();
        },
        // A renewal the store did not answer: the next one tries again while the claim lasts.
        () => undefined,
      )
      .finally(() => (this.#renewing = undefined));
  }

  #end(then: () => Promise<void>): Promise<void> {
    clearInterval(this.#timer);
    return this.#renewing ? this.#renewing.then(then) : then();
  }

  complete(): Promise<void> {
    return this.#end(() => this.#claim.complete());
  }

  release(): Promise<void> {
    return this.#end(() => this.#claim.release());
  }
}

/** Added to a renewed claim's length for the longest wait on another receiver's claim: a poll lands after it ran out. */
const CLAIM_WAIT_MARGIN_MS = 100;

/**
 * Claims the delivery in a store with leases, waiting while another receiver holds it. Answering
 * 200 then would lose the event if that one's handler fails, so the wait is for its outcome, as
 * long as a handler may take; but a renewed claim is held only while a handler runs, and one left
 * behind (its receiver stopped, or gave up on a claim that landed late) runs out within
 * `claimTtlMs`: past that wait, a claim still held is a handler still running, answered 409 within
 * a second rather than holding the delivery.
 */
export async function claimLease(
  store: DuplicateStore,
  key: string,
  event: WebhookEvent,
  handlerTimeoutMs: number,
  log: (level: 'warn', message: string, details: Record<string, unknown>) => void,
): Promise<Lease | 'processed' | WebhookError> {
  const renewed = store.renewsClaims === true;
  const waitMs = renewed
    ? Math.min(store.claimTtlMs! + CLAIM_WAIT_MARGIN_MS, handlerTimeoutMs)
    : handlerTimeoutMs;
  const longestPauseMs = renewed ? CLAIM_WAIT_MARGIN_MS : 1000;
  let waitUntil: number | undefined;
  for (let pauseMs = 25; ; pauseMs = Math.min(pauseMs * 2, longestPauseMs)) {
    const claim: DuplicateClaim = await store.claim!(key);
    if (claim.status === 'claimed') {
      if (!renewed || !claim.renew) return claim;
      // Bound: a partner's store may be a class whose renew() reads `this`.
      return new RenewedLease(claim, claim.renew.bind(claim), store.claimTtlMs! / 3, () =>
        log(
          'warn',
          'The claim on a webhook delivery ran out while its handler ran; another receiver may run it too',
          {
            deliveryId: event.id,
            event: event.event,
          },
        ),
      );
    }
    if (claim.status === 'processed') return 'processed';
    // Counted from the first answer: a claim that took long to answer has not been waited on.
    const now = Date.now();
    waitUntil ??= now + waitMs;
    if (now >= waitUntil) return new WebhookDeliveryInProgressError(event.id);
    await sleep(Math.min(pauseMs, waitUntil - now));
  }
}
