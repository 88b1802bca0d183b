/**
 * The envelope schemas of the receiver, in a module of their own: the receiver loads it (and zod
 * with it) only when a delivery is not the common well-formed one its fast path reads by hand.
 * @module
 */
import * as z from 'zod/mini';
import { realSchema } from '../internal/lazy-schema.js';
import { PARSE_PARAMS } from '../internal/schema-messages.js';
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
    id: z.union([z.string().check(z.minLength(1)), z.pipe(z.int(), z.transform(String))]),
    event: z.string().check(z.minLength(1)),
    created_at: z.nullish(realSchema(ServiceDateTimeString)),
    restaurant_id: z.nullish(z.int()),
  });
  // The exported schema is typed by its interface; underneath it is the loose object schema.
  const eventReservation = z.extend(realSchema(Reservation) as unknown as z.ZodMiniObject, {
    start_time: z.optional(realSchema(ServiceDateTimeString)),
  });
  const reservationEvent = <Name extends (typeof RESERVATION_EVENT_TYPES)[number]>(name: Name) =>
    z.extend(envelope, { type: z.literal(name), event: z.literal(name), reservation: eventReservation });
  return {
    RESERVATION_CONFIRMED: reservationEvent('RESERVATION_CONFIRMED'),
    RESERVATION_MODIFIED: reservationEvent('RESERVATION_MODIFIED'),
    RESERVATION_CANCELLED: reservationEvent('RESERVATION_CANCELLED'),
    TEST: z.extend(envelope, {
      type: z.literal(TEST_EVENT),
      event: z.literal(TEST_EVENT),
      reservation: z.nullish(eventReservation),
    }),
    unknown: z.extend(envelope, {
      type: z.literal(UNKNOWN_EVENT),
      reservation: z.optional(z.unknown()),
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
  const result = schema.safeParse(envelope, PARSE_PARAMS);
  if (!result.success) {
    throw new WebhookPayloadError(
      `Webhook ${String(envelope.event)} delivery does not match the envelope`,
      toFieldIssues(result.error.issues),
    );
  }
  return result.data as WebhookEvent;
}
