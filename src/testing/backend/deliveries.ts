/**
 * Webhook deliveries. The spec says events are "sent by the service as an HTTP POST to the url of
 * each enabled webhook that subscribes to them", each attempt "recorded in last_use_at,
 * last_response_status_code and last_response", "a 2xx response from the target means success".
 * It leaves the payload, the token presentation and retries open; the fake's choices (README,
 * "Where the interface spec is silent"): the envelope of `buildDelivery`, `Authorization: Bearer <auth_token>`, and retries
 * with back-off on the fake's clock.
 * Attempts to several webhooks run at once, so no call waits for more than one time limit.
 * @module
 */
import { TEST_EVENT } from '../../webhooks/delivery.js';
import { DeliveryChaos, parseDeliveryChaos, type DeliveryChaosSettings } from './chaos.js';
import { DeliveryBytes } from './delivery-bytes.js';
import { DeliveryCursor } from './delivery-cursor.js';
import type { DueWork, FakeClock } from './fake-clock.js';
import type {
  DeliveryLogEntry,
  WebhookEventType,
  FakeState,
  PendingDelivery,
  WebhookRecord,
} from './state.js';
import { isPlainObject } from './validation.js';
import {
  deliveryOf,
  exchange,
  logEntry,
  normaliseUrl,
  type DeliveryFetch,
  type DeliveryHandler,
  type SentAttempt,
} from './delivery-exchange.js';

export {
  MAX_DELIVERY_RESPONSE_BYTES,
  type DeliveryFetch,
  type DeliveryHandler,
} from './delivery-exchange.js';

/** Delivery settings of the fake. */
export interface DeliveryOptions {
  /**
   * Waits before each retry of a failed delivery, on the fake's clock. Default 1 min, 5 min,
   * 30 min, 2 h: five attempts in all.
   */
  retryDelaysMs?: readonly number[];
  /** Real-time limit of one attempt, from sending to the end of the answer's body. Default 10 s. */
  timeoutMs?: number;
}

/** Default waits before each retry of a failed delivery: 1 min, 5 min, 30 min, 2 h (five attempts in all). */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = Object.freeze([
  60_000, 300_000, 1_800_000, 7_200_000,
]);

/** Most delivery attempts kept in the log (`fake.deliveries`). */
export const MAX_DELIVERY_LOG = 1000;
/** Most deliveries waiting for an attempt (delayed by chaos or waiting for a retry); beyond, new ones are dropped and logged. */
export const MAX_PENDING_DELIVERIES = 10_000;

/** How much of its world's memory the deliveries may take. */
export interface DeliveryRoom {
  /** false once the world holds its limit of bytes: new deliveries waiting for an attempt are dropped (logged). */
  hasRoom(): boolean;
  /** Bytes the log keeps at most (oldest attempts dropped first). */
  logBytes: number;
}

/** The delivery queue and log of one fake. */
export class Deliveries implements DueWork {
  readonly #handlers = new Map<string, DeliveryHandler>();
  readonly #retryDelaysMs: readonly number[];
  readonly #timeoutMs: number;
  #fetch: DeliveryFetch = (request, signal) => fetch(request, { signal });
  readonly #listeners = new Set<(entry: DeliveryLogEntry) => void>();
  #chaos: DeliveryChaos | undefined;
  /** Attempts in flight, ended at once when the world is sealed. */
  readonly #inFlight = new Set<AbortController>();
  #sealed = false;
  /** Marks in the log, for readers that want only what is new. */
  readonly cursor = new DeliveryCursor();
  /** What the queue, the log and the webhooks' last answers hold, in estimated bytes. */
  readonly #bytes = new DeliveryBytes();

  constructor(
    private readonly getState: () => FakeState,
    private readonly clock: FakeClock,
    private readonly log: (message: string) => void,
    options: DeliveryOptions = {},
    private readonly room: DeliveryRoom = { hasRoom: () => true, logBytes: Number.POSITIVE_INFINITY },
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

  /** The delivery chaos in force, or null. */
  get chaos(): DeliveryChaosSettings | null {
    return this.#chaos ? { ...this.#chaos.settings } : null;
  }

  /**
   * Turns delivery chaos on (draws start afresh from the seed) or off (`null`), checking the
   * settings first (a 400 naming each bad field); answers the settings in force.
   */
  setChaos(input: unknown): DeliveryChaosSettings | null {
    this.#chaos = input === null ? undefined : new DeliveryChaos(parseDeliveryChaos(input));
    return this.chaos;
  }

  /**
   * The deliveries an event causes, one per enabled webhook of the partner subscribed to it (and
   * what chaos makes of them). Those due now are queued (`queue: true`) for the clock's next
   * pass, or handed back for the caller to attempt with {@link attemptNow} before it answers;
   * those chaos delays wait on the clock.
   */
  enqueue(
    event: WebhookEventType,
    partnerId: string,
    restaurantId: number,
    reservation: Record<string, unknown>,
    queue = true,
  ): PendingDelivery[] {
    if (this.#sealed) return [];
    const state = this.getState();
    const now = this.clock.now();
    const dueNow: PendingDelivery[] = [];
    for (const webhook of state.webhooks.values()) {
      if (webhook.partnerId !== partnerId || !webhook.is_enabled || !webhook.subscribed_events[event])
        continue;
      // One id per event and webhook, kept across retries, so a receiver can drop duplicates.
      const item = this.#pending(state, {
        eventId: `evt_${crypto.randomUUID()}`,
        event,
        webhookId: webhook.id,
        restaurantId,
        reservation,
        createdAt: now,
      });
      for (const delivery of this.#applyChaos(state, webhook, item)) {
        if (delivery.dueAt <= now && !queue) dueNow.push(delivery);
        else this.#schedule(state, delivery);
      }
    }
    return dueNow;
  }

  /** A new delivery, first attempt, due when it was made. */
  #pending(
    state: FakeState,
    fields: Omit<PendingDelivery, 'sequence' | 'attempt' | 'dueAt'>,
  ): PendingDelivery {
    return { sequence: state.nextDeliverySequence++, ...fields, attempt: 1, dueAt: fields.createdAt };
  }

  /** The deliveries chaos makes of one: none (dropped, and logged as such), itself (maybe late), or itself and a duplicate. */
  #applyChaos(state: FakeState, webhook: WebhookRecord, item: PendingDelivery): PendingDelivery[] {
    if (!this.#chaos) return [item];
    const made = this.#chaos.apply(item, () => state.nextDeliverySequence++);
    if (made.length === 0) {
      const error = 'dropped by delivery chaos: never sent, never retried';
      const outcome = { status: null, error, response: null, truncated: false };
      // The body it would have carried, so `resend` can send it after all.
      this.#record(logEntry(webhook, item, item.createdAt, outcome, deliveryOf(webhook, item).body));
    }
    return made;
  }

  /** Estimated bytes the deliveries waiting for an attempt and the log hold (asked before every write). */
  heldBytes(): number {
    return this.#bytes.held(this.getState());
  }

  /** Queues a delivery on the fake's clock; a full queue, or a world out of memory, drops it (logged). */
  #schedule(state: FakeState, item: PendingDelivery): void {
    const full = state.pendingDeliveries.length >= MAX_PENDING_DELIVERIES;
    if (full || !this.room.hasRoom()) {
      const webhook = state.webhooks.get(item.webhookId);
      if (webhook) {
        const error = full
          ? `dropped: ${MAX_PENDING_DELIVERIES} deliveries already wait for an attempt (the fake's limit)`
          : 'dropped: the fake holds its limit of bytes (memoryLimits), so no delivery waits for a later attempt';
        this.#record(
          logEntry(webhook, item, this.clock.now(), {
            status: null,
            error,
            response: null,
            truncated: false,
          }),
        );
      }
      return;
    }
    state.pendingDeliveries.push(item);
    this.clock.rearm();
  }

  /**
   * Makes the first attempt of these deliveries now, all at once (retries then follow on the
   * fake's clock): the caller waits one time limit at most, a duplicate made by chaos included.
   */
  async attemptNow(items: readonly PendingDelivery[]): Promise<void> {
    await this.#attemptAll(this.getState(), items);
  }

  nextDueAt(): number | undefined {
    let earliest: number | undefined;
    for (const item of this.getState().pendingDeliveries)
      if (earliest === undefined || item.dueAt < earliest) earliest = item.dueAt;
    return earliest;
  }

  async runDue(now: number): Promise<void> {
    const state = this.getState();
    const due: PendingDelivery[] = [];
    const waiting: PendingDelivery[] = [];
    for (const item of state.pendingDeliveries) (item.dueAt <= now ? due : waiting).push(item);
    if (due.length === 0) return;
    state.pendingDeliveries = waiting;
    due.sort((a, b) => a.dueAt - b.dueAt || a.sequence - b.sequence);
    await this.#attemptAll(state, due);
  }

  /**
   * Attempts every delivery given at once, so a pass waits one time limit at most however many
   * are due to a webhook that never answers (one after another, eight of them took eight time
   * limits, and a second clock move queued behind). Each request is sent in the order given (due
   * time, then emission), so a receiver reading them as they come sees that order; one that
   * answers them in parallel may finish them in any order, as with a real service.
   */
  async #attemptAll(state: FakeState, items: readonly PendingDelivery[]): Promise<void> {
    const sent = items.map((item) => this.#send(state, item));
    // Logged and retried in the order sent, not the order answered: on a frozen clock a seeded
    // run logs the same sequence every time, however its receivers' answers race.
    for (const attempt of sent) this.#settleAndSchedule(state, await attempt);
  }

  /** Sends one delivery, unless its webhook is gone or paused ("Deletion is permanent; no further deliveries are attempted"). */
  #send(state: FakeState, item: PendingDelivery): Promise<SentAttempt | undefined> {
    const webhook = state.webhooks.get(item.webhookId);
    if (this.#sealed || !webhook || !webhook.is_enabled) return Promise.resolve(undefined);
    return this.#sendTo(webhook, item);
  }

  #settleAndSchedule(state: FakeState, attempt: SentAttempt | undefined): void {
    if (!attempt) return;
    const { item } = attempt;
    const entry = this.#settle(attempt);
    // A test delivery is sent once, never retried.
    const delay = item.event === TEST_EVENT ? undefined : this.#retryDelaysMs[item.attempt - 1];
    if (entry && !entry.ok && delay !== undefined && this.getState() === state) {
      const next: PendingDelivery = { ...item, attempt: item.attempt + 1, dueAt: this.clock.now() + delay };
      entry.nextAttemptAt = new Date(next.dueAt).toISOString();
      this.#schedule(state, next);
    }
  }

  /** Calls `listener` with every logged attempt until the returned function is called. */
  onAttempt(listener: (entry: DeliveryLogEntry) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Sends a `TEST` delivery (no retries), recording it like a real one. Chaos applies: it may be
   * dropped, duplicated or delayed (a delayed one goes out on the fake's clock, after this resolves).
   */
  async sendTest(webhook: WebhookRecord): Promise<void> {
    if (this.#sealed) return;
    const state = this.getState();
    const item = this.#pending(state, {
      eventId: `evt_${crypto.randomUUID()}`,
      event: TEST_EVENT,
      webhookId: webhook.id,
      restaurantId: null,
      reservation: null,
      createdAt: this.clock.now(),
    });
    const now: PendingDelivery[] = [];
    for (const delivery of this.#applyChaos(state, webhook, item)) {
      if (delivery.dueAt <= item.createdAt) now.push(delivery);
      else this.#schedule(state, delivery);
    }
    // A duplicate made by chaos goes out beside the original: the caller waits one time limit at most.
    const sent = now.map((delivery) => this.#sendTo(webhook, delivery));
    for (const attempt of sent) this.#settle(await attempt);
  }

  /**
   * Sends a logged delivery again, now, to its webhook (its current token and URL, the same event
   * id and body content), outside chaos and without retries: one more attempt, logged and answered.
   * Undefined when the log no longer holds the event, or its webhook is gone or paused.
   */
  async resend(eventId: string): Promise<DeliveryLogEntry | undefined> {
    const state = this.getState();
    const logged = state.deliveries.filter((entry) => entry.eventId === eventId);
    const last = logged.at(-1);
    const webhook = last && state.webhooks.get(last.webhookId);
    if (this.#sealed || !last || !webhook || !webhook.is_enabled) return undefined;
    // A delivery dropped because the queue was full has no body logged: it goes without its reservation.
    const sent = (last.body ? JSON.parse(last.body) : {}) as {
      created_at?: string;
      reservation?: Record<string, unknown> | null;
    };
    const item: PendingDelivery = {
      ...this.#pending(state, {
        eventId,
        event: last.event,
        webhookId: webhook.id,
        restaurantId: last.restaurantId,
        reservation: sent.reservation ?? null,
        createdAt: sent.created_at ? Date.parse(sent.created_at) : this.clock.now(),
      }),
      attempt: Math.max(...logged.map((entry) => entry.attempt)) + 1,
    };
    return this.#settle(await this.#sendTo(webhook, item));
  }

  /** Ends every attempt in flight and sends nothing more: the world is being deleted. */
  seal(): void {
    this.#sealed = true;
    this.abortInFlight('the fake was disposed');
    this.getState().pendingDeliveries = [];
  }

  /**
   * Ends every attempt in flight (the state they belong to is being replaced by a reset or a
   * restore): none is logged, none retried, and none writes `last_response` into the new state.
   */
  abortInFlight(reason: string): void {
    for (const controller of this.#inFlight) controller.abort(new Error(reason));
    this.#inFlight.clear();
  }

  /** One exchange, within the time limit (recorded by {@link #settle}). */
  async #sendTo(webhook: WebhookRecord, item: PendingDelivery): Promise<SentAttempt> {
    const delivery = deliveryOf(webhook, item);
    const attemptedAt = this.clock.now();
    const state = this.getState();
    const outcome = await exchange(webhook.url, delivery.headers, delivery.body, {
      timeoutMs: this.#timeoutMs,
      inFlight: this.#inFlight,
      handler: this.#handlers.get(normaliseUrl(webhook.url)),
      fetch: this.#fetch,
    });
    return { webhook, item, attemptedAt, state, outcome, body: delivery.body };
  }

  /** Records an attempt; undefined (nothing recorded) when its world was sealed, reset or restored meanwhile. */
  #settle(attempt: SentAttempt | undefined): DeliveryLogEntry | undefined {
    if (!attempt) return undefined;
    const { webhook, item, attemptedAt, state, outcome, body } = attempt;
    // The attempt belonged to a world that is gone, and a webhook of the new state may carry the same id.
    if (this.#sealed || this.getState() !== state) return undefined;
    // The webhook may have been deleted while the attempt was in flight.
    const current = state.webhooks.get(webhook.id);
    if (current) {
      current.lastUseAt = attemptedAt;
      current.lastResponseStatusCode = outcome.status;
      current.lastResponse = isPlainObject(outcome.response) ? outcome.response : null;
      this.#bytes.countLastResponse(state, current.id, current.lastResponse);
    }
    const entry = logEntry(webhook, item, attemptedAt, outcome, body);
    this.#record(entry);
    this.log(
      `delivery ${item.event} #${item.attempt} to webhook ${webhook.id} -> ${outcome.status ?? outcome.error}`,
    );
    return entry;
  }

  #record(entry: DeliveryLogEntry): void {
    const state = this.getState();
    // Counted before the push: a state's first count starts from the entries it already holds.
    this.cursor.logged(state);
    this.#bytes.append(state.deliveries, entry, MAX_DELIVERY_LOG, this.room.logBytes);
    for (const listener of this.#listeners) listener(entry);
  }
}
