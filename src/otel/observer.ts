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
import type { Instruments } from './metrics.js';

/** Writes the W3C trace context of `span` into `carrier` (with the global propagator's own fields, such as baggage). */
function inject(parent: Context, span: Span, carrier: Record<string, string>): void {
  propagation.inject(trace.setSpan(parent, span), carrier);
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

// Metric attribute sets of bounded-cardinality labels, made once per distinct set and reused:
// each record then allocates nothing of ours. A set is a frozen object, as the SDK only reads it.
const MAX_CACHED_SETS = 512;
function cachedSet(cache: Map<string, Attributes>, key: string, make: () => Attributes): Attributes {
  let set = cache.get(key);
  if (set === undefined) {
    set = Object.freeze(make());
    // Labels are bounded, so this only stops an unexpected spread from growing without end.
    if (cache.size < MAX_CACHED_SETS) cache.set(key, set);
  }
  return set;
}

/** The handlers of one `instrument()`; each is a bound function, as the channels call them. */
export class Observer {
  readonly #tracer: Tracer;
  readonly #instruments: Instruments;
  readonly #guestFields: readonly GuestDataField[];
  // Calls by id (their requests and waits name it); requests and waits by their message.
  readonly #calls = new Map<string, { span: Span; context: Context; startedAt: number }>();
  readonly #open = new WeakMap<object, { span: Span; startedAt: number }>();
  // Metric attribute sets by their labels' values (see cachedSet).
  readonly #sets = new Map<string, Attributes>();
  // server.address and server.port by origin (see urlAttributes).
  readonly #servers = new Map<string, Attributes>();

  constructor(tracer: Tracer, instruments: Instruments, guestFields: readonly GuestDataField[]) {
    this.#tracer = tracer;
    this.#instruments = instruments;
    this.#guestFields = guestFields;
  }

  clear(): void {
    this.#calls.clear();
  }

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
      cachedSet(this.#sets, `call\0${operation}\0${type ?? ''}`, () =>
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
      cachedSet(this.#sets, `attempts\0${operation}`, () => ({ [ATTR.operation]: operation })),
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
      cachedSet(
        this.#sets,
        `attempt\0${method}\0${urlTemplate}\0${operation}\0${status}\0${type ?? ''}`,
        () => {
          const set: Attributes = {
            [ATTR.method]: method,
            [ATTR.urlTemplate]: urlTemplate,
            [ATTR.operation]: operation,
          };
          if (status !== undefined) set[ATTR.statusCode] = status;
          if (type) set[ATTR.errorType] = type;
          return set;
        },
      ),
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
    this.#open.set(message, { span, startedAt: performance.now() });
    this.#instruments.queueDepth.add(1, this.#prioritySet(message.priority));
  };

  #prioritySet(priority: string): Attributes {
    return cachedSet(this.#sets, `priority\0${priority}`, () => ({ [ATTR.priority]: priority }));
  }

  waitEnd = (message: RateLimitWaitMessage): void => {
    const state = this.#open.get(message);
    if (!state) return;
    this.#open.delete(message);
    this.#instruments.queueDepth.add(-1, this.#prioritySet(message.priority));
    const waitedMs = message.waitedMs ?? 0;
    state.span.setAttribute(ATTR.waitedMs, waitedMs);
    if ('error' in message) fail(state.span, errorType(message.error));
    state.span.end();
    const { priority, limiter } = message;
    this.#instruments.waitDuration.record(
      waitedMs / 1000,
      cachedSet(this.#sets, `wait\0${priority}\0${limiter}`, () => ({
        [ATTR.priority]: priority,
        [ATTR.limiter]: limiter,
      })),
    );
  };

  pause = (message: RateLimitPauseMessage): void => {
    this.#calls
      .get(message.callId)
      ?.span.addEvent('restaurant_partner.rate_limit.pause', { [ATTR.pauseMs]: message.pauseMs });
    this.#instruments.throttled.add(1, { [ATTR.operation]: message.operation });
  };

  createOutcome = (message: CreateOutcomeMessage): void => {
    this.#calls.get(message.callId)?.span.setAttributes({
      [ATTR.createOutcome]: message.outcome,
      [ATTR.createRequests]: message.requests,
    });
    this.#instruments.createOutcomes.add(1, { [ATTR.createOutcome]: message.outcome });
  };

  webhookDelivery = (message: WebhookDeliveryMessage): void => {
    this.#instruments.webhookDeliveries.add(1, {
      [ATTR.webhookResult]: message.result,
      [ATTR.webhookDuplicate]: message.duplicate,
      ...(message.eventType ? { [ATTR.webhookEventType]: message.eventType } : {}),
    });
  };

  syncChange = (message: SyncChangeMessage): void => {
    if (message.lagMs === undefined) return;
    this.#instruments.syncLag.record(Math.max(0, message.lagMs) / 1000, {
      [ATTR.syncKind]: message.kind,
      [ATTR.syncSource]: message.source,
    });
  };
}
