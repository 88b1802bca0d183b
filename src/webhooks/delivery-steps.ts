/**
 * The steps of one delivery, shared by `receive()` and the node adapter (which reads the body
 * itself): `open` with the method, headers and token; the body under its limits; `finish` with
 * the event, its duplicate key and its handlers; `refuse` when the body could not be read.
 * @module
 */
import { asWebhookError } from './answers.js';
import { asRawBody, READABLE_MEDIA_TYPE } from './body.js';
import { BodyDeadlines } from './body-deadlines.js';
import type { createDispatcher } from './dispatch.js';
import {
  WebhookBodyTimeoutError,
  WebhookConfigurationError,
  WebhookMethodNotAllowedError,
  WebhookPayloadTooLargeError,
  WebhookUnsupportedMediaTypeError,
  type WebhookError,
} from './errors.js';
import type { WebhookEvent } from './events.js';
import { type HeaderReader, type HeadersInput, readHeaders } from './headers.js';
import { readEvent } from './read-event.js';
import { withTimeLimit } from './time-limit.js';
import { NO_TOKENS, type Verified } from './token-provider.js';
import type { BodyReader, ReceiveInput, WebhookResult } from './types.js';

/** A delivery whose method, token and headers passed, with its body when it came with it. */
export class OpenDelivery {
  constructor(
    readonly verified: Verified,
    readonly given: Uint8Array | string | undefined,
  ) {}
}

/**
 * The receiver's steps for one delivery: `open` with the headers, then the body (`readBody`, or
 * read by an adapter), then `finish` with it, or `refuse` when it could not be read. None rejects:
 * every failure is an answer.
 */
export interface DeliverySteps {
  open(
    method: string | undefined,
    headers: HeadersInput,
    body: ReceiveInput['body'],
  ): Promise<OpenDelivery | WebhookResult>;
  /** Calls `read` under the body's time limit, which started at `startedAt` (`Date.now()` when the headers came). */
  readBody(read: BodyReader, startedAt: number): Promise<Uint8Array>;
  finish(delivery: OpenDelivery, body: Uint8Array | string): Promise<WebhookResult>;
  refuse(delivery: OpenDelivery, cause: unknown): WebhookResult;
  /** `verify()`: the token, the headers and the body as an event, without the duplicate store; throws. */
  verify(headers: HeadersInput, body: ReceiveInput['body']): Promise<WebhookEvent>;
  readonly maxBodyBytes: number;
  readonly bodyTimeoutMs: number;
  /** One timer for every body being read (see `bodyTimeoutMs`). */
  readonly bodyDeadlines: BodyDeadlines;
}

/** What {@link createDeliverySteps} needs from its receiver, its options resolved. */
export interface StepOptions {
  maxBodyBytes: number;
  bodyTimeoutMs: number;
  authenticate: (readHeader: HeaderReader) => Promise<Verified>;
  /** The delivery's key in the duplicate store; undefined without a store. */
  duplicateKey: ((event: WebhookEvent, token: string) => Promise<string>) | undefined;
  dispatcher: ReturnType<typeof createDispatcher>;
  refusal: (error: WebhookError, tokens: readonly string[], event?: WebhookEvent) => WebhookResult;
}

export function createDeliverySteps(options: StepOptions): DeliverySteps {
  const { maxBodyBytes, bodyTimeoutMs, authenticate, duplicateKey, dispatcher, refusal } = options;

  /** What the headers must say before the body is read: a readable media type, a length in bounds. */
  function checkHeaders(readHeader: HeaderReader): void {
    const contentType = readHeader('content-type')[0]?.split(';')[0]?.trim();
    // A missing Content-Type is tolerated too: the body is read as JSON all the same.
    if (contentType && !READABLE_MEDIA_TYPE.test(contentType))
      throw new WebhookUnsupportedMediaTypeError(contentType);
    const declaredLength = Number(readHeader('content-length')[0]);
    if (Number.isFinite(declaredLength) && declaredLength > maxBodyBytes)
      throw new WebhookPayloadTooLargeError(maxBodyBytes);
  }

  function readBody(read: BodyReader, startedAt: number): Promise<Uint8Array> {
    return withTimeLimit(
      () => read(maxBodyBytes),
      Math.max(0, startedAt + bodyTimeoutMs - Date.now()),
      () => new WebhookBodyTimeoutError(bodyTimeoutMs),
    );
  }

  async function verify(headers: HeadersInput, body: ReceiveInput['body']): Promise<WebhookEvent> {
    // A parsed body is a mistake in the partner's app, reported before anything about the request.
    const given = typeof body === 'function' ? undefined : asRawBody(body);
    const readHeader = readHeaders(headers);
    await authenticate(readHeader);
    checkHeaders(readHeader);
    return readEvent(given ?? (await readBody(body as BodyReader, Date.now())), maxBodyBytes);
  }

  /** Method, raw body, token and headers: the delivery ready for its body, or the refusal. */
  async function open(
    method: string | undefined,
    headers: HeadersInput,
    body: ReceiveInput['body'],
  ): Promise<OpenDelivery | WebhookResult> {
    let verified: Verified;
    let readHeader: HeaderReader;
    let given: Uint8Array | string | undefined;
    try {
      if (method !== undefined && method !== 'POST' && method.toUpperCase() !== 'POST')
        throw new WebhookMethodNotAllowedError(method);
      // A parsed body is a mistake in the partner's app, reported before anything about the request.
      given = typeof body === 'function' ? undefined : asRawBody(body);
      readHeader = readHeaders(headers);
      verified = await authenticate(readHeader);
    } catch (cause) {
      return refusal(asWebhookError(cause), NO_TOKENS);
    }
    try {
      checkHeaders(readHeader);
    } catch (cause) {
      return refusal(asWebhookError(cause), verified.tokens);
    }
    return new OpenDelivery(verified, given);
  }

  /** The body arrived: the event, its duplicate key, then its answer. */
  async function finish(delivery: OpenDelivery, body: Uint8Array | string): Promise<WebhookResult> {
    const { tokens, token } = delivery.verified;
    let event: WebhookEvent;
    try {
      event = await readEvent(body, maxBodyBytes);
    } catch (cause) {
      return refuse(delivery, cause);
    }
    if (!duplicateKey) return await dispatcher.process(event, undefined, tokens);
    let key: string;
    try {
      key = await duplicateKey(event, token);
    } catch (cause) {
      const error = new WebhookConfigurationError('The delivery could not be keyed for the duplicate store', {
        cause,
      });
      return refusal(error, tokens, event);
    }
    return await dispatcher.processKeyed(event, key, tokens);
  }

  const refuse = (delivery: OpenDelivery, cause: unknown): WebhookResult =>
    refusal(asWebhookError(cause), delivery.verified.tokens);

  return {
    open,
    readBody,
    finish,
    refuse,
    verify,
    maxBodyBytes,
    bodyTimeoutMs,
    bodyDeadlines: new BodyDeadlines(),
  };
}
