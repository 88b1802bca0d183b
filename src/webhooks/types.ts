/**
 * The receiver's public types: its options, its inputs and answers, and its handlers.
 * @module
 */
import type { Logger } from '../logger.js';
import type { DuplicateStore } from './duplicates.js';
import type { WebhookError } from './errors.js';
import type { UNKNOWN_EVENT, WebhookEvent, WebhookEventOf } from './events.js';
import type { HeadersInput } from './headers.js';
import type { NodeWebhookHandler } from './node-adapter.js';
import type { TokenSource } from './tokens.js';

/** A raw request body: the bytes or text exactly as received. */
export type RawBody = string | Uint8Array | ArrayBuffer | ArrayBufferView;

/**
 * Where the receiver writes what it refused and why: the client's {@link Logger}, so one logger
 * serves both. `console` fits. Never given a token.
 */
export type WebhookLogger = Logger;

/** What {@link WebhookReceiverOptions.onError} is told besides the error. */
export interface WebhookErrorContext {
  /** The HTTP status answered. */
  status: number;
  /** The verified event, when the failure came after verification (a handler that threw). */
  event?: WebhookEvent;
}

/** Options of `createWebhookReceiver`. */
export interface WebhookReceiverOptions {
  /**
   * The accepted webhook tokens. A list, or a function asked on every delivery (never cached),
   * so that a token removed from your secret store stops verifying at once. During a rotation
   * list both the old and the new token.
   */
  tokens: TokenSource;
  /**
   * A header that may carry the token besides `Authorization: Bearer <token>`, for example
   * `x-webhook-token` (its value is the token, or `Bearer <token>`).
   */
  tokenHeader?: string;
  /** Largest body accepted, in bytes; larger ones get 413 before the rest is read. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Longest time from the request's headers to the last byte of its body, in milliseconds (the
   * token check counts: it comes first). A sender that stalls or trickles is answered 408 and its
   * connection closed; no handler runs. Default 10 s.
   */
  bodyTimeoutMs?: number;
  /**
   * Where processed deliveries are remembered, to answer a repeated delivery 200 without running
   * the handler again. Default: an in-memory store (10 000 deliveries, 24 h). `false` turns the
   * check off. Several processes share `createRedisDuplicateStore` from
   * `restaurant-partner-sdk/redis`; a store with leases (`claim`) that it does not renew
   * (`renewsClaims`) must hold a claim at least `handlerTimeoutMs` + 5 s, or the receiver
   * refuses it.
   *
   * A delivery is keyed by the webhook it was sent for, then its event, reservation id and
   * delivery id (`webhook-12:RESERVATION_CONFIRMED:4021:evt_...`): two webhooks' deliveries never
   * pass for each other's duplicates, even if their ids repeat, and a delivery retried after a
   * token rotation is still a duplicate. The webhook's id is read from the delivery (`webhook_id`,
   * as the fake sends it), else taken from the `webhookId` option. A delivery with neither is keyed
   * by a fingerprint of the webhook token that verified it instead (`token-<16 hex digits>:...`,
   * from a SHA-256 digest: never the token): each webhook has its own token, but a delivery
   * retried with a rotated token is then run again.
   */
  duplicateStore?: DuplicateStore | false;
  /**
   * The id of the webhook this receiver serves (`webhook.id`), for deliveries that do not say
   * which webhook they were sent for: it keys them in the duplicate store instead of the token,
   * so a delivery retried after `regenerateToken` is still recognised. Leave it out when one
   * receiver serves several webhooks (their deliveries are then told apart by token).
   */
  webhookId?: string | number;
  /**
   * Where refused deliveries and failed handlers are logged (any client `Logger`).
   * Default: `console.warn` / `console.error` for refusals and failures only; `false` for none.
   */
  logger?: WebhookLogger | false;
  /**
   * Longest time the handlers of one delivery may take, in milliseconds. Past it the delivery is
   * answered 500, logged, and its id is not marked as processed (so a retry runs it again);
   * the handler's `signal` aborts. Default 30 s; keep it below the service's own delivery timeout.
   */
  handlerTimeoutMs?: number;
  /**
   * Longest time a `tokens` function may take to answer, in milliseconds. Past it the delivery is
   * answered 500 and logged. Default 10 s.
   */
  tokensTimeoutMs?: number;
  /** Called for every delivery answered outside 2xx (after logging). Must not throw. */
  onError?: (error: WebhookError, context: WebhookErrorContext) => void;
}

/** What a handler is given besides the event. */
export interface WebhookHandlerContext {
  /** Aborts when the handler runs past `handlerTimeoutMs` (the delivery is then answered 500). */
  signal: AbortSignal;
}

/**
 * A handler of one event type. Throwing (or rejecting), or running past `handlerTimeoutMs`,
 * answers 500 and leaves the delivery unmarked, so a retry of it runs the handler again (the fake
 * retries; the spec does not say whether the live service does).
 */
export type WebhookHandler<Event extends WebhookEvent = WebhookEvent> = (
  event: Event,
  context: WebhookHandlerContext,
) => unknown;

/** Input of {@link WebhookReceiver.verify}. */
export interface VerifyInput {
  /** The raw body as received: a string, `Uint8Array`, `Buffer` or `ArrayBuffer`. Not a parsed object. */
  body: RawBody;
  /** The request headers: a fetch `Headers`, node's `req.headers`, or a `Map`-like object. */
  headers: HeadersInput;
}

/** Input of {@link WebhookReceiver.receive}: a request from any framework. */
export interface ReceiveInput {
  /** HTTP method; anything but POST gets 405. Omit when the framework already routed POST only. */
  method?: string;
  headers: HeadersInput;
  /**
   * The raw body, or a function reading it that stops with a 413 error past `maxBytes`. Past
   * `bodyTimeoutMs` the result is a 408 without waiting for it: stop reading then (close the
   * connection), as `nodeHandler()` and `handle()` do.
   */
  body: RawBody | BodyReader;
}

/** Reads a request body: at most `maxBytes` (past it, rejects). */
export type BodyReader = (maxBytes: number) => Promise<Uint8Array>;

/** What the receiver answers to one delivery. */
export interface WebhookResult {
  status: number;
  /** JSON body of the answer: `{ received: true }` (plus `duplicate: true`) or `{ error }`. */
  body: Record<string, unknown>;
  headers: Record<string, string>;
  /** The verified event, when verification succeeded. */
  event?: WebhookEvent;
  /** Why the delivery was refused, when it was. */
  error?: WebhookError;
  /** True when the delivery id had already been processed. */
  duplicate?: boolean;
}

/** The receiver built by `createWebhookReceiver`. */
export interface WebhookReceiver {
  /**
   * Checks the token and reads the envelope; resolves to the typed event. Runs no handler and
   * does not touch the duplicate store.
   * @throws {WebhookError} with the `status` to answer.
   */
  verify(input: VerifyInput): Promise<WebhookEvent>;
  /**
   * Registers a handler for one event `type` (`'unknown'` for event names this version does not
   * know), or `'*'` for every event that has no handler of its own. Several handlers of one type
   * run in order. Returns the receiver, for chaining.
   */
  on<Name extends WebhookEvent['type']>(
    type: Name,
    handler: WebhookHandler<WebhookEventOf<Name>>,
  ): WebhookReceiver;
  on(type: '*', handler: WebhookHandler): WebhookReceiver;
  /** Same as `on('unknown', handler)`: events whose name this SDK version does not know. */
  onUnknown(handler: WebhookHandler<WebhookEventOf<typeof UNKNOWN_EVENT>>): WebhookReceiver;
  /** Verifies, de-duplicates and dispatches one delivery; never throws. For any framework. */
  receive(input: ReceiveInput): Promise<WebhookResult>;
  /** Fetch-style handler (Hono, Next.js route handlers, Bun, Deno, Cloudflare Workers). Never throws. */
  handle(request: Request): Promise<Response>;
  /** A `(req, res, next?)` handler for `node:http` and Express that reads the raw body itself. */
  nodeHandler(): NodeWebhookHandler;
}
