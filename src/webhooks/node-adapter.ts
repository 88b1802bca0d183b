/**
 * The receiver for `node:http` and Express. Node appears only in type signatures: at run time
 * this file uses the request's stream events, so the receiver's module graph stays loadable on
 * runtimes without `node:` modules.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyCollector } from './body-collector.js';
import type { Soon } from './time-limit.js';
import {
  WebhookBodyTimeoutError,
  WebhookPayloadError,
  WebhookPayloadTooLargeError,
  WebhookRawBodyRequiredError,
} from './errors.js';
import { OpenDelivery, type DeliverySteps } from './receiver.js';
import type { ReceiveInput, WebhookReceiver, WebhookResult } from './types.js';

/**
 * A `(req, res, next?)` handler for `node:http` servers and Express. It always answers the
 * delivery itself; `next` is only called with an error that happened after the answer started.
 */
export type NodeWebhookHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  next?: (error?: unknown) => void,
) => void;

const encoder = new TextEncoder();

const isRawBody = (value: unknown): boolean =>
  typeof value === 'string' || value instanceof Uint8Array || value instanceof ArrayBuffer;

/** A request as Express and its body parsers leave it. */
type ParsedRequest = IncomingMessage & { body?: unknown; rawBody?: unknown };

/**
 * Builds the node handler over a receiver's steps. A delivery whose every step answers at once
 * (a token list, the in-memory duplicate store, synchronous handlers) is answered from the body's
 * `end` event, without a promise; the body's time limit is one shared timer (`BodyDeadlines`).
 */
export function createNodeHandler(
  receiver: Pick<WebhookReceiver, 'receive'>,
  steps: DeliverySteps,
): NodeWebhookHandler {
  return (request, response, next) => {
    // The body's time limit counts from here: the headers have arrived.
    const startedAt = performance.now();
    const { body: preRead, rawBody } = request as ParsedRequest;
    const streamUnread = !request.readableEnded && !request.readableDidRead;
    let body: ReceiveInput['body'];
    // The bytes a JSON parser kept aside (`express.json({ verify })` storing `req.rawBody`), or a
    // body read raw (`express.raw`, `express.text`), are used as they are.
    if (isRawBody(rawBody)) body = rawBody as ReceiveInput['body'];
    else if (isRawBody(preRead)) body = preRead as ReceiveInput['body'];
    // Some stacks set `req.body = {}` without reading: the stream still holds the bytes.
    else if (streamUnread) {
      const exchange: Exchange = { request, response, next, steps, startedAt };
      const opened = steps.open(request.method ?? 'POST', request.headers, readLater);
      if (opened instanceof Promise)
        opened.then(
          (known) => readOrAnswer(known, exchange),
          (error: unknown) => answerFailure(error, exchange),
        );
      else readOrAnswer(opened, exchange);
      return;
    }
    // A JSON parser consumed the stream: the exact bytes are gone, and the answer says how to mount.
    else
      body = () =>
        Promise.reject(
          new WebhookRawBodyRequiredError(
            preRead === undefined
              ? 'a request stream that another middleware already read'
              : 'a body a JSON parser (express.json()) already parsed',
          ),
        );
    answer(receiver.receive({ method: request.method ?? 'POST', headers: request.headers, body }), {
      request,
      response,
      next,
      steps,
      startedAt,
    });
  };
}

// Stands for the stream in `open`: the body is read by the handler itself once the headers passed.
const readLater = (): Promise<Uint8Array> => Promise.reject(new Error('read by the node handler'));

/** One delivery on node: its request and response, Express's `next`, and when its headers came. */
interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
  next: ((error?: unknown) => void) | undefined;
  steps: DeliverySteps;
  /** `performance.now()` when the handler was called: the body's time limit counts from it. */
  startedAt: number;
}

function readOrAnswer(opened: OpenDelivery | WebhookResult, exchange: Exchange): void {
  if (opened instanceof OpenDelivery) readBody(opened, exchange);
  else answerAfterParsing(opened, exchange);
}

/**
 * Answers a refusal once node's parser has finished the chunk it is reading: the request event
 * (and a body's `data`) fire inside the parser, and an answer ended there, before the request's
 * own end was parsed, leaves a keep-alive connection the client then finds closed.
 */
function answerAfterParsing(result: WebhookResult, exchange: Exchange): void {
  queueMicrotask(() => answer(result, exchange));
}

/**
 * Reads the body from the stream, stopping (and pausing the stream) as soon as it passes the
 * size limit, so an oversized body is never held in memory, and answering 408 once its time is
 * up (the connection then goes: a trickling sender is not read on).
 */
function readBody(delivery: OpenDelivery, exchange: Exchange): void {
  const { request, steps } = exchange;
  // A token provider that took its time may have let another middleware read the stream.
  if (request.readableEnded || request.readableDidRead) {
    const error = new WebhookRawBodyRequiredError('a request stream that another middleware already read');
    answerAfterParsing(steps.refuse(delivery, error), exchange);
    return;
  }
  const collector = new BodyCollector(steps.maxBodyBytes);
  let settled = false;
  // The listeners stay on the request (which ends with this delivery); `settled` silences them.
  // Takes a function making the error: 'close' follows every 'end', and an error costs a stack.
  const refuse = (error: () => unknown) => {
    if (settled) return;
    settled = true;
    deadline.cancel();
    answerAfterParsing(steps.refuse(delivery, error()), exchange);
  };
  const deadline = steps.bodyDeadlines.watch(exchange.startedAt + steps.bodyTimeoutMs, () =>
    refuse(() => new WebhookBodyTimeoutError(steps.bodyTimeoutMs)),
  );
  request
    .on('data', (chunk: Uint8Array | string) => {
      if (settled) return;
      if (!collector.add(typeof chunk === 'string' ? encoder.encode(chunk) : chunk)) {
        request.pause();
        refuse(() => new WebhookPayloadTooLargeError(steps.maxBodyBytes));
      }
    })
    .on('end', () => {
      if (settled) return;
      settled = true;
      deadline.cancel();
      answer(steps.finish(delivery, collector.join()), exchange);
    })
    .on('error', (error: unknown) =>
      refuse(() => new WebhookPayloadError('The request body could not be read', [], { cause: error })),
    )
    .on('close', () => refuse(() => new WebhookPayloadError('The connection closed before the body ended')));
}

function answer(result: Soon<WebhookResult>, exchange: Exchange): void {
  if (result instanceof Promise) {
    result.then(
      (known) => answer(known, exchange),
      (error: unknown) => answerFailure(error, exchange),
    );
    return;
  }
  const { request, response } = exchange;
  try {
    if (response.headersSent || response.writableEnded) return;
    writeJson(response, result.status, result.headers, result.body);
    // A sender still trickling its body is not read on: once the 408 is out, the connection
    // goes (the answer says `connection: close`).
    if (result.status === 408 && !request.readableEnded) response.once('finish', () => request.destroy());
  } catch (error) {
    answerFailure(error, exchange);
  }
}

/**
 * Writes a JSON answer with its length: node then sends headers and body in one write, without
 * chunked framing (which cost a busy receiver about 8% of its CPU per delivery).
 */
function writeJson(
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: Record<string, unknown>,
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { ...headers, 'content-length': String(utf8Length(text)) });
  response.end(text);
}

/** The UTF-8 size of a well-formed string (JSON.stringify leaves no lone surrogate). */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    // Two bytes below U+0800, three above; a surrogate pair is four, two per half.
    if (code >= 0x80) bytes += code >= 0x800 && (code < 0xd800 || code > 0xdfff) ? 2 : 1;
  }
  return bytes;
}

/** The receiver's steps never throw; this only guards the write itself. */
function answerFailure(error: unknown, { response, next }: Exchange): void {
  if (!response.headersSent) {
    writeJson(
      response,
      500,
      { 'content-type': 'application/json' },
      { error: 'The webhook receiver failed' },
    );
  } else if (next) next(error);
  else response.destroy();
}
