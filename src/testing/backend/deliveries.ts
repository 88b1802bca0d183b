/**
 * Webhook deliveries. The spec says events are "sent by the service as an HTTP POST to the url of
 * each enabled webhook that subscribes to them", each attempt "recorded in last_use_at,
 * last_response_status_code and last_response", "a 2xx response from the target means success".
 * It leaves the payload, the token presentation and retries open; the fake's choices (README,
 * "Where the interface spec is silent"): the envelope of `buildDelivery`, `Authorization: Bearer <auth_token>`, and retries
 * with back-off on the fake's clock.
 *
 * Every attempt ends within its time limit on a timer this module holds and clears (a timeout
 * signal on a copied `Request` is lost to garbage collection in Node: nodejs/undici#4068), reads
 * at most {@link MAX_DELIVERY_RESPONSE_BYTES} of the answer, and attempts to several webhooks run
 * at once, so no call waits for more than one time limit.
 * @module
 */
import { MAX_READ_JSON_DEPTH, nestsDeeperThan } from '../../transport/json-depth.js';
import { buildDelivery, TEST_EVENT } from '../../webhooks/delivery.js';
import type { Reservation } from '../../resources/reservations.schemas.js';
import { DeliveryChaos, parseDeliveryChaos, type DeliveryChaosSettings } from './chaos.js';
import { DeliveryCursor } from './delivery-cursor.js';
import { logEntryBytes, pendingDeliveryBytes } from './memory.js';
import { readCapped } from './read-capped.js';
import { realClearTimeout, realSetTimeout, type DueWork, type FakeClock } from './fake-clock.js';
import type { DeliveryLogEntry, EventType, FakeState, PendingDelivery, WebhookRecord } from './state.js';
import { isPlainObject } from './validation.js';
import { isoSeconds } from './webhooks.js';

/** An in-process receiver for a webhook url (instead of real HTTP). */
export type DeliveryHandler = (request: Request) => Response | Promise<Response>;

/**
 * Sends one delivery over the network. `signal` ends the attempt: pass it to `fetch` itself
 * (`fetch(request, { signal })`), never on a copy of the request, which loses it.
 */
export type DeliveryFetch = (request: Request, signal: AbortSignal) => Promise<Response>;

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
/** Most bytes of a webhook target's answer read and kept; the rest is never read. */
export const MAX_DELIVERY_RESPONSE_BYTES = 8192;
/** Most deliveries waiting for an attempt (delayed by chaos or waiting for a retry); beyond, new ones are dropped and logged. */
export const MAX_PENDING_DELIVERIES = 10_000;

const normaliseUrl = (url: string): string => (URL.canParse(url) ? new URL(url).href : url);

/** An exchange made, waiting to be recorded. */
interface SentAttempt {
  webhook: WebhookRecord;
  item: PendingDelivery;
  attemptedAt: number;
  /** The state it was sent from: a reset or restore since makes it void. */
  state: FakeState;
  outcome: AttemptOutcome;
  body: string;
}

/** What one attempt came back with. */
interface AttemptOutcome {
  status: number | null;
  error: string | null;
  response: unknown;
  truncated: boolean;
}

/** How much of its world's memory the deliveries may take. */
export interface DeliveryRoom {
  /** false once the world holds its limit of bytes: new deliveries waiting for an attempt are dropped (logged). */
  hasRoom(): boolean;
  /** Bytes the log keeps at most (oldest attempts dropped first). */
  logBytes: number;
}

/** Estimated bytes by pending delivery and log entry (each computed once). */
const sizes = new WeakMap<object, number>();
const sizeOf = <Item extends object>(item: Item, estimate: (item: Item) => number): number => {
  let bytes = sizes.get(item);
  if (bytes === undefined) sizes.set(item, (bytes = estimate(item)));
  return bytes;
};

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
  /** The bytes of the queue as last counted. */
  #queueBytes: { queue: PendingDelivery[]; length: number; bytes: number } | undefined;
  /** Bytes of the `last_response` each webhook keeps (up to 8 KiB of JSON each), by state. */
  readonly #lastResponses = new WeakMap<FakeState, { byWebhook: Map<number, number>; sum: number }>();
  /** The bytes of each log, kept by `#record`. */
  readonly #logSums = new WeakMap<DeliveryLogEntry[], number>();
  /** Marks in the log, for readers that want only what is new. */
  readonly cursor = new DeliveryCursor();

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
    event: EventType,
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
      const item = this.#pending(
        state,
        `evt_${crypto.randomUUID()}`,
        event,
        webhook.id,
        restaurantId,
        reservation,
        now,
      );
      for (const delivery of this.#applyChaos(state, webhook, item)) {
        if (delivery.dueAt <= now && !queue) dueNow.push(delivery);
        else this.#schedule(state, delivery);
      }
    }
    return dueNow;
  }

  #pending(
    state: FakeState,
    eventId: string,
    event: string,
    webhookId: number,
    restaurantId: number | null,
    reservation: Record<string, unknown> | null,
    now: number,
  ): PendingDelivery {
    return {
      sequence: state.nextDeliverySequence++,
      eventId,
      event,
      webhookId,
      restaurantId,
      reservation,
      createdAt: now,
      attempt: 1,
      dueAt: now,
    };
  }

  /** The deliveries chaos makes of one: none (dropped, and logged as such), itself (maybe late), or itself and a duplicate. */
  #applyChaos(state: FakeState, webhook: WebhookRecord, item: PendingDelivery): PendingDelivery[] {
    if (!this.#chaos) return [item];
    const draw = this.#chaos.draw(webhook.id, item.createdAt);
    if (draw.dropped) {
      this.#record(
        this.#entry(
          webhook,
          item,
          item.createdAt,
          {
            status: null,
            error: 'dropped by delivery chaos: never sent, never retried',
            response: null,
            truncated: false,
          },
          // The body it would have carried, so `resend` can send it after all.
          this.#build(webhook, item).body,
        ),
      );
      return [];
    }
    const deliveries = [{ ...item, dueAt: draw.dueAt }];
    if (draw.duplicated)
      deliveries.push({
        ...item,
        sequence: state.nextDeliverySequence++,
        dueAt: draw.duplicateDueAt,
        duplicate: true,
      });
    return deliveries;
  }

  /**
   * Estimated bytes the deliveries waiting for an attempt and the log hold; asked before every
   * write, so kept up as they grow: the queue only ever grows in place (anything else assigns a
   * new array), and the log's sum is kept by the one method that writes it.
   */
  heldBytes(): number {
    const state = this.getState();
    const queue = state.pendingDeliveries;
    let memo = this.#queueBytes;
    if (memo?.queue !== queue || memo.length > queue.length)
      memo = this.#queueBytes = { queue, length: 0, bytes: 0 };
    for (; memo.length < queue.length; memo.length += 1)
      memo.bytes += sizeOf(queue[memo.length]!, pendingDeliveryBytes);
    return memo.bytes + this.#logBytes(state.deliveries) + (this.#lastResponses.get(state)?.sum ?? 0);
  }

  /** Counts what a webhook's `last_response` now holds (a parsed answer: about three times its text). */
  #countLastResponse(state: FakeState, webhookId: number, response: Record<string, unknown> | null): void {
    let counted = this.#lastResponses.get(state);
    if (!counted) this.#lastResponses.set(state, (counted = { byWebhook: new Map(), sum: 0 }));
    const bytes = response === null ? 0 : 3 * JSON.stringify(response).length;
    counted.sum += bytes - (counted.byWebhook.get(webhookId) ?? 0);
    counted.byWebhook.set(webhookId, bytes);
  }

  #logBytes(log: DeliveryLogEntry[]): number {
    let bytes = this.#logSums.get(log);
    if (bytes === undefined) {
      bytes = 0;
      for (const entry of log) bytes += sizeOf(entry, logEntryBytes);
      this.#logSums.set(log, bytes);
    }
    return bytes;
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
          this.#entry(webhook, item, this.clock.now(), {
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
    const item = this.#pending(
      state,
      `evt_${crypto.randomUUID()}`,
      TEST_EVENT,
      webhook.id,
      null,
      null,
      this.clock.now(),
    );
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
      ...this.#pending(
        state,
        eventId,
        last.event,
        webhook.id,
        last.restaurantId,
        sent.reservation ?? null,
        sent.created_at ? Date.parse(sent.created_at) : this.clock.now(),
      ),
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
    const delivery = this.#build(webhook, item);
    const attemptedAt = this.clock.now();
    const state = this.getState();
    const outcome = await this.#exchange(webhook.url, delivery.headers, delivery.body);
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
      this.#countLastResponse(state, current.id, current.lastResponse);
    }
    const entry = this.#entry(webhook, item, attemptedAt, outcome, body);
    this.#record(entry);
    this.log(
      `delivery ${item.event} #${item.attempt} to webhook ${webhook.id} -> ${outcome.status ?? outcome.error}`,
    );
    return entry;
  }

  /** The delivery as it goes out now: its body, and the webhook's token at the time of the attempt. */
  #build(webhook: WebhookRecord, item: PendingDelivery): ReturnType<typeof buildDelivery> {
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

  /**
   * Sends one POST and reads the answer, all within the time limit: a timer held here aborts the
   * exchange and settles the attempt even when a sender or handler ignores the signal.
   */
  async #exchange(url: string, headers: Record<string, string>, body: string): Promise<AttemptOutcome> {
    const controller = new AbortController();
    this.#inFlight.add(controller);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_resolve, reject) => {
      timer = realSetTimeout(() => {
        const reason = new DOMException(`no complete answer within ${this.#timeoutMs} ms`, 'TimeoutError');
        controller.abort(reason);
        reject(reason);
      }, this.#timeoutMs);
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
      const handler = this.#handlers.get(normaliseUrl(url));
      const answer = handler ? await handler(request) : await this.#fetch(request, controller.signal);
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
      this.#inFlight.delete(controller);
      exchange.catch(() => undefined);
      timedOut.catch(() => undefined);
    }
  }

  #entry(
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

  #record(entry: DeliveryLogEntry): void {
    const state = this.getState();
    const log = state.deliveries;
    // Counted before the push: a state's first count starts from the entries it already holds.
    this.cursor.logged(state);
    let bytes = this.#logBytes(log) + sizeOf(entry, logEntryBytes);
    log.push(entry);
    // Bounded: the oldest attempts go first once the log is full, in entries or in bytes.
    let drop = Math.max(0, log.length - MAX_DELIVERY_LOG);
    for (let index = 0; index < drop; index += 1) bytes -= sizeOf(log[index]!, logEntryBytes);
    while (bytes > this.room.logBytes && drop < log.length - 1) bytes -= sizeOf(log[drop++]!, logEntryBytes);
    if (drop > 0) log.splice(0, drop);
    this.#logSums.set(log, bytes);
    for (const listener of this.#listeners) listener(entry);
  }
}
