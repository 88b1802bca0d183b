/**
 * From the body's bytes to the typed event: its size, UTF-8, JSON (refused unparsed when too deeply
 * nested) and envelope, with a digest of the body as the delivery id when the envelope has none.
 * @module
 */
import { unreadableJson } from '../transport/json-depth.js';
import { BYTE_ORDER_MARK, bodyDigestId, encoder, utf8 } from './body.js';
import { WebhookPayloadError, WebhookPayloadTooLargeError } from './errors.js';
import { envelopeDeliveryId, parseWebhookEvent, type WebhookEvent } from './events.js';
import type { Soon } from './time-limit.js';

/** The body as an event: its size, UTF-8, JSON and envelope (at once unless it needs a digest). */
export function readEvent(given: Uint8Array | string, maxBodyBytes: number): Soon<WebhookEvent> {
  const bytes = typeof given === 'string' ? undefined : given;
  const size = bytes ? bytes.byteLength : given.length;
  // A string's UTF-8 size is at least its length: the exact size is only needed near the limit.
  if (
    size > maxBodyBytes ||
    (bytes === undefined &&
      size * 3 > maxBodyBytes &&
      encoder.encode(given as string).byteLength > maxBodyBytes)
  ) {
    throw new WebhookPayloadTooLargeError(maxBodyBytes);
  }

  let text: string;
  try {
    // The decoder drops a leading byte-order mark; a string body that kept one is read the same way.
    text =
      typeof given === 'string'
        ? given.startsWith(BYTE_ORDER_MARK)
          ? given.slice(1)
          : given
        : utf8.decode(bytes);
  } catch (error) {
    throw new WebhookPayloadError('Webhook body is not valid UTF-8', [], { cause: error });
  }
  // Parsed, a body of a few hundred KiB nesting `[[[[...` costs tens of MB: refused unparsed.
  const unreadable = unreadableJson(text);
  if (unreadable) throw new WebhookPayloadError(`Webhook body refused: ${unreadable.message}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    if (text.trim() === '') throw new WebhookPayloadError('Webhook body is empty');
    throw new WebhookPayloadError('Webhook body is not valid JSON', [], { cause: error });
  }
  // The body's digest stands in for a delivery id only when the envelope carries none.
  if (envelopeDeliveryId(json) !== undefined) return parseWebhookEvent(json, undefined);
  return bodyDigestId(bytes ?? encoder.encode(given as string)).then((fallbackId) =>
    parseWebhookEvent(json, fallbackId),
  );
}
