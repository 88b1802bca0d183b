/**
 * The framework-neutral receiver: token check, envelope reading, duplicate handling and dispatch
 * to the partner's handlers, using Web APIs only (Request, Response, Web Crypto, TextDecoder).
 * The node adapter (`node-adapter.ts`) feeds the same core from `node:http` and Express.
 * @module
 */
import { createConsoleLogger } from '../logger.js';
import { TEST_EVENT } from '../resources/event-names.js';
import { asWebhookError, createAnswers } from './answers.js';
import { asRawBody, READABLE_MEDIA_TYPE, readRequestBody } from './body.js';
import { BodyDeadlines } from './body-deadlines.js';
import { createDispatcher } from './dispatch.js';
import { createDuplicateKeys } from './duplicate-keys.js';
import { createMemoryDuplicateStore } from './duplicates.js';
import {
  WebhookBodyTimeoutError,
  WebhookConfigurationError,
  WebhookMethodNotAllowedError,
  WebhookPayloadTooLargeError,
  WebhookUnsupportedMediaTypeError,
} from './errors.js';
import { RESERVATION_EVENT_TYPES, UNKNOWN_EVENT, type WebhookEvent } from './events.js';
import { type HeaderReader, type HeadersInput, readHeaders } from './headers.js';
import { createNodeHandler } from './node-adapter.js';
import {
  checkClaimLength,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_HANDLER_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_TOKENS_TIMEOUT_MS,
  validateOptions,
} from './options.js';
import { readEvent } from './read-event.js';
import { redactTokens } from './redaction.js';
import { type Soon, withTimeLimit } from './time-limit.js';
import { createAuthenticator, NO_TOKENS, type Verified } from './token-provider.js';
import type {
  BodyReader,
  ReceiveInput,
  WebhookHandler,
  WebhookLogger,
  WebhookReceiver,
  WebhookReceiverOptions,
  WebhookResult,
} from './types.js';

// The default: refusals and failures only, so a busy endpoint's console is not flooded.
const consoleWarnings: WebhookLogger = createConsoleLogger('[restaurant-partner-sdk/webhooks]');

const HANDLER_KEYS: ReadonlySet<string> = new Set([
  ...RESERVATION_EVENT_TYPES,
  TEST_EVENT,
  UNKNOWN_EVENT,
  '*',
]);

/**
 * Creates a webhook receiver: it checks each delivery's token in constant time, reads the
 * envelope tolerantly into a typed event, drops repeated deliveries, and runs your handlers.
 *
 * @example Express: mount before express.json(), or on a route without it
 * ```ts
 * import { createWebhookReceiver } from 'restaurant-partner-sdk/webhooks';
 * const receiver = createWebhookReceiver({ tokens: [process.env.WEBHOOK_TOKEN!] })
 *   .on('RESERVATION_CONFIRMED', async (event) => markConfirmed(event.reservation.id))
 *   .on('RESERVATION_CANCELLED', async (event) => release(event.reservation.id));
 * app.post('/webhooks/reservations', receiver.nodeHandler());
 * ```
 * @example Fetch-style (Hono, Next.js, Bun, Deno)
 * ```ts
 * export const POST = (request: Request) => receiver.handle(request);
 * ```
 */
export function createWebhookReceiver(options: WebhookReceiverOptions): WebhookReceiver {
  const tokenSource = validateOptions(options);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  const tokenHeader = options.tokenHeader?.toLowerCase();
  const duplicateStore =
    options.duplicateStore === false ? undefined : (options.duplicateStore ?? createMemoryDuplicateStore());
  const logger = options.logger === false ? undefined : (options.logger ?? consoleWarnings);
  const handlerTimeoutMs = options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS;
  const tokensTimeoutMs = options.tokensTimeoutMs ?? DEFAULT_TOKENS_TIMEOUT_MS;
  checkClaimLength(duplicateStore, handlerTimeoutMs);
  const ownWebhookId = options.webhookId === undefined ? undefined : String(options.webhookId);
  const handlersByType = new Map<string, WebhookHandler[]>();
  const authenticate = createAuthenticator(tokenSource, tokenHeader, tokensTimeoutMs);
  const duplicateKey = createDuplicateKeys(ownWebhookId);
  const { log, refusal, accepted } = createAnswers(logger, options.onError);

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

  /** Calls `read` under the body's time limit, which started at `startedAt` (the headers). */
  function readBodyInTime(read: BodyReader, startedAt: number): Promise<Uint8Array> {
    return withTimeLimit(
      () => read(maxBodyBytes),
      Math.max(0, startedAt + bodyTimeoutMs - Date.now()),
      () => new WebhookBodyTimeoutError(bodyTimeoutMs),
    );
  }

  /** `verify()`: the token, the headers and the body as an event, without the duplicate store. */
  async function verifyDelivery(headers: HeadersInput, body: ReceiveInput['body']): Promise<WebhookEvent> {
    // A parsed body is a mistake in the partner's app, reported before anything about the request.
    const given = typeof body === 'function' ? undefined : asRawBody(body);
    const readHeader = readHeaders(headers);
    await authenticate(readHeader);
    checkHeaders(readHeader);
    return readEvent(given ?? (await readBodyInTime(body as BodyReader, Date.now())), maxBodyBytes);
  }

  const { process, processKeyed } = createDispatcher({
    duplicateStore,
    handlersByType,
    handlerTimeoutMs,
    debug: typeof logger?.debug === 'function',
    log,
    refusal,
    accepted,
    redact: redactTokens,
  });

  function processOnce(event: WebhookEvent, verified: Verified): Soon<WebhookResult> {
    if (!duplicateStore) return process(event, undefined, verified.tokens);
    let key: Soon<string>;
    try {
      key = duplicateKey(event, verified.token);
    } catch (cause) {
      return unkeyed(cause, event, verified);
    }
    if (!(key instanceof Promise)) return processKeyed(event, key, verified.tokens);
    return keyLater(key, event, verified);
  }

  const keyLater = (key: Promise<string>, event: WebhookEvent, verified: Verified): Promise<WebhookResult> =>
    key.then(
      (known) => processKeyed(event, known, verified.tokens),
      (cause: unknown) => unkeyed(cause, event, verified),
    );

  const unkeyed = (cause: unknown, event: WebhookEvent, verified: Verified): WebhookResult =>
    refusal(
      new WebhookConfigurationError('The delivery could not be keyed for the duplicate store', { cause }),
      verified.tokens,
      event,
    );

  /** Method, raw body, token and headers: the delivery ready for its body, or the refusal. */
  function open(
    method: string | undefined,
    headers: HeadersInput,
    body: ReceiveInput['body'],
  ): Soon<OpenDelivery | WebhookResult> {
    let verified: Soon<Verified>;
    let readHeader: HeaderReader;
    let given: Uint8Array | string | undefined;
    try {
      if (method !== undefined && method !== 'POST' && method.toUpperCase() !== 'POST')
        throw new WebhookMethodNotAllowedError(method);
      // A parsed body is a mistake in the partner's app, reported before anything about the request.
      given = typeof body === 'function' ? undefined : asRawBody(body);
      readHeader = readHeaders(headers);
      verified = authenticate(readHeader);
    } catch (cause) {
      return refusal(asWebhookError(cause), NO_TOKENS);
    }
    if (!(verified instanceof Promise)) return checkOpen(verified, readHeader, given);
    return openLater(verified, readHeader, given);
  }

  function checkOpen(
    verified: Verified,
    readHeader: HeaderReader,
    given: Uint8Array | string | undefined,
  ): OpenDelivery | WebhookResult {
    try {
      checkHeaders(readHeader);
    } catch (cause) {
      return refusal(asWebhookError(cause), verified.tokens);
    }
    return new OpenDelivery(verified, given);
  }

  const openLater = (
    verified: Promise<Verified>,
    readHeader: HeaderReader,
    given: Uint8Array | string | undefined,
  ): Promise<OpenDelivery | WebhookResult> =>
    verified.then(
      (known) => checkOpen(known, readHeader, given),
      (cause: unknown) => refusal(asWebhookError(cause), NO_TOKENS),
    );

  /** The body arrived: the event, then its answer. */
  function finish(delivery: OpenDelivery, body: Uint8Array | string): Soon<WebhookResult> {
    let event: Soon<WebhookEvent>;
    try {
      event = readEvent(body, maxBodyBytes);
    } catch (cause) {
      return refuse(delivery, cause);
    }
    if (!(event instanceof Promise)) return processOnce(event, delivery.verified);
    return eventLater(event, delivery);
  }

  const eventLater = (event: Promise<WebhookEvent>, delivery: OpenDelivery): Promise<WebhookResult> =>
    event.then(
      (known) => processOnce(known, delivery.verified),
      (cause: unknown) => refuse(delivery, cause),
    );

  const refuse = (delivery: OpenDelivery, cause: unknown): WebhookResult =>
    refusal(asWebhookError(cause), delivery.verified.tokens);

  const steps: DeliverySteps = {
    open,
    finish,
    refuse,
    maxBodyBytes,
    bodyTimeoutMs,
    bodyDeadlines: new BodyDeadlines(),
  };

  const receiver: WebhookReceiver = {
    async verify(input) {
      try {
        return await verifyDelivery(input?.headers, input?.body);
      } catch (error) {
        throw asWebhookError(error);
      }
    },
    on(type: string, handler: WebhookHandler<never>) {
      if (!HANDLER_KEYS.has(type)) {
        // A typo such as RESERVATION_CANCELED would otherwise never fire, silently.
        throw new TypeError(
          `on(${JSON.stringify(type)}): not an event type; expected one of ${[...HANDLER_KEYS].join(', ')}`,
        );
      }
      if (typeof handler !== 'function')
        throw new TypeError(`on(${JSON.stringify(type)}, handler): handler must be a function`);
      handlersByType.set(type, [...(handlersByType.get(type) ?? []), handler as WebhookHandler]);
      return receiver;
    },
    onUnknown(handler) {
      return receiver.on(UNKNOWN_EVENT, handler);
    },
    async receive(input) {
      // The body's time limit counts from here: the headers have arrived.
      const startedAt = Date.now();
      const opened = await open(input.method, input.headers, input.body);
      if (!(opened instanceof OpenDelivery)) return opened;
      let body = opened.given;
      if (body === undefined) {
        try {
          body = await readBodyInTime(input.body as BodyReader, startedAt);
        } catch (cause) {
          return refuse(opened, cause);
        }
      }
      return finish(opened, body);
    },
    async handle(request) {
      const reading = { stop: () => {} };
      const result = await receiver.receive({
        method: request.method,
        headers: request.headers,
        body: (maxBytes) => readRequestBody(request, maxBytes, reading),
      });
      // A trickling body is not read on after its 408.
      if (result.status === 408) reading.stop();
      return new Response(JSON.stringify(result.body), { status: result.status, headers: result.headers });
    },
    nodeHandler() {
      return createNodeHandler(receiver, steps);
    },
  };
  return receiver;
}

/** A delivery whose method, token and headers passed, with its body when it came with it. */
export class OpenDelivery {
  constructor(
    readonly verified: Verified,
    readonly given: Uint8Array | string | undefined,
  ) {}
}

/**
 * The receiver's steps for an adapter that reads the body itself (`nodeHandler()`): `open` with
 * the headers, then `finish` with the body, or `refuse` when it could not be read.
 */
export interface DeliverySteps {
  open(
    method: string | undefined,
    headers: HeadersInput,
    body: ReceiveInput['body'],
  ): Soon<OpenDelivery | WebhookResult>;
  finish(delivery: OpenDelivery, body: Uint8Array | string): Soon<WebhookResult>;
  refuse(delivery: OpenDelivery, cause: unknown): WebhookResult;
  readonly maxBodyBytes: number;
  readonly bodyTimeoutMs: number;
  /** One timer for every body being read (see `bodyTimeoutMs`). */
  readonly bodyDeadlines: BodyDeadlines;
}
