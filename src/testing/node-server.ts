/**
 * The `node:http` adapter: serves the fake's `handle` on a real port (loopback by default), for
 * suites in other languages and for tests of real sockets. Converts IncomingMessage to Request and
 * Response to ServerResponse; an injected network error destroys the socket.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createFakeCore, type FakeService, type FakeServiceOptions } from './service.js';
import { isSimulatorPath, serveSimulatorPage } from './ui/serve.js';

/** Options of {@link startFakeServer}. */
export interface FakeServerOptions extends FakeServiceOptions {
  /** Port; 0 (default) picks a free one. */
  port?: number;
  /** Interface to bind; default `127.0.0.1` (loopback only). */
  host?: string;
  /** Serve this fake instead of creating one. */
  fake?: FakeService;
  /** Answer `/_fake/` control routes from non-loopback callers too (default false). */
  allowRemoteControl?: boolean;
}

/** A running standalone fake. */
export interface RunningFakeServer {
  /** `http://host:port`, the `baseUrl` to give a client. */
  url: string;
  port: number;
  fake: FakeService;
  /** Stops accepting, drops open connections, and resolves when closed. */
  close(): Promise<void>;
}

const LOOPBACK = /^(?:127\.|::1$|::ffff:127\.)/;

function toRequest(incoming: IncomingMessage, origin: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (let index = 0; index < incoming.rawHeaders.length; index += 2) {
    const name = incoming.rawHeaders[index]!;
    // Hop-by-hop headers describe this socket, not the request the fake reasons about.
    if (/^(?:connection|keep-alive|transfer-encoding|upgrade)$/i.test(name)) continue;
    headers.append(name, incoming.rawHeaders[index + 1]!);
  }
  const method = incoming.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(new URL(incoming.url ?? '/', origin), {
    method,
    headers,
    signal,
    ...(hasBody ? { body: Readable.toWeb(incoming) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
}

async function writeResponse(response: Response, outgoing: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
  if (body) headers['content-length'] = String(body.byteLength);
  outgoing.writeHead(response.status, headers);
  outgoing.end(body);
}

/**
 * Starts the fake as an HTTP server.
 *
 * @example
 * ```ts
 * const server = await startFakeServer({ seed: 'demo', port: 0 });
 * const response = await fetch(`${server.url}/api/v1/partnership/restaurants/`, { headers: { authorization } });
 * await server.close();
 * ```
 */
export async function startFakeServer(options: FakeServerOptions = {}): Promise<RunningFakeServer> {
  const fake = options.fake ?? createFakeCore(options);
  const host = options.host ?? '127.0.0.1';
  let origin = '';
  const server = createServer((incoming, outgoing) => {
    const abort = new AbortController();
    outgoing.on('close', () => {
      if (!outgoing.writableFinished) abort.abort(new Error('client went away'));
    });
    const remote = incoming.socket.remoteAddress ?? '';
    const request = toRequest(incoming, origin, abort.signal);
    const onLoopback = LOOPBACK.test(remote);
    const controlAllowed = options.allowRemoteControl === true || onLoopback;
    // The simulator page is static; the same guard as the control API it calls decides who gets it.
    const answer = controlAllowed && isSimulatorPath(new URL(request.url).pathname) ? serveSimulatorPage(request) : fake.handle(request, { controlAllowed, remoteViewer: !onLoopback });
    void answer
      .then(async (response) => {
        if (response.type === 'error') {
          incoming.socket.destroy();
          return;
        }
        await writeResponse(response, outgoing);
      })
      .catch(() => incoming.socket.destroy());
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const printableHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  origin = `http://${printableHost}:${address.port}`;
  return {
    url: origin,
    port: address.port,
    fake,
    close: () =>
      new Promise<void>((resolve, reject) => {
        fake.dispose();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
