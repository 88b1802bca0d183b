/**
 * `GET /_fake/deliveries/changes`: what the delivery log gained since a mark, waiting on the
 * server for it when nothing is new yet (a long poll). A suite waiting for a delivery over HTTP
 * then reads each attempt once, instead of the whole log again and again.
 * @module
 */
import { realClearTimeout, realSetTimeout } from '../backend/fake-clock.js';
import type { DeliveryChanges } from '../backend/delivery-cursor.js';
import { json } from '../http.js';
import type { ControlCall } from './call.js';

/** The longest a look at the log waits for a new attempt (`waitMs`). */
export const MAX_DELIVERY_WAIT_MS = 30_000;

function look(call: ControlCall, event: string | null): DeliveryChanges {
  const { backend } = call;
  const state = backend.state;
  const after = backend.deliveries.cursor.since(state, call.url.searchParams.get('after'));
  return {
    mark: backend.deliveries.cursor.mark(state),
    deliveries: event === null ? after : after.filter((entry) => entry.event === event),
  };
}

/** Resolves when an attempt (of `event`, when given) is logged, after `waitMs`, or when the caller or the world goes. */
function nextAttempt(call: ControlCall, event: string | null, waitMs: number): Promise<void> {
  return new Promise((resolve) => {
    const signals = [call.request.signal, call.backend.signal];
    const done = () => {
      stop();
      realClearTimeout(timer);
      for (const signal of signals) signal.removeEventListener('abort', done);
      resolve();
    };
    const stop = call.backend.deliveries.onAttempt((entry) => {
      if (event === null || entry.event === event) done();
    });
    const timer = realSetTimeout(done, waitMs);
    for (const signal of signals) signal.addEventListener('abort', done, { once: true });
  });
}

export async function deliveryChanges(call: ControlCall): Promise<Response> {
  const query = call.url.searchParams;
  const event = query.get('event');
  const waitText = query.get('waitMs');
  const fields: Record<string, string[]> = {};
  if (event !== null && !/^[A-Z_]{1,64}$/.test(event))
    fields.event = ['Expected an event name such as RESERVATION_CANCELLED or TEST.'];
  if (waitText !== null && (!/^\d{1,7}$/.test(waitText) || Number(waitText) > MAX_DELIVERY_WAIT_MS))
    fields.waitMs = [`Expected an integer from 0 to ${MAX_DELIVERY_WAIT_MS}.`];
  if (Object.keys(fields).length > 0) return json(400, { detail: 'Invalid input.', ...fields });
  const waitMs = Number(waitText ?? 0);
  let answer = look(call, event);
  if (answer.deliveries.length === 0 && waitMs > 0 && !call.request.signal.aborted) {
    await nextAttempt(call, event, waitMs);
    answer = look(call, event);
  }
  return json(200, answer);
}
