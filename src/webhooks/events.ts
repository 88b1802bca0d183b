/**
 * The typed events a delivery turns into, and the tolerant reading of its envelope.
 *
 * The live payload shape is not published (docs/where-the-spec-is-silent.md), so the envelope is
 * read tolerantly: unknown fields are kept, the event name may also come as `event_type` or
 * `type`, the reservation as `data` (or `data.reservation`), and an event name this version does
 * not know is surfaced as an `unknown` event instead of being refused.
 * @module
 */
import type { Reservation } from '../resources/reservations.schemas.js';
import { RESERVATION_EVENT_TYPES, TEST_EVENT } from '../resources/event-names.js';
import { checkEnvelope } from './envelope-check.js';
import { WebhookPayloadError } from './errors.js';
import type { WebhookEventType } from '../resources/webhooks.schemas.js';

export { RESERVATION_EVENT_TYPES };

/** Discriminant of an event whose name this SDK version does not know. */
export const UNKNOWN_EVENT = 'unknown';

/**
 * The reservation an event carries. The delivery payload is not published, and a service may
 * send only what changed (a `RESERVATION_MODIFIED` without `start_time`), so only `id` is
 * required: an event is never refused, and so never lost, for a missing reservation field. Read
 * the whole reservation with `client.reservations.retrieve(event.restaurant_id, reservation.id)`
 * when you need a field that is absent.
 */
export interface WebhookReservation extends Omit<Reservation, 'start_time'> {
  /** Present in every delivery of the fake; absent when the service sends only what changed. */
  start_time?: string | undefined;
}

/** Fields every delivery envelope has. Unknown envelope fields are kept at run time. */
export interface WebhookEventEnvelope {
  /** The delivery id (a digest of the body when the envelope carries none), as a string. */
  id: string;
  /** The event name exactly as sent. */
  event: string;
  created_at?: string | null | undefined;
  restaurant_id?: number | null | undefined;
  /**
   * The webhook the delivery was sent for, when the envelope says (the fake always does; the live
   * envelope is not published). Part of the duplicate key: see `duplicateStore`.
   */
  webhook_id?: number | string | null | undefined;
}

/**
 * A reservation event: one per name of `WebhookEventType` (the core's type of the event names),
 * with the reservation it is about.
 */
export interface ReservationEventOf<Name extends WebhookEventType> extends WebhookEventEnvelope {
  type: Name;
  event: Name;
  reservation: WebhookReservation;
}
/** `TEST`: the delivery sent by `client.webhooks.test(id)`; `reservation` is usually null. */
export interface TestEvent extends WebhookEventEnvelope {
  type: typeof TEST_EVENT;
  event: typeof TEST_EVENT;
  reservation?: WebhookReservation | null | undefined;
}
/**
 * An event whose name this SDK version does not know. `type` is `'unknown'` (so a `switch` on
 * `type` narrows the known ones) and `event` holds the name as sent.
 */
export interface UnknownEvent extends WebhookEventEnvelope {
  type: 'unknown';
  /** Not checked: a future event may carry anything here. */
  reservation?: unknown;
}
/** Any reservation event. */
export type ReservationEvent = {
  [Name in WebhookEventType]: ReservationEventOf<Name>;
}[WebhookEventType];

/**
 * A verified delivery, discriminated by `type`.
 *
 * @example
 * ```ts
 * switch (event.type) {
 *   case 'RESERVATION_CONFIRMED': await markConfirmed(event.restaurant_id, event.reservation.id); break;
 *   case 'RESERVATION_CANCELLED': await release(event.reservation.id); break;
 *   case 'unknown': log.info(`new event type ${event.event}`); break;
 * }
 * ```
 */
export type WebhookEvent = ReservationEvent | TestEvent | UnknownEvent;
/** The member of {@link WebhookEvent} with the given `type` (`WebhookEventOf<'RESERVATION_CONFIRMED'>`). */
export type WebhookEventOf<Name extends WebhookEvent['type']> = Extract<WebhookEvent, { type: Name }>;

const KNOWN_EVENTS: ReadonlySet<string> = new Set<string>([...RESERVATION_EVENT_TYPES, TEST_EVENT]);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The delivery id the envelope carries (`id`, `event_id` or `delivery_id`), or undefined when it
 * carries none (the receiver then digests the body, only in that case).
 */
export function envelopeDeliveryId(json: unknown): string | number | undefined {
  if (!isPlainObject(json)) return undefined;
  if (isDeliveryId(json.id)) return json.id;
  if (isDeliveryId(json.event_id)) return json.event_id;
  return isDeliveryId(json.delivery_id) ? json.delivery_id : undefined;
}

const isDeliveryId = (value: unknown): value is string | number =>
  (typeof value === 'string' && value !== '') || typeof value === 'number';

/**
 * The webhook a delivery says it was sent for, as a string: `webhook_id`, or `webhook` (its id,
 * or an object with an `id`). The fake sends `webhook_id`; the live envelope is not published, so
 * undefined when it carries none of these.
 */
export function envelopeWebhookId(event: WebhookEvent): string | undefined {
  const envelope = event as unknown as Record<string, unknown>;
  if (isDeliveryId(envelope.webhook_id)) return String(envelope.webhook_id);
  const webhook = envelope.webhook;
  if (isDeliveryId(webhook)) return String(webhook);
  const nested = isPlainObject(webhook) ? webhook.id : undefined;
  return isDeliveryId(nested) ? String(nested) : undefined;
}

/** Where the spec is silent, a few plausible spellings of the envelope are read as ours. */
function normalizeEnvelope(
  envelope: Record<string, unknown>,
  fallbackId: string | undefined,
): Record<string, unknown> {
  // Written in place: the envelope is the receiver's own freshly parsed JSON, and a copy per
  // delivery is garbage the schema's own copy makes anyway.
  const normalized = envelope;
  const name =
    typeof envelope.event === 'string'
      ? envelope.event
      : typeof envelope.event_type === 'string'
        ? envelope.event_type
        : typeof envelope.type === 'string'
          ? envelope.type
          : undefined;
  const id = envelopeDeliveryId(envelope) ?? fallbackId;
  if (name !== undefined) normalized.event = name;
  normalized.type = name !== undefined && KNOWN_EVENTS.has(name) ? name : UNKNOWN_EVENT;
  normalized.id = id;
  if (!('reservation' in envelope) && isPlainObject(envelope.data)) {
    const data = envelope.data;
    normalized.reservation = 'start_time' in data ? data : data.reservation;
  }
  return normalized;
}

/**
 * A parsed JSON value as a normalised envelope (see {@link normalizeEnvelope}), before its fields
 * are checked: an object naming its event.
 * @throws {WebhookPayloadError} when it is not.
 */
export function readEnvelope(json: unknown, fallbackId: string | undefined): Record<string, unknown> {
  if (!isPlainObject(json)) {
    throw new WebhookPayloadError(
      `Webhook body is JSON but not a delivery envelope: expected an object, got ${Array.isArray(json) ? 'an array' : json === null ? 'null' : typeof json}`,
    );
  }
  const envelope = normalizeEnvelope(json, fallbackId);
  if (typeof envelope.event !== 'string' || envelope.event === '') {
    throw new WebhookPayloadError('Webhook body is JSON but not a delivery envelope', [
      {
        field: 'event',
        path: ['event'],
        code: 'invalid_type',
        message: 'expected the event name as a non-empty string',
      },
    ]);
  }
  return envelope;
}

/**
 * Reads a parsed JSON value as a delivery envelope. `fallbackId` is used as the delivery id when
 * the envelope carries none (a digest of the body, so a retried delivery keeps its id).
 * @throws {WebhookPayloadError} when the value is not an envelope, naming the fields and rules it breaks.
 */
export function parseWebhookEvent(json: unknown, fallbackId: string | undefined): WebhookEvent {
  const envelope = readEnvelope(json, fallbackId);
  const checked = checkEnvelope(envelope, envelope.type !== UNKNOWN_EVENT);
  if (!checked.ok) {
    throw new WebhookPayloadError(
      `Webhook ${String(envelope.event)} delivery does not match the envelope`,
      checked.issues,
    );
  }
  return checked.event as unknown as WebhookEvent;
}
