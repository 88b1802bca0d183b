/**
 * The framework-neutral receiver: token check, envelope reading, duplicate handling and dispatch
 * to the partner's handlers, using Web APIs only (Request, Response, Web Crypto, TextDecoder).
 * The node adapter (`node-adapter.ts`) feeds the same core from `node:http` and Express.
 * @module
 */
import { createConsoleLogger } from '../logger.js';
import { TEST_EVENT } from '../resources/event-names.js';
import { asWebhookError, createAnswers } from './answers.js';
import { readRequestBody } from './body.js';
import { createDeliverySteps, OpenDelivery } from './delivery-steps.js';
import { createDispatcher } from './dispatch.js';
import { createDuplicateKeys } from './duplicate-keys.js';
import { createMemoryDuplicateStore } from './duplicates.js';
import { RESERVATION_EVENT_TYPES, UNKNOWN_EVENT } from './events.js';
import { createNodeHandler } from './node-adapter.js';
import {
  checkClaimLength,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_HANDLER_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_TOKENS_TIMEOUT_MS,
  validateOptions,
} from './options.js';
import { redactTokens } from './redaction.js';
import { createAuthenticator } from './token-provider.js';
import type {
  BodyReader,
  WebhookHandler,
  WebhookLogger,
  WebhookReceiver,
  WebhookReceiverOptions,
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
  const duplicateStore =
    options.duplicateStore === false ? undefined : (options.duplicateStore ?? createMemoryDuplicateStore());
  const logger = options.logger === false ? undefined : (options.logger ?? consoleWarnings);
  const handlerTimeoutMs = options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS;
  checkClaimLength(duplicateStore, handlerTimeoutMs);
  const handlersByType = new Map<string, WebhookHandler[]>();
  const { log, refusal, accepted } = createAnswers(logger, options.onError);
  const steps = createDeliverySteps({
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    bodyTimeoutMs: options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
    authenticate: createAuthenticator(
      tokenSource,
      options.tokenHeader?.toLowerCase(),
      options.tokensTimeoutMs ?? DEFAULT_TOKENS_TIMEOUT_MS,
    ),
    duplicateKey: duplicateStore
      ? createDuplicateKeys(options.webhookId === undefined ? undefined : String(options.webhookId))
      : undefined,
    dispatcher: createDispatcher({
      duplicateStore,
      handlersByType,
      handlerTimeoutMs,
      debug: typeof logger?.debug === 'function',
      log,
      refusal,
      accepted,
      redact: redactTokens,
    }),
    refusal,
  });

  const receiver: WebhookReceiver = {
    async verify(input) {
      try {
        return await steps.verify(input?.headers, input?.body);
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
      const opened = await steps.open(input.method, input.headers, input.body);
      if (!(opened instanceof OpenDelivery)) return opened;
      let body = opened.given;
      if (body === undefined) {
        try {
          body = await steps.readBody(input.body as BodyReader, startedAt);
        } catch (cause) {
          return steps.refuse(opened, cause);
        }
      }
      return await steps.finish(opened, body);
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
