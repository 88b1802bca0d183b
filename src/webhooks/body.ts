/**
 * Reading a delivery's body: the raw bytes or text as received (a parsed body is a mounting
 * mistake), a fetch `Request`'s stream under the size limit, and its digest.
 * @module
 */
import { readLimited } from './body-collector.js';
import { WebhookPayloadError, WebhookPayloadTooLargeError, WebhookRawBodyRequiredError } from './errors.js';

const describeValue = (value: unknown): string => {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined (was the body read by another middleware?)';
  if (Array.isArray(value)) return 'an array (a parsed JSON body?)';
  if (typeof value === 'object')
    return `${value.constructor?.name === 'Object' ? 'a plain object' : `a ${value.constructor?.name ?? 'object'}`} (a parsed body?)`;
  return `a ${typeof value}`;
};

/** The raw body as bytes or text; a parsed object, a stream or nothing is a mounting mistake. */
export function asRawBody(body: unknown): Uint8Array | string {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  throw new WebhookRawBodyRequiredError(describeValue(body));
}

export const encoder = new TextEncoder();
// One decoder for every delivery: a non-streaming decode keeps no state between calls.
export const utf8 = new TextDecoder('utf-8', { fatal: true });
// JSON media types, and the generic ones a sender may put on JSON (the live service's headers are
// not published: refusing `text/plain` JSON would lose every event). Only a Content-Type naming
// another format (a form, XML, HTML, multipart) is refused with 415.
export const READABLE_MEDIA_TYPE =
  /^(?:application\/(?:[\w.+-]+\+)?json|text\/(?:[\w.+-]+\+)?json|text\/plain|application\/octet-stream)$/i;
export const BYTE_ORDER_MARK = '\uFEFF';

export const hex = (bytes: ArrayBuffer): string =>
  Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, '0')).join('');

export async function bodyDigestId(bytes: Uint8Array): Promise<string> {
  return `sha256:${hex(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>))}`;
}

/**
 * Reads a fetch `Request` body, cancelling the stream past `maxBytes`. `reading.stop` cancels it
 * from outside (the body's time ran out): the reader holds the stream's lock, so only it can.
 */
export async function readRequestBody(
  request: Request,
  maxBytes: number,
  reading: { stop(): void },
): Promise<Uint8Array> {
  if (request.bodyUsed) throw new WebhookRawBodyRequiredError('a Request whose body was already read');
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  reading.stop = () => void reader.cancel().catch(() => undefined);
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readLimited(reader, maxBytes);
  } catch (error) {
    throw new WebhookPayloadError('The request body could not be read', [], { cause: error });
  }
  if (!bytes) throw new WebhookPayloadTooLargeError(maxBytes);
  return bytes;
}
