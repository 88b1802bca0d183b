/**
 * What `instrument()` does with each message of the SDK's channels: the spans it starts and ends
 * and the metrics it records. Attribute values come only from the messages' fields (see
 * attributes.ts), never from a header, a body or an error's message.
 * @module
 */
import {
  context,
  isSpanContextValid,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type ObservableResult,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type {
  AttemptMessage,
  CallMessage,
  CreateOutcomeMessage,
  RateLimitPauseMessage,
  RateLimitWaitMessage,
  SyncChangeMessage,
  WebhookDeliveryMessage,
} from '../transport/diagnostics.js';
import {
  ATTR,
  errorType,
  guestAttributes,
  restaurantIdAttribute,
  urlAttributes,
  type GuestDataField,
} from './attributes.js';
import { AttributeSets } from './attribute-sets.js';
import type { Instruments } from './metrics.js';

/**
 * Writes the W3C trace context of `span` into `carrier`: the global propagator's fields (such as
 * baggage), and `traceparent` written here when no propagator wrote it (none is registered, or
 * one of another format), so that every request names its attempt span.
 */
function inject(parent: Context, span: Span, carrier: Record<string, string>): void {
  // The default (no-op) propagator has no fields: no context is built for it, on every request.
  if (propagation.fields().length > 0) propagation.inject(trace.setSpan(parent, span), carrier);
  if (carrier.traceparent !== undefined) return;
  const spanContext = span.spanContext();
  if (!isSpanContextValid(spanContext)) return;
  const flags = spanContext.traceFlags.toString(16).padStart(2, '0');
  carrier.traceparent = `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
  const state = spanContext.traceState?.serialize();
  if (state) carrier.tracestate = state;
}

/** Marks a span failed with its `error.type` (never the error's message: a server may echo a guest's data in it). */
function fail(span: Span, type: string): void {
  span.setAttribute(ATTR.errorType, type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/** The handlers of one `instrument()`; each is a bound function, as the channels call them. */
export class Observer {
  readonly #tracer: Tracer;
  readonly #instruments: Instruments;
  readonly #guestFields: readonly GuestDataField[];
  // Calls by id (their requests and waits name it); requests and waits by their message.
  readonly #calls = new Map<string, { span: Span; context: Context; startedAt: number }>();
  readonly #open = new WeakMap<object, { span: Span; startedAt: number }>();
  readonly #waits = new WeakMap<object, Span>();
  // Metric attribute sets by their labels' values.
  readonly #sets = new AttributeSets();
  // Waits under way by priority, read when metrics are collected (a bounded set of priorities):
  // counting here costs a number's increment per wait, where an up-down counter's record cost two
  // records of the metrics SDK (hashing the attributes, finding the point) on every call.
  readonly #waiting = new Map<string, number>();
  // server.address and server.port by origin (see urlAttributes).
  readonly #servers = new Map<string, Attributes>();

  constructor(tracer: Tracer, instruments: Instruments, guestFields: readonly GuestDataField[]) {
    this.#tracer = tracer;
    this.#instruments = instruments;
    this.#guestFields = guestFields;
  }

  clear(): void {
    this.#calls.clear();
    this.#waiting.clear();
  }

  /** The `queue_depth` callback: the waits under way now, by priority. */
  observeQueueDepth = (result: ObservableResult): void => {
    for (const [priority, waiting] of this.#waiting) result.observe(waiting, this.#prioritySet(priority));
  };

  #parentOf(callId: string): Context {
    return this.#calls.get(callId)?.context ?? context.active();
  }

  callStart = (message: CallMessage): void => {
    const attributes: Attributes = {
      [ATTR.operation]: message.operation,
      [ATTR.callId]: message.callId,
      [ATTR.priority]: message.priority,
    };
    restaurantIdAttribute(message.restaurantId, attributes);
    // Only a create carries a guest, and only named fields are recorded: nothing to do otherwise.
    if (message.guest && this.#guestFields.length > 0)
      Object.assign(attributes, guestAttributes(message.guest, this.#guestFields));
    // Published in the caller's own context: the call is a child of the caller's active span.
    const parent = context.active();
    const span = this.#tracer.startSpan(message.operation, { kind: SpanKind.INTERNAL, attributes }, parent);
    this.#calls.set(message.callId, {
      span,
      context: trace.setSpan(parent, span),
      startedAt: performance.now(),
    });
  };

  /** A body that threw before returning its promise ends at `end` (no `asyncEnd` follows). */
  callEnd = (message: CallMessage): void => {
    if ('error' in message) this.callAsyncEnd(message);
  };

  callAsyncEnd = (message: CallMessage): void => {
    const state = this.#calls.get(message.callId);
    if (!state) return;
    this.#calls.delete(message.callId);
    const type = 'error' in message ? errorType(message.error) : undefined;
    if (type) fail(state.span, type);
    state.span.end();
    const { operation } = message;
    this.#instruments.callDuration.record(
      (performance.now() - state.startedAt) / 1000,
      this.#sets.get(['call', operation, type], () =>
        type ? { [ATTR.operation]: operation, [ATTR.errorType]: type } : { [ATTR.operation]: operation },
      ),
    );
  };

  attemptStart = (message: AttemptMessage): void => {
    const parent = this.#parentOf(message.callId);
    const attributes: Attributes = {
      [ATTR.method]: message.method,
      [ATTR.urlTemplate]: message.urlTemplate,
    };
    urlAttributes(message.url, attributes, this.#servers);
    if (message.resendCount > 0) attributes[ATTR.resendCount] = message.resendCount;
    attributes[ATTR.operation] = message.operation;
    attributes[ATTR.callId] = message.callId;
    const name = `${message.method} ${message.urlTemplate}`;
    const span = this.#tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
    inject(parent, span, message.traceHeaders);
    this.#open.set(message, { span, startedAt: performance.now() });
    const { operation } = message;
    this.#instruments.callAttempts.add(
      1,
      this.#sets.get(['attempts', operation], () => ({ [ATTR.operation]: operation })),
    );
  };

  attemptEnd = (message: AttemptMessage): void => {
    const state = this.#open.get(message);
    if (!state) return;
    this.#open.delete(message);
    const status = message.statusCode;
    // HTTP semantic conventions: the status code as error.type for an answer of 400 or more.
    const type =
      status !== undefined && status >= 400
        ? String(status)
        : 'error' in message
          ? errorType(message.error)
          : undefined;
    if (status !== undefined) state.span.setAttribute(ATTR.statusCode, status);
    if (type) fail(state.span, type);
    state.span.end();
    const { method, urlTemplate, operation } = message;
    this.#instruments.attemptDuration.record(
      (performance.now() - state.startedAt) / 1000,
      this.#sets.get(['attempt', operation, urlTemplate, method, status, type], () => {
        const set: Attributes = {
          [ATTR.method]: method,
          [ATTR.urlTemplate]: urlTemplate,
          [ATTR.operation]: operation,
        };
        if (status !== undefined) set[ATTR.statusCode] = status;
        if (type) set[ATTR.errorType] = type;
        return set;
      }),
    );
  };

  waitStart = (message: RateLimitWaitMessage): void => {
    const attributes: Attributes = {
      [ATTR.priority]: message.priority,
      [ATTR.queuePosition]: message.queuePosition,
      [ATTR.limiter]: message.limiter,
      [ATTR.operation]: message.operation,
      [ATTR.callId]: message.callId,
    };
    const span = this.#tracer.startSpan(
      'restaurant_partner.rate_limit.wait',
      { kind: SpanKind.INTERNAL, attributes },
      this.#parentOf(message.callId),
    );
    // Its duration is the message's waitedMs, on the client's clock: no time is taken here.
    this.#waits.set(message, span);
    this.#waiting.set(message.priority, (this.#waiting.get(message.priority) ?? 0) + 1);
  };

  #prioritySet(priority: string): Attributes {
    return this.#sets.get(['priority', priority], () => ({ [ATTR.priority]: priority }));
  }

  waitEnd = (message: RateLimitWaitMessage): void => {
    const span = this.#waits.get(message);
    if (!span) return;
    this.#waits.delete(message);
    this.#waiting.set(message.priority, (this.#waiting.get(message.priority) ?? 1) - 1);
    const waitedMs = message.waitedMs ?? 0;
    span.setAttribute(ATTR.waitedMs, waitedMs);
    if ('error' in message) fail(span, errorType(message.error));
    span.end();
    const { priority, limiter } = message;
    this.#instruments.waitDuration.record(
      waitedMs / 1000,
      this.#sets.get(['wait', priority, limiter], () => ({
        [ATTR.priority]: priority,
        [ATTR.limiter]: limiter,
      })),
    );
  };

  pause = (message: RateLimitPauseMessage): void => {
    this.#calls
      .get(message.callId)
      ?.span.addEvent('restaurant_partner.rate_limit.pause', { [ATTR.pauseMs]: message.pauseMs });
    const { operation } = message;
    this.#instruments.throttled.add(
      1,
      this.#sets.get(['throttled', operation], () => ({ [ATTR.operation]: operation })),
    );
  };

  createOutcome = (message: CreateOutcomeMessage): void => {
    this.#calls.get(message.callId)?.span.setAttributes({
      [ATTR.createOutcome]: message.outcome,
      [ATTR.createRequests]: message.requests,
    });
    const { outcome } = message;
    this.#instruments.createOutcomes.add(
      1,
      this.#sets.get(['outcome', outcome], () => ({ [ATTR.createOutcome]: outcome })),
    );
  };

  webhookDelivery = (message: WebhookDeliveryMessage): void => {
    const { result, duplicate, eventType } = message;
    this.#instruments.webhookDeliveries.add(
      1,
      this.#sets.get(['webhook', result, duplicate, eventType], () => ({
        [ATTR.webhookResult]: result,
        [ATTR.webhookDuplicate]: duplicate,
        ...(eventType ? { [ATTR.webhookEventType]: eventType } : {}),
      })),
    );
  };

  syncChange = (message: SyncChangeMessage): void => {
    if (message.lagMs === undefined) return;
    const { kind, source } = message;
    this.#instruments.syncLag.record(
      Math.max(0, message.lagMs) / 1000,
      this.#sets.get(['sync', kind, source], () => ({ [ATTR.syncKind]: kind, [ATTR.syncSource]: source })),
    );
  };
}
