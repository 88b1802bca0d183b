/**
 * Webhook deliveries. The spec says events are "sent by the service as an HTTP POST to the url of
 * each enabled webhook that subscribes to them", each attempt "recorded in last_use_at,
 * last_response_status_code and last_response", "a 2xx response from the target means success".
 * It leaves the payload, the token presentation and retries open; the fake's choices (README,
 * "Where the interface spec is silent"): the envelope of `buildDelivery`, `Authorization: Bearer <auth_token>`, and retries
 * with back-off on the fake's clock.
 * @module
 */
import { buildDelivery, TEST_EVENT } from '../../webhooks/delivery.js';
import type { Reservation } from '../../resources/reservations.schemas.js';
import type { DueWork, FakeClock } from './fake-clock.js';
import type { DeliveryLogEntry, EventType, FakeState, PendingDelivery, WebhookRecord } from './state.js';
import { isPlainObject } from './validation.js';
import { isoSeconds } from './webhooks.js';

/** An in-process receiver for a webhook url (instead of real HTTP). */
export type DeliveryHandler = (request: Request) => Response | Promise<Response>;

/** Sends one delivery over the network. */
export type DeliveryFetch = (request: Request) => Promise<Response>;

/** Delivery settings of the fake. */
export interface DeliveryOptions {
  /**
   * Waits before each retry of a failed delivery, on the fake's clock. Default 1 min, 5 min,
   * 30 min, 2 h: five attempts in all.
   */
  retryDelaysMs?: readonly number[];
  /** Real-time timeout of one HTTP attempt. Default 10 s. */
  timeoutMs?: number;
}

/** Default waits before each retry of a failed delivery: 1 min, 5 min, 30 min, 2 h (five attempts in all). */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = Object.freeze([60_000, 300_000, 1_800_000, 7_200_000]);

/** Most delivery attempts kept in the log (`fake.deliveries`). */
export const MAX_DELIVERY_LOG = 1000;

const normaliseUrl = (url: string): string => (URL.canParse(url) ? new URL(url).href : url);

/** The delivery queue and log of one fake. */
export class Deliveries implements DueWork {
  readonly #handlers = new Map<string, DeliveryHandler>();
  readonly #retryDelaysMs: readonly number[];
  readonly #timeoutMs: number;
  #fetch: DeliveryFetch = (request) => fetch(request);
  readonly #listeners = new Set<(entry: DeliveryLogEntry) => void>();

  constructor(
    private readonly getState: () => FakeState,
    private readonly clock: FakeClock,
    private readonly log: (message: string) => void,
    options: DeliveryOptions = {},
  ) {
    this.#retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** Routes deliveries for `url` to an in-process handler. Returns a function that removes it. */
  registerHandler(url: string, handler: DeliveryHandler): () => void {
    const key = normaliseUrl(url);
    this.#handlers.set(key, handler);
    return () => {
      if (this.#handlers.get(key) === handler) this.#handlers.delete(key);
    };
  }

  /** Replaces the network sender (the MSW adapter sends with `bypass()` so its own server does not catch them). */
  setFetch(sender: DeliveryFetch): void {
    this.#fetch = sender;
  }

  /**
   * The deliveries an event causes, one per enabled webhook of the partner subscribed to it, due
   * now. Queued (`queue: true`) for the clock's next pass, or handed back for the caller to
   * attempt with {@link attemptNow} before it answers.
   */
  enqueue(event: EventType, partnerId: string, restaurantId: number, reservation: Record<string, unknown>, queue = true): PendingDelivery[] {
    const state = this.getState();
    const now = this.clock.now();
    const items: PendingDelivery[] = [];
    for (const webhook of state.webhooks.values()) {
      if (webhook.partnerId !== partnerId || !webhook.is_enabled || !webhook.subscribed_events[event]) continue;
      // One id per event and webhook, kept across retries, so a receiver can drop duplicates.
      const eventId = `evt_${crypto.randomUUID()}`;
      items.push({
        sequence: state.nextDeliverySequence++,
        eventId,
        event,
        webhookId: webhook.id,
        restaurantId,
        reservation,
        createdAt: now,
        attempt: 1,
        dueAt: now,
      });
    }
    if (queue && items.length > 0) {
      state.pendingDeliveries.push(...items);
      this.clock.rearm();
    }
    return items;
  }

  /** Makes the first attempt of these deliveries now (retries then follow on the fake's clock). */
  async attemptNow(items: readonly PendingDelivery[]): Promise<void> {
    const state = this.getState();
    for (const item of items) await this.#attemptAndSchedule(state, item);
  }

  nextDueAt(): number | undefined {
    const pending = this.getState().pendingDeliveries;
    return pending.length === 0 ? undefined : Math.min(...pending.map((item) => item.dueAt));
  }

  async runDue(now: number): Promise<void> {
    const state = this.getState();
    const due = state.pendingDeliveries.filter((item) => item.dueAt <= now).sort((a, b) => a.dueAt - b.dueAt || a.sequence - b.sequence);
    if (due.length === 0) return;
    state.pendingDeliveries = state.pendingDeliveries.filter((item) => !due.includes(item));
    for (const item of due) await this.#attemptAndSchedule(state, item);
  }

  async #attemptAndSchedule(state: FakeState, item: PendingDelivery): Promise<void> {
    const webhook = state.webhooks.get(item.webhookId);
    // "Deletion is permanent; no further deliveries are attempted"; paused webhooks get nothing either.
    if (!webhook || !webhook.is_enabled) return;
    const entry = await this.#attempt(webhook, item);
    const delay = this.#retryDelaysMs[item.attempt - 1];
    if (!entry.ok && delay !== undefined && this.getState() === state) {
      const next: PendingDelivery = { ...item, attempt: item.attempt + 1, dueAt: this.clock.now() + delay };
      entry.nextAttemptAt = new Date(next.dueAt).toISOString();
      state.pendingDeliveries.push(next);
      this.clock.rearm();
    }
  }

  /** Calls `listener` with every logged attempt until the returned function is called. */
  onAttempt(listener: (entry: DeliveryLogEntry) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Sends a `TEST` delivery now (no retries), recording it like a real one. */
  async sendTest(webhook: WebhookRecord): Promise<DeliveryLogEntry> {
    const now = this.clock.now();
    return this.#attempt(webhook, {
      sequence: 0,
      eventId: `evt_${crypto.randomUUID()}`,
      event: TEST_EVENT,
      webhookId: webhook.id,
      restaurantId: null,
      reservation: null,
      createdAt: now,
      attempt: 1,
      dueAt: now,
    });
  }

  async #attempt(webhook: WebhookRecord, item: PendingDelivery): Promise<DeliveryLogEntry> {
    const delivery = buildDelivery(
      {
        id: item.eventId,
        event: item.event,
        restaurantId: item.restaurantId,
        reservation: item.reservation as Reservation | null,
        createdAt: isoSeconds(item.createdAt),
      },
      // The token at the time of the attempt: "the old token stops being valid at regeneration".
      webhook.authToken,
    );
    const attemptedAt = this.clock.now();
    let status: number | null = null;
    let error: string | null = null;
    let response: unknown = null;
    try {
      const request = new Request(webhook.url, { method: 'POST', headers: delivery.headers, body: delivery.body, redirect: 'manual' });
      const handler = this.#handlers.get(normaliseUrl(webhook.url));
      const answer = handler
        ? await handler(request)
        : await this.#fetch(new Request(request, { signal: AbortSignal.timeout(this.#timeoutMs) }));
      status = answer.status;
      const text = await answer.text();
      try {
        response = text === '' ? null : (JSON.parse(text) as unknown);
      } catch {
        response = text;
      }
    } catch (caught) {
      error = caught instanceof Error ? `${caught.name}: ${caught.message}` : String(caught);
    }
    const ok = status !== null && status >= 200 && status < 300;
    // The webhook may have been deleted or the state restored while the attempt was in flight.
    const current = this.getState().webhooks.get(webhook.id);
    if (current) {
      current.lastUseAt = attemptedAt;
      current.lastResponseStatusCode = status;
      current.lastResponse = isPlainObject(response) ? response : null;
    }
    const reservationId = item.reservation && typeof item.reservation.id === 'number' ? item.reservation.id : null;
    const entry: DeliveryLogEntry = {
      eventId: item.eventId,
      event: item.event,
      webhookId: webhook.id,
      url: webhook.url,
      attempt: item.attempt,
      status,
      ok,
      error,
      deliveredAt: new Date(attemptedAt).toISOString(),
      nextAttemptAt: null,
      restaurantId: item.restaurantId,
      reservationId,
      body: delivery.body,
      response,
    };
    const log = this.getState().deliveries;
    log.push(entry);
    // Bounded: the oldest attempts go first once the log is full.
    if (log.length > MAX_DELIVERY_LOG) log.splice(0, log.length - MAX_DELIVERY_LOG);
    for (const listener of this.#listeners) listener(entry);
    this.log(`delivery ${item.event} #${item.attempt} to webhook ${webhook.id} -> ${status ?? error}`);
    return entry;
  }
}
