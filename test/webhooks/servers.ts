/**
 * Real HTTP servers hosting a receiver the two ways partners host it: an Express 5 app with
 * `nodeHandler()`, and a fetch-style handler (`handle(Request)`) served by plain `node:http`.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { WebhookReceiver } from 'restaurant-partner-sdk/webhooks';

/** One answer the server wrote, and whether the request body had all arrived by then. */
export interface WrittenAnswer {
  status: number;
  bodyComplete: boolean;
}

export interface RunningServer {
  /** Base URL, without trailing slash. */
  url: string;
  /** Every answer written so far, oldest first. */
  answers: WrittenAnswer[];
  close(): Promise<void>;
}

async function listen(server: Server): Promise<RunningServer> {
  const answers: WrittenAnswer[] = [];
  // Recorded at the moment the status line is written: whether the server had already parsed the
  // whole request body. What the client managed to upload meanwhile depends on scheduling.
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => ServerResponse;
    response.writeHead = (...args: unknown[]) => {
      answers.push({ status: args[0] as number, bodyComplete: request.complete });
      return writeHead(...args);
    };
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    answers,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * An Express app the way the README tells partners to write it: the receiver mounted on its
 * route before `express.json()`, which the rest of the app uses.
 */
export function startExpressApp(
  receiver: WebhookReceiver,
  options: {
    path?: string;
    mount?: 'receiver-first' | 'json-first' | 'json-then-raw' | 'json-keeping-raw' | 'raw-first';
  } = {},
): Promise<RunningServer> {
  const path = options.path ?? '/webhooks/reservations';
  const app = express();
  if (options.mount === 'json-first') app.use(express.json());
  // The advice that never worked: the global parser has consumed the stream before the route's.
  if (options.mount === 'json-then-raw')
    app.use(express.json()).use(path, express.raw({ type: 'application/json' }));
  // A global JSON parser that keeps the bytes aside for the receiver.
  if (options.mount === 'json-keeping-raw') {
    app.use(
      express.json({
        verify: (request, _response, buffer) =>
          void ((request as typeof request & { rawBody?: Buffer }).rawBody = buffer),
      }),
    );
  }
  if (options.mount === 'raw-first') app.use(path, express.raw({ type: 'application/json' }));
  app.post(path, receiver.nodeHandler());
  app.use(express.json());
  app.post('/api/echo', (request, response) => {
    response.json({ echoed: request.body });
  });
  return listen(createServer(app));
}

/** `nodeHandler()` served by plain `node:http`, with no framework. */
export function startNodeServer(receiver: WebhookReceiver): Promise<RunningServer> {
  return listen(createServer(receiver.nodeHandler()));
}

/**
 * The request body as a web stream with back-pressure, whose `cancel()` only stops reading, so the
 * handler's answer (a 413) can still be written on the same connection.
 */
function toWebStream(request: IncomingMessage): ReadableStream<Uint8Array> {
  let stopped = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      request.pause();
      request.on('data', (chunk: Buffer) => {
        if (stopped) return;
        controller.enqueue(new Uint8Array(chunk));
        if ((controller.desiredSize ?? 0) <= 0) request.pause();
      });
      request.on('end', () => {
        if (!stopped) controller.close();
        stopped = true;
      });
      request.on('error', (error) => {
        if (!stopped) controller.error(error);
        stopped = true;
      });
    },
    pull() {
      request.resume();
    },
    cancel() {
      stopped = true;
      request.pause();
    },
  });
}

/** Turns a node request into a fetch `Request`, as Hono's node adapter or similar would. */
function toFetchRequest(request: IncomingMessage, base: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value])
      headers.append(name, item);
  }
  const method = request.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(new URL(request.url ?? '/', base), {
    method,
    headers,
    ...(hasBody ? { body: toWebStream(request), duplex: 'half' } : {}),
  });
}

async function writeFetchResponse(response: Response, target: ServerResponse): Promise<void> {
  target.writeHead(response.status, Object.fromEntries(response.headers));
  target.end(Buffer.from(await response.arrayBuffer()));
}

/** A fetch-style handler (`receiver.handle`) served by `node:http`. */
export async function startFetchStyleServer(
  receiver: WebhookReceiver,
  path = '/webhooks/reservations',
): Promise<RunningServer> {
  let base = '';
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', base);
    if (url.pathname !== path) {
      response.writeHead(404).end();
      return;
    }
    void receiver
      .handle(toFetchRequest(request, base))
      .then((answer) => writeFetchResponse(answer, response))
      .catch(() => response.destroy());
  });
  const running = await listen(server);
  base = running.url;
  return running;
}
