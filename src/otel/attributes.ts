/**
 * Every span and metric attribute the `/otel` entry records, named once, and the few rules that
 * keep them safe: values come only from fields the SDK's channels publish for observers (never a
 * header, a body or an error's message, where a server may echo a token or a guest's name), ids
 * and URLs are checked to be what they claim, and a guest's details appear only when the partner
 * names them in `recordGuestData`.
 * @module
 */
import type { Attributes } from '@opentelemetry/api';
import type { GuestFields } from '../transport/diagnostics.js';
import { PERSONAL_FIELDS, type PersonalField } from '../resources/reservation-fields.js';

/** Attribute names: OpenTelemetry's semantic conventions where one exists, ours under `restaurant_partner.`. */
export const ATTR = {
  operation: 'restaurant_partner.operation',
  callId: 'restaurant_partner.call.id',
  priority: 'restaurant_partner.priority',
  restaurantId: 'restaurant_partner.restaurant.id',
  createOutcome: 'restaurant_partner.create.outcome',
  createRequests: 'restaurant_partner.create.requests',
  queuePosition: 'restaurant_partner.rate_limit.queue_position',
  limiter: 'restaurant_partner.rate_limit.limiter',
  waitedMs: 'restaurant_partner.rate_limit.waited_ms',
  pauseMs: 'restaurant_partner.rate_limit.pause_ms',
  webhookEventType: 'restaurant_partner.webhook.event_type',
  webhookResult: 'restaurant_partner.webhook.result',
  webhookDuplicate: 'restaurant_partner.webhook.duplicate',
  syncKind: 'restaurant_partner.sync.change.kind',
  syncSource: 'restaurant_partner.sync.change.source',
  guestPrefix: 'restaurant_partner.guest.',
  // HTTP client semantic conventions.
  method: 'http.request.method',
  statusCode: 'http.response.status_code',
  resendCount: 'http.request.resend_count',
  urlFull: 'url.full',
  urlTemplate: 'url.template',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  errorType: 'error.type',
} as const;

// A guest detail a partner may choose to record, by name (`'email'`, ...): the same type under the
// entry's name (a re-export, not a new alias, so that a partner's declarations can write it down).
export type { PersonalField as GuestDataField } from '../resources/reservation-fields.js';
/** The guest's details a partner may choose to record (each by name; none by default). */
export const GUEST_DATA_FIELDS: readonly PersonalField[] = PERSONAL_FIELDS;

const ID_LIKE = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A restaurant id as given by the caller, only when it looks like one (it is not checked yet),
 * added to `into` (per call: written into the span's attributes rather than spread from a new object).
 */
export function restaurantIdAttribute(value: unknown, into: Attributes = {}): Attributes {
  if (
    (typeof value === 'number' && Number.isSafeInteger(value)) ||
    (typeof value === 'string' && ID_LIKE.test(value))
  )
    into[ATTR.restaurantId] = value;
  return into;
}

/** The guest fields the partner opted into, as attributes. */
export function guestAttributes(
  guest: GuestFields | undefined,
  fields: readonly PersonalField[],
): Attributes {
  const attributes: Attributes = {};
  if (!guest) return attributes;
  for (const field of fields) {
    const value = guest[field];
    if (typeof value === 'string') attributes[`${ATTR.guestPrefix}${field}`] = value;
  }
  return attributes;
}

// The query parameters the SDK itself sends, whose values are safe to show; any other is replaced.
const KNOWN_QUERY = new Set(['page', 'page_size', 'start_time_after', 'start_time_before', 'action']);

/** Most origins one observer keeps the server attributes of (a client talks to one or two). */
const MAX_SERVERS = 64;

/** server.address and server.port of `url`, kept by origin in `servers` (the observer's own). */
function serverAttributes(url: URL, servers: Map<string, Attributes>): Attributes {
  let known = servers.get(url.origin);
  if (!known) {
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    known = { [ATTR.serverAddress]: url.hostname, [ATTR.serverPort]: port };
    if (servers.size < MAX_SERVERS) servers.set(url.origin, known);
  }
  return known;
}

// The origin of an absolute URL without a query (`https://host:port`), or undefined to parse it.
const PLAIN_URL = /^(https?:\/\/[^/?#@]+)\/[^?#]*$/;

/**
 * The request's URL for `url.full`, added to `into`: the transport already removed credentials and
 * secret values; query parameters the SDK does not send itself (a `client.request` caller's) show
 * as `REDACTED`. A URL without a query (most requests) whose origin is one `servers` holds (the
 * origin as written is the parsed one) is written as it is, without parsing it again.
 */
export function urlAttributes(url: string, into: Attributes, servers: Map<string, Attributes>): Attributes {
  const plain = PLAIN_URL.exec(url);
  const known = plain ? servers.get(plain[1]!) : undefined;
  if (known) {
    into[ATTR.urlFull] = url;
    into[ATTR.serverAddress] = known[ATTR.serverAddress];
    into[ATTR.serverPort] = known[ATTR.serverPort];
    return into;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return into;
  }
  if (parsed.search !== '') {
    for (const name of [...new Set(parsed.searchParams.keys())])
      if (!KNOWN_QUERY.has(name)) parsed.searchParams.set(name, 'REDACTED');
  }
  const server = serverAttributes(parsed, servers);
  into[ATTR.urlFull] = parsed.search === '' ? url : parsed.href;
  into[ATTR.serverAddress] = server[ATTR.serverAddress];
  into[ATTR.serverPort] = server[ATTR.serverPort];
  return into;
}

/**
 * `error.type` of a failure: the error's class name (the SDK's classes, a bounded set), never its
 * message; `_OTHER` for anything that does not look like a class name.
 */
export function errorType(error: unknown): string {
  const name = error instanceof Error ? error.name : undefined;
  return typeof name === 'string' && /^[A-Za-z][A-Za-z0-9]{0,63}$/.test(name) ? name : '_OTHER';
}

/** A value from a bounded list, or `_OTHER`. */
export function bounded(value: unknown, known: readonly string[]): string {
  return typeof value === 'string' && known.includes(value) ? value : '_OTHER';
}
