/** Webhook and delivery schemas. @module */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { ServiceDateTimeString } from './shared.schemas.js';
import { Reservation } from './reservations.schemas.js';

/** The reservation events of the spec. */
export const WebhookEventType = lazySchema(() => z.enum(['RESERVATION_CONFIRMED', 'RESERVATION_MODIFIED', 'RESERVATION_CANCELLED']));
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/**
 * A registered webhook. `auth_token` is present only in the answers to create and regenerate; the
 * spec does not name that field, so the client also reads `token`, `secret` and `authToken`.
 */
export const Webhook = lazySchema(() => z.looseObject({
  id: z.int(),
  created_at: ServiceDateTimeString.nullish(),
  updated_at: ServiceDateTimeString.nullish(),
  url: z.string(),
  name: z.string().nullish(),
  is_enabled: z.boolean().optional(),
  last_use_at: ServiceDateTimeString.nullish(),
  last_response_status_code: z.int().max(32767).nullish(),
  last_response: z.unknown().optional(),
  subscribed_events: z.record(z.string(), z.boolean()).nullish(),
  auth_token: z.string().optional(),
}));
export type Webhook = z.infer<typeof Webhook>;

const WebhookUrl = lazySchema(() => z
  .url({ protocol: /^https?$/, error: 'expected an http or https URL' })
  // Its own message: without one, zod reports the URL's message for a URL that is merely too long.
  .max(500, 'expected at most 500 characters'));

/** What a partner sends to register a webhook. */
export const WebhookCreateInput = lazySchema(() => z.looseObject({
  url: WebhookUrl,
  name: z.string().max(125).nullable().optional(),
  is_enabled: z.boolean().optional(),
  subscribed_events: z.record(z.string(), z.boolean()).optional(),
}));
export type WebhookCreateInput = z.infer<typeof WebhookCreateInput>;

/** Fields of a webhook a partner may change. */
export const WebhookUpdateInput = lazySchema(() => WebhookCreateInput.partial());
export type WebhookUpdateInput = z.infer<typeof WebhookUpdateInput>;

/**
 * The body of a delivery as the fake sends it (the live shape is not published, so readers must
 * stay tolerant): `{ id, event, created_at, restaurant_id, reservation }`; test deliveries carry
 * `event: "TEST"`.
 */
export const WebhookDelivery = lazySchema(() => z.looseObject({
  id: z.union([z.string(), z.int()]),
  event: z.string(),
  created_at: ServiceDateTimeString.optional(),
  restaurant_id: z.int().nullish(),
  reservation: Reservation.nullish(),
}));
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;
