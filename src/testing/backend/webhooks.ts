/**
 * Webhook rules. The spec gives the fields, regenerate, test and delete; create, list, read and
 * update are "not shown", so the fake serves them at REST paths.
 * @module
 */
import { notFound } from './fake-error.js';
import {
  EVENT_TYPES,
  randomToken,
  type WebhookEventType,
  type PartnerRecord,
  type WebhookRecord,
} from './state.js';
import { FieldCollector, isHttpUrl, isPlainObject, parseUrl, requireObject } from './validation.js';
import type { World } from './world.js';
import { MAX_WEBHOOKS_PER_PARTNER, limitReached } from './world-limits.js';

/** `url`: "Max 500 characters"; `name`: "Max 125 characters". */
export const MAX_WEBHOOK_URL_LENGTH = 500;
export const MAX_WEBHOOK_NAME_LENGTH = 125;

/** The webhook as the partner API shows it; `auth_token` only on create and regenerate. */
/** `tokenField`: the field the token is shown under (the `webhookTokenField` dialect), or false to hide it. */
export function webhookView(
  webhook: WebhookRecord,
  tokenField: string | false = false,
): Record<string, unknown> {
  const at = (millis: number | null) => (millis === null ? null : isoSeconds(millis));
  return {
    id: webhook.id,
    created_at: at(webhook.createdAt),
    updated_at: at(webhook.updatedAt),
    url: webhook.url,
    name: webhook.name,
    is_enabled: webhook.is_enabled,
    last_use_at: at(webhook.lastUseAt),
    last_response_status_code: webhook.lastResponseStatusCode,
    last_response: webhook.lastResponse,
    subscribed_events: { ...webhook.subscribed_events },
    // "The token field is auth_token, shown on create and regenerate only."
    ...(tokenField ? { [tokenField]: webhook.authToken } : {}),
  };
}

/** UTC time in whole seconds, `2026-12-01T08:00:00Z`: the documented form of every server-set time. */
export function isoSeconds(millis: number): string {
  return `${new Date(millis).toISOString().slice(0, 19)}Z`;
}

export function ownWebhook(world: World, partner: PartnerRecord, webhookId: number): WebhookRecord {
  const webhook = world.state.webhooks.get(webhookId);
  if (!webhook || webhook.partnerId !== partner.partnerId) throw notFound();
  return webhook;
}

interface WebhookFields {
  url?: string;
  name?: string | null;
  is_enabled?: boolean;
  subscribed_events?: Record<WebhookEventType, boolean>;
}

function readWebhookFields(body: Record<string, unknown>, mode: 'create' | 'update'): WebhookFields {
  const fields = new FieldCollector();
  const result: WebhookFields = {};
  // url: "HTTP or HTTPS address receiving the POSTs. Max 500 characters." Required on create.
  const url = fields.string(body, 'url', { max: MAX_WEBHOOK_URL_LENGTH, required: mode === 'create' });
  if (typeof url === 'string') {
    if (!isHttpUrl(url)) fields.add('url', 'Enter a valid http or https URL.');
    // A URL with user:password@ can never be delivered to (fetch refuses it): refuse it now.
    else if (parseUrl(url)!.username !== '' || parseUrl(url)!.password !== '')
      fields.add(
        'url',
        'Must not contain credentials (user:password@); deliveries carry the webhook token instead.',
      );
    else result.url = url;
  }
  // name: "Optional label. Max 125 characters." (nullable)
  const name = fields.string(body, 'name', { max: MAX_WEBHOOK_NAME_LENGTH, nullable: true });
  if (name !== undefined) result.name = name;
  result.is_enabled = fields.boolean(body, 'is_enabled');
  if (body.subscribed_events !== undefined) {
    // "subscribed_events keys are the event names; unknown keys are a 400; omitted means all."
    if (!isPlainObject(body.subscribed_events))
      fields.add('subscribed_events', 'Expected an object mapping event names to booleans.');
    else {
      const events = Object.fromEntries(EVENT_TYPES.map((event) => [event, false])) as Record<
        WebhookEventType,
        boolean
      >;
      for (const [key, value] of Object.entries(body.subscribed_events)) {
        if (!(EVENT_TYPES as readonly string[]).includes(key))
          fields.add(`subscribed_events.${key}`, `Unknown event; expected one of ${EVENT_TYPES.join(', ')}.`);
        else if (typeof value !== 'boolean') fields.add(`subscribed_events.${key}`, 'Expected a boolean.');
        else events[key as WebhookEventType] = value;
      }
      result.subscribed_events = events;
    }
  }
  fields.throwIfAny();
  return result;
}

export function createWebhook(world: World, partner: PartnerRecord, input: unknown): WebhookRecord {
  const fields = readWebhookFields(requireObject(input), 'create');
  const { state, clock } = world;
  let owned = 0;
  for (const webhook of state.webhooks.values()) if (webhook.partnerId === partner.partnerId) owned += 1;
  if (owned >= MAX_WEBHOOKS_PER_PARTNER)
    throw limitReached('webhooks per partner', MAX_WEBHOOKS_PER_PARTNER, 'Delete one you no longer use.');
  const now = clock.now();
  const webhook: WebhookRecord = {
    id: state.nextWebhookId++,
    partnerId: partner.partnerId,
    url: fields.url!,
    name: fields.name ?? null,
    is_enabled: fields.is_enabled ?? true,
    subscribed_events:
      fields.subscribed_events ??
      (Object.fromEntries(EVENT_TYPES.map((event) => [event, true])) as Record<WebhookEventType, boolean>),
    authToken: randomToken('whk_'),
    createdAt: now,
    updatedAt: now,
    lastUseAt: null,
    lastResponseStatusCode: null,
    lastResponse: null,
  };
  state.webhooks.set(webhook.id, webhook);
  return webhook;
}

/** The partner's webhooks, by id. */
export function listWebhooks(world: World, partner: PartnerRecord): WebhookRecord[] {
  return [...world.state.webhooks.values()]
    .filter((webhook) => webhook.partnerId === partner.partnerId)
    .sort((a, b) => a.id - b.id);
}

/** Fields present are changed; `subscribed_events` given replaces the whole map. Pausing drops pending retries. */
export function updateWebhook(
  world: World,
  partner: PartnerRecord,
  webhookId: number,
  input: unknown,
): WebhookRecord {
  const body = requireObject(input, true);
  const webhook = ownWebhook(world, partner, webhookId);
  const fields = readWebhookFields(body, 'update');
  if (fields.url !== undefined) webhook.url = fields.url;
  if (fields.name !== undefined) webhook.name = fields.name;
  if (fields.is_enabled !== undefined) webhook.is_enabled = fields.is_enabled;
  if (fields.subscribed_events !== undefined) webhook.subscribed_events = fields.subscribed_events;
  webhook.updatedAt = world.clock.now();
  return webhook;
}

/** "Deletion is permanent; no further deliveries are attempted." */
export function deleteWebhook(world: World, partner: PartnerRecord, webhookId: number): void {
  const webhook = ownWebhook(world, partner, webhookId);
  world.state.webhooks.delete(webhook.id);
  world.state.pendingDeliveries = world.state.pendingDeliveries.filter(
    (item) => item.webhookId !== webhook.id,
  );
}

/** "The previous token is invalidated at once." */
export function regenerateWebhookToken(
  world: World,
  partner: PartnerRecord,
  webhookId: number,
): WebhookRecord {
  const webhook = ownWebhook(world, partner, webhookId);
  webhook.authToken = randomToken('whk_');
  webhook.updatedAt = world.clock.now();
  return webhook;
}
