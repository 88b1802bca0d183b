/**
 * Waiting for a webhook delivery (`fake.waitForDelivery`), and the refusal both the in-process and
 * the remote fake give when none comes: apart from the class because the remote fake shares it.
 * @module
 */
import type { FakeBackend } from './backend/backend.js';
import { FakeError } from './backend/fake-error.js';
import type { DeliveryLogEntry, WebhookEventType } from './backend/state.js';
import type { TEST_EVENT } from '../resources/event-names.js';

/** Options of {@link FakeService.waitForDelivery}. */
export interface WaitForDeliveryOptions {
  /** Real-time limit (default 5000 ms): deliveries go over real HTTP or to in-process handlers. */
  timeoutMs?: number;
}

/** `waitForDelivery`'s refusal (in-process and over HTTP): what was delivered meanwhile, and the likely cause. */
export function noDeliveryWithin(
  event: string,
  timeoutMs: number,
  log: readonly DeliveryLogEntry[],
): FakeError {
  const seen = log.map((entry) => `${entry.event}#${entry.attempt} -> ${entry.status ?? entry.error}`);
  return new FakeError(
    408,
    `No ${event} delivery was answered within ${timeoutMs} ms (attempts logged: ${seen.length === 0 ? 'none' : seen.join(', ')}). Is a webhook subscribed to ${event} and enabled?`,
    { code: 'timeout' },
  );
}

/**
 * The first answered attempt of `event` in `backend`'s log that `claimed` does not hold yet, waiting
 * for one; `claimed` is the fake's own set, so two waits never return the same attempt.
 */
export function waitForDeliveryIn(
  backend: FakeBackend,
  claimed: WeakSet<object>,
  event: WebhookEventType | typeof TEST_EVENT,
  options: WaitForDeliveryOptions,
): Promise<DeliveryLogEntry> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const matches = (entry: DeliveryLogEntry) => entry.event === event && entry.status !== null;
  const found = backend.state.deliveries.find((entry) => matches(entry) && !claimed.has(entry));
  if (found) {
    claimed.add(found);
    return Promise.resolve(structuredClone(found));
  }
  return new Promise((resolve, reject) => {
    const stop = backend.deliveries.onAttempt((entry) => {
      if (!matches(entry) || claimed.has(entry)) return;
      claimed.add(entry);
      clearTimeout(timer);
      stop();
      resolve(structuredClone(entry));
    });
    const timer = setTimeout(() => {
      stop();
      reject(noDeliveryWithin(event, timeoutMs, backend.state.deliveries));
    }, timeoutMs);
  });
}
