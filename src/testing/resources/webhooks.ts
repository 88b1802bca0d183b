/**
 * Webhook rules. The spec gives the fields, regenerate, test and delete; create, list, read and
 * update are "not shown", so the fake serves them at the REST paths the client uses.
 * @module
 */
import type { OperationContext } from '../context.js';
import { EVENT_TYPES, randomToken, type EventType, type WebhookRecord } from '../state.js';
import { FieldCollector, empty, fail, isHttpUrl, isPlainObject, json, notFound, requireObject } from '../wire.js';

function serializeWebhook(webhook: WebhookRecord, withToken = false): Record<string, unknown> {
  const at = (millis: number | null) => (millis === null ? null : new Date(millis).toISOString());
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
    // The fake's choice: the token field is auth_token, shown on create and regenerate only.
    ...(withToken ? { auth_token: webhook.authToken } : {}),
  };
}

function ownWebhook(context: OperationContext): WebhookRecord {
  const webhook = context.fake.state.webhooks.get(context.params.webhookId!);
  if (!webhook || webhook.partnerId !== context.partner.partnerId) return fail(notFound());
  return webhook;
}

interface WebhookFields {
  url?: string;
  name?: string | null;
  is_enabled?: boolean;
  subscribed_events?: Record<EventType, boolean>;
}

function readWebhookFields(body: Record<string, unknown>, mode: 'create' | 'update'): WebhookFields {
  const fields = new FieldCollector();
  const result: WebhookFields = {};
  // url: "HTTP or HTTPS address receiving the POSTs. Max 500 characters." Required on create.
  const url = fields.string(body, 'url', { max: 500, required: mode === 'create' });
  if (typeof url === 'string') {
    if (!isHttpUrl(url)) fields.add('url', 'Enter a valid http or https URL.');
    else result.url = url;
  }
  // name: "Optional label. Max 125 characters." (nullable)
  const name = fields.string(body, 'name', { max: 125, nullable: true });
  if (name !== undefined) result.name = name;
  result.is_enabled = fields.boolean(body, 'is_enabled');
  if (body.subscribed_events !== undefined) {
    // The fake's choice: subscribed_events keys are the event names; unknown keys are a 400; omitted means all.
    if (!isPlainObject(body.subscribed_events)) fields.add('subscribed_events', 'Expected an object mapping event names to booleans.');
    else {
      const events = Object.fromEntries(EVENT_TYPES.map((event) => [event, false])) as Record<EventType, boolean>;
      for (const [key, value] of Object.entries(body.subscribed_events)) {
        if (!(EVENT_TYPES as readonly string[]).includes(key)) fields.add(`subscribed_events.${key}`, `Unknown event; expected one of ${EVENT_TYPES.join(', ')}.`);
        else if (typeof value !== 'boolean') fields.add(`subscribed_events.${key}`, 'Expected a boolean.');
        else events[key as EventType] = value;
      }
      result.subscribed_events = events;
    }
  }
  fields.throwIfAny();
  return result;
}

/** POST `/webhooks/`. Answers with `auth_token`, the only time besides regeneration. */
export function createWebhook(context: OperationContext): Response {
  const body = requireObject(context.body);
  const input = readWebhookFields(body, 'create');
  const { state, clock, dialect } = context.fake;
  const now = clock.now();
  const webhook: WebhookRecord = {
    id: state.nextWebhookId++,
    partnerId: context.partner.partnerId,
    url: input.url!,
    name: input.name ?? null,
    is_enabled: input.is_enabled ?? true,
    subscribed_events: input.subscribed_events ?? (Object.fromEntries(EVENT_TYPES.map((event) => [event, true])) as Record<EventType, boolean>),
    authToken: randomToken('whk_'),
    createdAt: now,
    updatedAt: now,
    lastUseAt: null,
    lastResponseStatusCode: null,
    lastResponse: null,
  };
  state.webhooks.set(webhook.id, webhook);
  return json(dialect.createStatus, serializeWebhook(webhook, true));
}

/** GET `/webhooks/`: the partner's webhooks as a bare array, by id (as the restaurant list). */
export function listWebhooks(context: OperationContext): Response {
  const own = [...context.fake.state.webhooks.values()].filter((webhook) => webhook.partnerId === context.partner.partnerId).sort((a, b) => a.id - b.id);
  return json(200, own.map((webhook) => serializeWebhook(webhook)));
}

export function retrieveWebhook(context: OperationContext): Response {
  return json(200, serializeWebhook(ownWebhook(context)));
}

/** PATCH `/webhooks/:id/`: fields present are changed; `subscribed_events` given replaces the whole map. */
export function updateWebhook(context: OperationContext): Response {
  const body = requireObject(context.body, true);
  const webhook = ownWebhook(context);
  const input = readWebhookFields(body, 'update');
  if (input.url !== undefined) webhook.url = input.url;
  if (input.name !== undefined) webhook.name = input.name;
  if (input.is_enabled !== undefined) webhook.is_enabled = input.is_enabled;
  if (input.subscribed_events !== undefined) webhook.subscribed_events = input.subscribed_events;
  webhook.updatedAt = context.fake.clock.now();
  return json(200, serializeWebhook(webhook));
}

/** DELETE `/webhooks/:id/`: "Deletion is permanent; no further deliveries are attempted." */
export function deleteWebhook(context: OperationContext): Response {
  const webhook = ownWebhook(context);
  const { state, dialect } = context.fake;
  state.webhooks.delete(webhook.id);
  state.pendingDeliveries = state.pendingDeliveries.filter((item) => item.webhookId !== webhook.id);
  return empty(dialect.deleteStatus);
}

/** POST `/webhooks/:id/auth-token/`: "The previous token is invalidated at once." */
export function regenerateWebhookToken(context: OperationContext): Response {
  const webhook = ownWebhook(context);
  webhook.authToken = randomToken('whk_');
  webhook.updatedAt = context.fake.clock.now();
  return json(200, serializeWebhook(webhook, true));
}

/**
 * POST `/webhooks/:id/test/`: "A test payload is sent to the webhook's url; the delivery is
 * recorded ... like a real delivery." Sent even to a paused webhook (the partner asked for it),
 * once, without retries; the answer waits for the attempt so it carries the new metadata.
 */
export async function testWebhook(context: OperationContext): Promise<Response> {
  const webhook = ownWebhook(context);
  await context.fake.deliveryQueue.sendTest(webhook);
  const current = context.fake.state.webhooks.get(webhook.id) ?? webhook;
  return json(200, serializeWebhook(current));
}
