/**
 * The partner API's webhook routes (mirrors the client's `webhooks` resource).
 * @module
 */
import * as webhooks from '../backend/webhooks.js';
import { empty, json } from '../http.js';
import type { ApiCall } from './call.js';

/** POST `/webhooks/`: answers with the token (`auth_token`, or the `webhookTokenField` dialect), the only time besides regeneration. */
export function createWebhook(call: ApiCall): Response {
  return json(
    call.backend.dialect.createStatus,
    webhooks.webhookView(
      webhooks.createWebhook(call.backend, call.partner, call.body),
      call.backend.dialect.webhookTokenField,
    ),
  );
}

/** GET `/webhooks/`: a bare array, by id (as the restaurant list). */
export function listWebhooks(call: ApiCall): Response {
  return json(
    200,
    webhooks.listWebhooks(call.backend, call.partner).map((webhook) => webhooks.webhookView(webhook)),
  );
}

export function retrieveWebhook(call: ApiCall): Response {
  return json(
    200,
    webhooks.webhookView(webhooks.ownWebhook(call.backend, call.partner, call.params.webhookId!)),
  );
}

export function updateWebhook(call: ApiCall): Response {
  return json(
    200,
    webhooks.webhookView(
      webhooks.updateWebhook(call.backend, call.partner, call.params.webhookId!, call.body),
    ),
  );
}

/** DELETE `/webhooks/:id/`: 204 by default (the `deleteStatus` dialect). */
export function deleteWebhook(call: ApiCall): Response {
  webhooks.deleteWebhook(call.backend, call.partner, call.params.webhookId!);
  return empty(call.backend.dialect.deleteStatus);
}

/** POST `/webhooks/:id/auth-token/`: "The previous token is invalidated at once." */
export function regenerateWebhookToken(call: ApiCall): Response {
  return json(
    200,
    webhooks.webhookView(
      webhooks.regenerateWebhookToken(call.backend, call.partner, call.params.webhookId!),
      call.backend.dialect.webhookTokenField,
    ),
  );
}

/**
 * POST `/webhooks/:id/test/`: "A test payload is sent to the webhook's url; the delivery is
 * recorded ... like a real delivery." Sent even to a paused webhook (the partner asked for this
 * one delivery; events are not sent to it), once, without retries; the answer waits for the
 * attempt so it carries the new metadata.
 */
export async function testWebhook(call: ApiCall): Promise<Response> {
  const webhook = webhooks.ownWebhook(call.backend, call.partner, call.params.webhookId!);
  await call.backend.deliveries.sendTest(webhook);
  return json(200, webhooks.webhookView(call.backend.state.webhooks.get(webhook.id) ?? webhook));
}
