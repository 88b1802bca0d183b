/**
 * The delivery envelope as zod schemas, built from the client's own `Reservation` and date-time
 * schemas: the reference the receiver's hand-written check (src/webhooks/envelope-check.ts) is
 * proven against. The receiver does not load zod; when the client's `Reservation` schema changes,
 * the property test comparing the two fails until the check follows.
 */
import * as z from 'zod/mini';
import { realSchema } from '../../../src/internal/lazy-schema.js';
import { Reservation } from '../../../src/resources/reservations.schemas.js';
import { ServiceDateTimeString } from '../../../src/resources/shared.schemas.js';
import { PARSE_PARAMS } from '../../../src/internal/schema-messages.js';
import { toFieldIssues } from '../../../src/transport/validate.js';
import { TEST_EVENT } from '../../../src/webhooks/delivery.js';
import { WebhookPayloadError } from '../../../src/webhooks/errors.js';
import { RESERVATION_EVENT_TYPES, readEnvelope, UNKNOWN_EVENT } from '../../../src/webhooks/events.js';

function buildSchemas() {
  const envelope = z.looseObject({
    // Kept as a string whatever the wire sends, so duplicate stores have one key type.
    id: z.union([z.string().check(z.minLength(1)), z.pipe(z.int(), z.transform(String))]),
    event: z.string().check(z.minLength(1)),
    created_at: z.nullish(realSchema(ServiceDateTimeString)),
    restaurant_id: z.nullish(z.int()),
  });
  const eventReservation = z.extend(realSchema(Reservation) as unknown as z.ZodMiniObject, {
    start_time: z.optional(realSchema(ServiceDateTimeString)),
  });
  const schemas: Record<string, z.ZodMiniType> = {
    [TEST_EVENT]: z.extend(envelope, {
      type: z.literal(TEST_EVENT),
      event: z.literal(TEST_EVENT),
      reservation: z.nullish(eventReservation),
    }),
    [UNKNOWN_EVENT]: z.extend(envelope, {
      type: z.literal(UNKNOWN_EVENT),
      reservation: z.optional(z.unknown()),
    }),
  };
  for (const name of RESERVATION_EVENT_TYPES)
    schemas[name] = z.extend(envelope, {
      type: z.literal(name),
      event: z.literal(name),
      reservation: eventReservation,
    });
  return schemas;
}
let schemas: ReturnType<typeof buildSchemas> | undefined;

/** What the receiver's `parseWebhookEvent` answers, with the envelope read by the zod schemas. */
export function parseWithSchemas(json: unknown, fallbackId: string | undefined): unknown {
  const envelope = readEnvelope(json, fallbackId);
  const schema = (schemas ??= buildSchemas())[envelope.type as string]!;
  const result = schema.safeParse(envelope, PARSE_PARAMS);
  if (!result.success) {
    throw new WebhookPayloadError(
      `Webhook ${String(envelope.event)} delivery does not match the envelope`,
      toFieldIssues(result.error.issues),
    );
  }
  return result.data;
}
