/**
 * Where a delivery is kept in the duplicate store: by the webhook it was sent for, else by a
 * fingerprint of the token that verified it (see the `duplicateStore` option).
 * @module
 */
import type { WebhookEvent } from './events.js';
import { envelopeWebhookId } from './events.js';
import { encoder, hex } from './body.js';

/**
 * The delivery within its webhook: its event name, its reservation's id (empty without one) and
 * its id. A retry repeats all three, and ids that repeat across event types or reservations (a
 * service numbering each kind apart) still make two keys. Encoded, so that a `:` in what the
 * sender wrote cannot run into the next part.
 */
export function deliveryPart(event: WebhookEvent): string {
  const id = (event.reservation as { id?: unknown } | null | undefined)?.id;
  const reservationId = typeof id === 'number' || (typeof id === 'string' && id !== '') ? String(id) : '';
  return `${encodeURIComponent(event.event)}:${encodeURIComponent(reservationId)}:${event.id}`;
}

/** The keys of one receiver; `ownWebhookId` is its `webhookId` option. */
export function createDuplicateKeys(
  ownWebhookId: string | undefined,
): (event: WebhookEvent, token: string) => string | Promise<string> {
  // Fingerprints of webhook tokens (keying deliveries that name no webhook), computed once per token.
  const fingerprints = new Map<string, Promise<string>>();

  /** Where the delivery is kept in the duplicate store (see the `duplicateStore` option). */
  function duplicateKey(event: WebhookEvent, token: string): string | Promise<string> {
    const webhookId = envelopeWebhookId(event) ?? ownWebhookId;
    if (webhookId !== undefined) return `webhook-${encodeURIComponent(webhookId)}:${deliveryPart(event)}`;
    return tokenKey(event, token);
  }

  async function tokenKey(event: WebhookEvent, token: string): Promise<string> {
    let fingerprint = fingerprints.get(token);
    if (!fingerprint) {
      // Domain-separated and shortened: the key never carries the token, nor a digest of it alone.
      fingerprint = crypto.subtle
        .digest('SHA-256', encoder.encode(`restaurant-partner-sdk webhook\n${token}`))
        .then((digest) => hex(digest).slice(0, 16));
      if (fingerprints.size >= 64) fingerprints.clear();
      fingerprints.set(token, fingerprint);
    }
    return `token-${await fingerprint}:${deliveryPart(event)}`;
  }

  return duplicateKey;
}
