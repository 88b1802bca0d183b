/**
 * The envelope schemas of the receiver, in a module of their own: the receiver loads it (and zod
 * with it) only when a delivery is not the common well-formed one its fast path reads by hand.
 * @module
 */
import { z } from 'zod';
import { realSchema } from '../lazy-schema.js';
import { Reservation } from '../resources/reservations.schemas.js';
import { ServiceDateTimeString } from '../resources/shared.schemas.js';
import { toFieldIssues } from '../transport/validate.js';
import { TEST_EVENT } from './delivery.js';
import { WebhookPayloadError } from './errors.js';
import {
  RESERVATION_EVENT_TYPES,
  UNKNOWN_EVENT,
  type WebhookEvent,
  type WebhookEventName,
} from './events.js';

function buildSchemas() {
  const envelope = z.looseObject({
    // Kept as a string whatever the wire sends, so duplicate stores have one key type.
    id: z.union([z.string().min(1), z.int().transform(String)]),
    event: z.string().min(1),
    created_at: ServiceDateTimeString.nullish(),
    restaurant_id: z.int().nullish(),
  });
  // The exported schema is typed by its interface; underneath it is the loose object schema.
  const eventReservation = (realSchema(Reservation) as unknown as z.ZodObject).extend({
    start_time: realSchema(ServiceDateTimeString).optional(),
  });
  const reservationEvent = <Name extends (typeof RESERVATION_EVENT_TYPES)[number]>(name: Name) =>
    envelope.extend({ type: z.literal(name), event: z.literal(name), reservation: eventReservation });
  return {
    RESERVATION_CONFIRMED: reservationEvent('RESERVATION_CONFIRMED'),
    RESERVATION_MODIFIED: reservationEvent('RESERVATION_MODIFIED'),
    RESERVATION_CANCELLED: reservationEvent('RESERVATION_CANCELLED'),
    TEST: envelope.extend({
      type: z.literal(TEST_EVENT),
      event: z.literal(TEST_EVENT),
      reservation: eventReservation.nullish(),
    }),
    unknown: envelope.extend({
      type: z.literal(UNKNOWN_EVENT),
      reservation: z.unknown().optional(),
    }),
  };
}
let schemas: ReturnType<typeof buildSchemas> | undefined;

/**
 * Reads a normalised envelope with the schema of its event type.
 * @throws {WebhookPayloadError} naming the fields that do not match.
 */
export function parseWithSchemas(envelope: Record<string, unknown>): WebhookEvent {
  const schema = (schemas ??= buildSchemas())[envelope.type as WebhookEventName];
  const result = schema.safeParse(envelope);
  if (!result.success) {
    throw new WebhookPayloadError(
      `Webhook ${String(envelope.event)} delivery does not match the envelope`,
      toFieldIssues(result.error.issues),
    );
  }
  return result.data as WebhookEvent;
}
