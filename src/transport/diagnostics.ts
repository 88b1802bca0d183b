/**
 * The SDK's `node:diagnostics_channel` publications: each channel name written once, the
 * messages' shapes, and the publishing helpers the transport, the create, the webhook receiver
 * and the sync call. Observers (the `/otel` entry, an APM agent) subscribe instead of patching.
 *
 * The module is loaded through `process.getBuiltinModule`, on first use: a runtime without it
 * (Cloudflare Workers without `nodejs_compat`, a browser) publishes nothing and works the same.
 * Nothing is built when no one subscribes: each helper first asks `hasSubscribers`.
 * @module
 */
import type { Priority } from './rate-limiter.js';
import type { PersonalField } from '../resources/reservation-fields.js';

/** The prefix of every channel the SDK publishes. */
export const CHANNEL_PREFIX = 'restaurant-partner-sdk:';

/**
 * The channel names. `call`, `attempt` and `rateLimitWait` are tracing channels (subscribe with
 * `diagnostics_channel.tracingChannel(name)`: `start`, `end`, `asyncStart`, `asyncEnd`, `error`);
 * the others are plain channels (`diagnostics_channel.channel(name)`).
 */
export const CHANNELS = {
  call: `${CHANNEL_PREFIX}call`,
  attempt: `${CHANNEL_PREFIX}attempt`,
  rateLimitWait: `${CHANNEL_PREFIX}rate-limit.wait`,
  rateLimitPause: `${CHANNEL_PREFIX}rate-limit.pause`,
  createOutcome: `${CHANNEL_PREFIX}create.outcome`,
  webhookDelivery: `${CHANNEL_PREFIX}webhook.delivery`,
  syncChange: `${CHANNEL_PREFIX}sync.change`,
  syncRead: `${CHANNEL_PREFIX}sync.read`,
} as const;

/** How a `reservations.create` ended. */
export type CreateOutcome = 'created' | 'replayed' | 'recovered_by_lookup' | 'ambiguous' | 'reuse_refused';

/** Guest fields a create carries: published on the call message, recorded only by name on opt-in. */
export type GuestFields = { [Field in PersonalField]?: string | null | undefined };

/** The message of one public call (tracing channel `call`); `error` is set by the channel when it fails (never its answer). */
export interface CallMessage {
  operation: string;
  callId: string;
  priority: Priority;
  restaurantId?: number | string | undefined;
  /** A create's guest fields as given (personal data: an observer records them only when asked to). */
  guest?: GuestFields | undefined;
  error?: unknown;
}

/** The message of one HTTP request sent (tracing channel `attempt`). Never its headers or body. */
export interface AttemptMessage {
  /** The call the request belongs to (a create's look-up pages share the create's id). */
  callId: string;
  operation: string;
  method: string;
  /** The URL with credentials and secret query values removed. */
  url: string;
  /** The path with its ids as placeholders (`/api/v1/partnership/restaurants/{restaurant_id}/reservations/`). */
  urlTemplate: string;
  /** 1 for the call's first attempt of this request, 2 for its first retry, ... */
  attempt: number;
  /** Requests of this request sent before this one (retries and followed redirects): 0 for the first. */
  resendCount: number;
  /**
   * Trace-context headers to send with this request: a subscriber of `start` may set
   * `traceparent`, `tracestate` and `baggage` here (no other name is sent).
   */
  traceHeaders: Record<string, string>;
  /** Set before the channel's end: the answer's status. */
  statusCode?: number | undefined;
  error?: unknown;
}

/** The message of one wait for the rate-limit budget (tracing channel `rateLimitWait`). */
export interface RateLimitWaitMessage {
  callId: string;
  operation: string;
  priority: Priority;
  /** Calls of this process already waiting on the limiter when this one joined (its place in line). */
  queuePosition: number;
  /** `process` (the SDK's in-process limiter), `redis` (the shared budget) or `custom`. */
  limiter: string;
  /** Set before the channel's end: how long the wait took, in milliseconds of the client's clock. */
  waitedMs?: number | undefined;
  error?: unknown;
}

/** A 429 answered: every call of the limiter pauses (channel `rateLimitPause`). */
export interface RateLimitPauseMessage {
  callId: string;
  operation: string;
  pauseMs: number;
}

/** How a create ended, with what it spent (channel `createOutcome`); published before its call ends. */
export interface CreateOutcomeMessage {
  callId: string;
  operation: string;
  outcome: CreateOutcome;
  /** HTTP requests the create sent in all (its POSTs, look-ups and reads). */
  requests: number;
}

/** One webhook delivery answered (channel `webhookDelivery`). */
export interface WebhookDeliveryMessage {
  /** The event's name (`RESERVATION_CONFIRMED`, ...), when the delivery was read that far. */
  eventType?: string | undefined;
  /** `accepted` (2xx), `refused` (4xx) or `failed` (5xx: the service will deliver again). */
  result: 'accepted' | 'refused' | 'failed';
  status: number;
  duplicate: boolean;
}

/** A change handed to the sync's `onChange` (channel `syncChange`). */
export interface SyncChangeMessage {
  kind: string;
  source: string;
  restaurantId: number;
  /** How long after the sync could first have seen it the change was handed over, when known. */
  lagMs?: number | undefined;
}

/** One restaurant's list read by the sync (channel `syncRead`). */
export interface SyncReadMessage {
  restaurantId: number;
  reservations: number;
  /** How long after it was due the read came, in milliseconds (undefined for the first). */
  lateMs?: number | undefined;
  intervalMs: number;
  /** The read's first list call (its `callId` in log lines and spans). */
  callId?: string | undefined;
}

interface Channel {
  readonly hasSubscribers: boolean;
  publish(message: unknown): void;
}

interface TracingChannel {
  readonly hasSubscribers?: boolean;
  start: Channel;
  end: Channel;
  asyncStart: Channel;
  asyncEnd: Channel;
  error: Channel;
  tracePromise<T>(fn: () => Promise<T>, context: object): Promise<T>;
}

interface DiagnosticsChannelModule {
  channel(name: string): Channel;
  tracingChannel(name: string): TracingChannel;
}

interface Published {
  call: TracingChannel;
  attempt: TracingChannel;
  rateLimitWait: TracingChannel;
  rateLimitPause: Channel;
  createOutcome: Channel;
  webhookDelivery: Channel;
  syncChange: Channel;
  syncRead: Channel;
}

let published: Published | null | undefined;

/** The channels, made on first use; null where the runtime has no `diagnostics_channel`. */
function channels(): Published | null {
  if (published !== undefined) return published;
  published = null;
  try {
    const load = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
      ?.getBuiltinModule;
    const module = load?.('node:diagnostics_channel') as DiagnosticsChannelModule | undefined;
    if (module && typeof module.tracingChannel === 'function') {
      published = {
        call: module.tracingChannel(CHANNELS.call),
        attempt: module.tracingChannel(CHANNELS.attempt),
        rateLimitWait: module.tracingChannel(CHANNELS.rateLimitWait),
        rateLimitPause: module.channel(CHANNELS.rateLimitPause),
        createOutcome: module.channel(CHANNELS.createOutcome),
        webhookDelivery: module.channel(CHANNELS.webhookDelivery),
        syncChange: module.channel(CHANNELS.syncChange),
        syncRead: module.channel(CHANNELS.syncRead),
      };
    }
  } catch {
    // A runtime that refuses the module publishes nothing.
  }
  return published;
}

/** Whether anyone listens on a tracing channel (older runtimes lack the aggregate getter). */
function tracing(channel: TracingChannel): boolean {
  const all = channel.hasSubscribers;
  if (all !== undefined) return all;
  return (
    channel.start.hasSubscribers ||
    channel.end.hasSubscribers ||
    channel.asyncStart.hasSubscribers ||
    channel.asyncEnd.hasSubscribers ||
    channel.error.hasSubscribers
  );
}

type TracingName = 'call' | 'attempt' | 'rateLimitWait';
type PlainName = Exclude<keyof Published, TracingName>;

/** Whether a tracing channel has a subscriber: when false, the caller builds no message. */
export function isTraced(name: TracingName): boolean {
  const all = channels();
  return all !== null && tracing(all[name]);
}

/** Runs `work` within the tracing channel `name` with `message` (call only when {@link isTraced}). */
export function traced<T, M extends object>(
  name: TracingName,
  message: M,
  work: () => Promise<T>,
): Promise<T> {
  return channels()![name].tracePromise(work, message);
}

/** Publishes on a plain channel; `message` is built only when someone listens. */
export function publish<M>(name: PlainName, message: () => M): void {
  const channel = channels()?.[name];
  if (channel?.hasSubscribers) channel.publish(message());
}

/** The trace-context headers a subscriber may add to a request: nothing else is taken from it. */
export function traceContextHeaders(set: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ['traceparent', 'tracestate', 'baggage'])
    if (typeof set[name] === 'string') headers[name] = set[name];
  return headers;
}

// Ids of the collections in the API's paths: the segment after each is an id.
const ID_AFTER: Record<string, string> = {
  restaurants: '{restaurant_id}',
  reservations: '{reservation_id}',
  webhooks: '{webhook_id}',
  partners: '{partner_id}',
};

/** A path with its ids as placeholders: bounded, and without anything a caller put in it. */
export function urlTemplate(pathname: string): string {
  const segments = pathname.split('/');
  return segments
    .map((segment, index) => {
      const placeholder = ID_AFTER[segments[index - 1] ?? ''];
      if (segment === '') return segment;
      if (placeholder) return placeholder;
      return /^[a-z][a-z0-9_-]*$/.test(segment) && !/\d{3}/.test(segment) ? segment : '{id}';
    })
    .join('/');
}
