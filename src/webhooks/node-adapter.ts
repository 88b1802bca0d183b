/**
 * The receiver for `node:http` and Express. Node appears only in type signatures: at run time
 * this file uses the request's stream events, so the receiver's module graph stays loadable on
 * runtimes without `node:` modules.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyCollector } from './body-collector.js';
import { WebhookPayloadError, WebhookPayloadTooLargeError, WebhookRawBodyRequiredError } from './errors.js';
import type { ReceiveInput, WebhookReceiver } from './receiver.js';

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

/**
 * Reads the body from the stream, stopping (and pausing the stream) as soon as it passes
 * `maxBytes`, so an oversized body is never held in memory. A trickling one is cut off by the
 * handler below once its 408 is out.
 */
function readNodeBody(request: IncomingMessage, maxBytes: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    if (request.readableEnded || request.readableDidRead) {
      reject(new WebhookRawBodyRequiredError('a request stream that another middleware already read'));
      return;
    }
    const collector = new BodyCollector(maxBytes);
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      request.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      outcome();
    };
    const onData = (chunk: Uint8Array | string) => {
      if (!collector.add(typeof chunk === 'string' ? encoder.encode(chunk) : chunk)) {
        request.pause();
        finish(() => reject(new WebhookPayloadTooLargeError(maxBytes)));
      }
    };
    const onEnd = () => finish(() => resolve(collector.join()));
    const onError = (error: unknown) =>
      finish(() =>
        reject(new WebhookPayloadError('The request body could not be read', [], { cause: error })),
      );
    const onClose = () =>
      finish(() => reject(new WebhookPayloadError('The connection closed before the body ended')));
    request.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

const isRawBody = (value: unknown): boolean =>
  typeof value === 'string' || value instanceof Uint8Array || value instanceof ArrayBuffer;

/** A request as Express and its body parsers leave it. */
type ParsedRequest = IncomingMessage & { body?: unknown; rawBody?: unknown };

/** Builds the node handler over a receiver's framework-neutral `receive`. */
export function createNodeHandler(receiver: Pick<WebhookReceiver, 'receive'>): NodeWebhookHandler {
  return (request, response, next) => {
    const { body: preRead, rawBody } = request as ParsedRequest;
    const streamUnread = !request.readableEnded && !request.readableDidRead;
    let body: ReceiveInput['body'];
    // The bytes a JSON parser kept aside (`express.json({ verify })` storing `req.rawBody`), or a
    // body read raw (`express.raw`, `express.text`), are used as they are.
    if (isRawBody(rawBody)) body = rawBody as ReceiveInput['body'];
    else if (isRawBody(preRead)) body = preRead as ReceiveInput['body'];
    // Some stacks set `req.body = {}` without reading: the stream still holds the bytes.
    else if (streamUnread) body = (maxBytes) => readNodeBody(request, maxBytes);
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

    receiver
      .receive({ method: request.method ?? 'POST', headers: request.headers, body })
      .then((result) => {
        if (response.headersSent || response.writableEnded) return;
        response.writeHead(result.status, result.headers);
        response.end(JSON.stringify(result.body));
        // A sender still trickling its body is not read on: once the 408 is out, the connection
        // goes (the answer says `connection: close`).
        if (result.status === 408 && !request.readableEnded) response.once('finish', () => request.destroy());
      })
      .catch((error: unknown) => {
        // receive() never rejects; this only guards the write itself.
        if (!response.headersSent) {
          response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: 'The webhook receiver failed' }));
        } else if (next) next(error);
        else response.destroy();
      });
  };
}
