/**
 * One delivery attempt on the wire: the POST and its answer within the time limit, and the log
 * entry it becomes. Apart from the queue (`deliveries.ts`), which decides when attempts happen and
 * what they leave in the state; this file only sends and reads.
 *
 * Every attempt ends within its time limit on a timer this module holds and clears (a timeout
 * signal on a copied `Request` is lost to garbage collection in Node: nodejs/undici#4068), and
 * reads at most {@link MAX_DELIVERY_RESPONSE_BYTES} of the answer.
 * @module
 */
import type { Reservation } from '../../resources/reservations.schemas.js';
import { buildDelivery } from '../../webhooks/delivery.js';
import { MAX_READ_JSON_DEPTH, nestsDeeperThan } from '../../transport/json-depth.js';
import { realClearTimeout, realSetTimeout } from './fake-clock.js';
import { readCapped } from './read-capped.js';
import { isoSeconds } from './webhooks.js';
import type { DeliveryLogEntry, FakeState, PendingDelivery, WebhookRecord } from './state.js';

/** Most bytes of a webhook target's answer read and kept; the rest is never read. */
export const MAX_DELIVERY_RESPONSE_BYTES = 8192;

/** An in-process receiver for a webhook url (instead of real HTTP). */
export type DeliveryHandler = (request: Request) => Response | Promise<Response>;

/**
 * Sends one delivery over the network. `signal` ends the attempt: pass it to `fetch` itself
 * (`fetch(request, { signal })`), never on a copy of the request, which loses it.
 */
export type DeliveryFetch = (request: Request, signal: AbortSignal) => Promise<Response>;

/** The key of an in-process handler: the url as `URL` writes it. */
export const normaliseUrl = (url: string): string => (URL.canParse(url) ? new URL(url).href : url);

/** An exchange made, waiting to be recorded. */
export interface SentAttempt {
  webhook: WebhookRecord;
  item: PendingDelivery;
  attemptedAt: number;
  /** The state it was sent from: a reset or restore since makes it void. */
  state: FakeState;
  outcome: AttemptOutcome;
  body: string;
}

/** What one attempt came back with. */
export interface AttemptOutcome {
  status: number | null;
  error: string | null;
  response: unknown;
  truncated: boolean;
}

/** How one exchange goes out: the time limit, the set of attempts in flight, and the handler or sender. */
export interface ExchangeVia {
  timeoutMs: number;
  /** The queue's attempts in flight: the exchange is in it while it runs. */
  inFlight: Set<AbortController>;
  /** The in-process handler registered for the url, if any (instead of `fetch`). */
  handler: DeliveryHandler | undefined;
  fetch: DeliveryFetch;
}

/**
 * Sends one POST and reads the answer, all within the time limit: a timer held here aborts the
 * exchange and settles the attempt even when a sender or handler ignores the signal.
 */
export async function exchange(
  url: string,
  headers: Record<string, string>,
  body: string,
  via: ExchangeVia,
): Promise<AttemptOutcome> {
  const controller = new AbortController();
  via.inFlight.add(controller);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = realSetTimeout(() => {
      const reason = new DOMException(`no complete answer within ${via.timeoutMs} ms`, 'TimeoutError');
      controller.abort(reason);
      reject(reason);
    }, via.timeoutMs);
  });
  let status: number | null = null;
  const exchange = (async (): Promise<AttemptOutcome> => {
    const request = new Request(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: controller.signal,
    });
    const handler = via.handler;
    const answer = handler ? await handler(request) : await via.fetch(request, controller.signal);
    status = answer.status;
    const { text, truncated } = await readCapped(answer, MAX_DELIVERY_RESPONSE_BYTES);
    let response: unknown = text === '' ? null : text;
    // An answer nested past the SDK's bound is kept as text: the webhook's `last_response`
    // must stay readable by the client (which refuses such JSON).
    if (!truncated && text !== '' && !nestsDeeperThan(text, MAX_READ_JSON_DEPTH)) {
      try {
        response = JSON.parse(text) as unknown;
      } catch {
        response = text;
      }
    }
    return { status, error: null, response, truncated };
  })();
  try {
    return await Promise.race([exchange, timedOut]);
  } catch (caught) {
    const error =
      caught instanceof Error || caught instanceof DOMException
        ? `${caught.name}: ${caught.message}`
        : String(caught);
    // Headers may have come before the body failed or timed out: the status is kept, the attempt failed.
    return { status, error, response: null, truncated: false };
  } finally {
    realClearTimeout(timer);
    // Whatever happened, nothing of this attempt goes on: no socket read, no timer left.
    controller.abort(new Error('the delivery attempt ended'));
    via.inFlight.delete(controller);
    exchange.catch(() => undefined);
    timedOut.catch(() => undefined);
  }
}

/** The log entry one attempt becomes (`fake.deliveries`). */
export function logEntry(
  webhook: WebhookRecord,
  item: PendingDelivery,
  attemptedAt: number,
  outcome: AttemptOutcome,
  body?: string,
): DeliveryLogEntry {
  const reservationId =
    item.reservation && typeof item.reservation.id === 'number' ? item.reservation.id : null;
  const status = outcome.status;
  return {
    eventId: item.eventId,
    event: item.event,
    webhookId: webhook.id,
    url: webhook.url,
    attempt: item.attempt,
    status,
    ok: status !== null && status >= 200 && status < 300 && outcome.error === null,
    error: outcome.error,
    deliveredAt: new Date(attemptedAt).toISOString(),
    nextAttemptAt: null,
    restaurantId: item.restaurantId,
    reservationId,
    body: body ?? '',
    response: outcome.response,
    responseTruncated: outcome.truncated,
    duplicate: item.duplicate === true,
  };
}

/** The delivery as it goes out now: its body, and the webhook's token at the time of the attempt. */
export function deliveryOf(webhook: WebhookRecord, item: PendingDelivery): ReturnType<typeof buildDelivery> {
  return buildDelivery(
    {
      id: item.eventId,
      event: item.event,
      restaurantId: item.restaurantId,
      reservation: item.reservation as Reservation | null,
      createdAt: isoSeconds(item.createdAt),
      webhookId: webhook.id,
    },
    // "The old token stops being valid at regeneration".
    webhook.authToken,
  );
}
