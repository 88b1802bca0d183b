/**
 * The receiver's side of a duplicate store whose claims are short and renewed
 * (`renewsClaims`): renewals while the handler runs, on the fake clock.
 */
import { expect, it, vi } from 'vitest';
import {
  buildDeliveryRequest,
  createWebhookReceiver,
  type DuplicateStore,
} from 'restaurant-partner-sdk/webhooks';
import { captureLogger, TOKEN } from './helpers.js';
import { reservation } from '../support/reservation.js';

/** A promise and the function that resolves it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

const deliver = (receiver: { handle(request: Request): Promise<Response> }, id: string) =>
  receiver.handle(
    buildDeliveryRequest(
      'http://partner.test/webhooks',
      { event: 'RESERVATION_CONFIRMED', reservation: reservation({ id: 7 }), id },
      TOKEN,
    ),
  );

it("renews a store's short claim every third of claimTtlMs while the handler runs and never after; one that ran out is logged and no longer renewed", async () => {
  vi.useFakeTimers();
  try {
    const calls: string[] = [];
    let stillHeld = true;
    // The delivery's key (a digest of the token) is computed off the event loop, in real time:
    // the fake clock moves only once the claim is made.
    let claimed = deferred();
    const renewingStore: DuplicateStore = {
      has: () => false,
      add: () => {},
      claimTtlMs: 300,
      renewsClaims: true,
      claim: async () => (
        claimed.resolve(),
        {
          status: 'claimed',
          renew: async () => (calls.push('renew'), stillHeld),
          complete: async () => void calls.push('complete'),
          release: async () => void calls.push('release'),
        }
      ),
    };
    const logger = captureLogger();
    // A claim far shorter than the handler time limit is accepted: it is renewed.
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger, duplicateStore: renewingStore });
    receiver.on('*', () => new Promise<void>((resolve) => setTimeout(resolve, 950)));
    const answer = deliver(receiver, 'evt_renewed');
    await claimed.promise;
    await vi.advanceTimersByTimeAsync(2_000);
    expect((await answer).status).toBe(200);
    // At 100, 200, ... 900 ms; then the completion, and nothing more.
    expect(calls).toEqual([...Array<string>(9).fill('renew'), 'complete']);
    const warnings = () => logger.lines.filter((line) => line.level !== 'debug');
    expect(warnings()).toEqual([]);

    calls.length = 0;
    stillHeld = false;
    claimed = deferred();
    const lost = deliver(receiver, 'evt_ran_out');
    await claimed.promise;
    await vi.advanceTimersByTimeAsync(2_000);
    expect((await lost).status).toBe(200);
    expect(calls).toEqual(['renew', 'complete']);
    expect(warnings()).toMatchObject([
      {
        level: 'warn',
        message: expect.stringMatching(/ran out while its handler ran/),
        details: { deliveryId: 'evt_ran_out' },
      },
    ]);
  } finally {
    vi.useRealTimers();
  }
});
