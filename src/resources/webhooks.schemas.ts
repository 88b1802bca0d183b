/** Webhook and delivery schemas. @module */
import * as z from 'zod/mini';
import { lazySchema, realSchema } from '../internal/lazy-schema.js';
import { ServiceDateTimeString } from './shared.schemas.js';
import { Reservation } from './reservations.schemas.js';
import { RESERVATION_EVENT_TYPES } from './event-names.js';

/** The reservation events of the spec. */
export const WebhookEventType = /* @__PURE__ */ lazySchema(() => z.enum(RESERVATION_EVENT_TYPES));
/** One of the reservation events' names (`RESERVATION_CONFIRMED`, ...): the one type of an event name. */
export type WebhookEventType = (typeof RESERVATION_EVENT_TYPES)[number];

/**
 * Which events a webhook receives: event name to `true` (subscribed) or `false`. The spec does
 * not publish the key names; the type lists the event names so a misspelt key does not compile,
 * and at run time any key is passed through to the service (which answers 400 to a key it does
 * not know), so a key the service adds later can still be sent.
 */
export type SubscribedEvents = { [Event in WebhookEventType]?: boolean | undefined };

/**
 * A registered webhook. Fields the service adds beyond these are kept on the object at run time,
 * but are not part of the type.
 */
export interface Webhook {
  /** Assigned by the server. */
  id: number;
  created_at?: string | null | undefined;
  updated_at?: string | null | undefined;
  /** The HTTP or HTTPS address receiving the deliveries. */
  url: string;
  name?: string | null | undefined;
  /** `false`: deliveries are paused. */
  is_enabled?: boolean | undefined;
  /** Time of the latest delivery attempt, or null. */
  last_use_at?: string | null | undefined;
  /** HTTP status your endpoint answered on the latest attempt (2xx means success), or null. */
  last_response_status_code?: number | null | undefined;
  /** The body your endpoint answered on the latest attempt, as the service stored it. */
  last_response?: unknown;
  subscribed_events?: SubscribedEvents | null | undefined;
  /**
   * The token deliveries present, in the answers of `create` and `regenerateToken` only: store it
   * then. It is kept on copies (`{ ...webhook }`, `structuredClone(webhook)`) but left out of
   * `JSON.stringify(webhook)` and `console.log(webhook)`, so it does not end up in logs.
   */
  auth_token?: string | undefined;
}
/** The zod schema of {@link Webhook}: unknown fields are kept at run time. */
export const Webhook: z.ZodMiniType<Webhook> = /* @__PURE__ */ lazySchema(() =>
  z.looseObject({
    id: z.int(),
    created_at: z.nullish(realSchema(ServiceDateTimeString)),
    updated_at: z.nullish(realSchema(ServiceDateTimeString)),
    url: z.string(),
    name: z.nullish(z.string()),
    is_enabled: z.optional(z.boolean()),
    last_use_at: z.nullish(realSchema(ServiceDateTimeString)),
    last_response_status_code: z.nullish(z.int().check(z.lte(32767))),
    last_response: z.optional(z.unknown()),
    // Any key is kept: the spec does not publish them.
    subscribed_events: z.nullish(
      z.record(z.string(), z.boolean()) as z.ZodMiniType<SubscribedEvents, SubscribedEvents>,
    ),
    auth_token: z.optional(z.string()),
  }),
);

const WebhookUrl = /* @__PURE__ */ lazySchema(() =>
  z
    .url({ protocol: /^https?$/, error: 'expected an http or https URL' })
    // Its own message: without one, zod reports the URL's message for a URL that is merely too long.
    .check(z.maxLength(500, 'expected at most 500 characters')),
);

/** What a partner sends to register a webhook. Any other key is refused. */
export interface WebhookCreateInput {
  /** HTTP or HTTPS, at most 500 characters. */
  url: string;
  /** At most 125 characters. */
  name?: string | null | undefined;
  /** `false` registers it paused. */
  is_enabled?: boolean | undefined;
  /** Omitted: every event (on the fake; the spec does not say). */
  subscribed_events?: SubscribedEvents | undefined;
}
const webhookInputShape = () => ({
  url: realSchema(WebhookUrl),
  name: z.optional(z.nullable(z.string().check(z.maxLength(125)))),
  is_enabled: z.optional(z.boolean()),
  subscribed_events: z.optional(z.record(z.string(), z.boolean())),
});
/** The zod schema of {@link WebhookCreateInput}: unknown keys are refused. */
export const WebhookCreateInput: z.ZodMiniType<WebhookCreateInput, WebhookCreateInput> =
  /* @__PURE__ */ lazySchema(() => z.strictObject(webhookInputShape()));

/** Fields of a webhook a partner may change. Any other key is refused. */
export type WebhookUpdateInput = Partial<WebhookCreateInput>;
/** The zod schema of {@link WebhookUpdateInput}: unknown keys are refused. */
export const WebhookUpdateInput: z.ZodMiniType<WebhookUpdateInput, WebhookUpdateInput> =
  /* @__PURE__ */ lazySchema(() => z.partial(z.strictObject(webhookInputShape())));

/**
 * The body of a delivery as the fake sends it (the live shape is not published, so readers must
 * stay tolerant): `{ id, event, created_at, restaurant_id, reservation }`; test deliveries carry
 * `event: "TEST"`.
 */
export interface WebhookDelivery {
  id: string | number;
  event: string;
  created_at?: string | undefined;
  restaurant_id?: number | null | undefined;
  reservation?: Reservation | null | undefined;
}
/** The zod schema of {@link WebhookDelivery}: unknown fields are kept at run time. */
export const WebhookDelivery: z.ZodMiniType<WebhookDelivery> = /* @__PURE__ */ lazySchema(() =>
  z.looseObject({
    id: z.union([z.string(), z.int()]),
    event: z.string(),
    created_at: z.optional(realSchema(ServiceDateTimeString)),
    restaurant_id: z.nullish(z.int()),
    reservation: z.nullish(realSchema(Reservation)),
  }),
);
