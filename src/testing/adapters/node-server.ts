/**
 * The `node:http` adapter: serves the fake's `handle` on a real port (loopback by default), for
 * suites in other languages and for tests of real sockets. Converts IncomingMessage to Request and
 * Response to ServerResponse; an injected network error destroys the socket. Whatever arrives on
 * the socket, it answers or drops that one connection: no request can stop the process.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable } from 'node:stream';
import { createFakeService, faceOfPath, type FakeService, type FakeServiceOptions } from '../fake-service.js';
import { realClearTimeout, realSetTimeout } from '../backend/fake-clock.js';
import { JsonResponse } from '../http.js';
import { isSimulatorPath, serveSimulatorPage } from '../ui/serve.js';

/** Options of {@link startFakeServer}. */
export interface FakeServerOptions extends FakeServiceOptions {
  /** Port; 0 (default) picks a free one. */
  port?: number;
  /** Interface to bind; default `127.0.0.1` (loopback only). */
  host?: string;
  /** Serve this fake instead of creating one. */
  fake?: FakeService;
  /**
   * Answer `/_fake/` control routes from other machines, from pages of other origins and under
   * other host names too (default false: loopback callers only, with this server's own `Host`, and
   * no foreign `Origin`, so a web page you visit cannot drive the fake).
   */
  allowRemoteControl?: boolean;
  /**
   * Host names, besides IP addresses and `localhost`, under which the partner API (and, for
   * loopback callers, the control API) answers: `['fake']` for a container reached as
   * `http://fake:4010`; a leading dot (`.example.test`) accepts every subdomain; `['*']` accepts
   * any name. Default none: a page on another site that rebinds its own name to this machine's
   * address (DNS rebinding) is refused, since its requests carry that name as `Host`.
   */
  allowedHosts?: readonly string[];
  /**
   * Milliseconds a connection has to send a request's headers (default 10,000): one that sends
   * nothing at all in that time is closed too, so idle sockets never pile up.
   */
  headersTimeoutMs?: number;
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

/** Whether a socket's peer address is this machine's loopback (127.0.0.0/8, ::1, or 127.x mapped into IPv6). */
export const isLoopbackAddress = (address: string | undefined): boolean => LOOPBACK.test(address ?? '');

/** Methods WHATWG fetch refuses to carry in a `Request`: the fake serves none of them. */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/** Hop-by-hop headers describe this socket, not the request the fake reasons about. */
const HOP_BY_HOP = /^(?:connection|keep-alive|transfer-encoding|upgrade|proxy-connection|te|trailer)$/i;

/** An answer the adapter gives itself, before the fake sees the request. */
function answer(
  outgoing: ServerResponse,
  status: number,
  detail: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({ detail });
  outgoing.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  });
  outgoing.end(body);
}

/** Names under which this server is itself: its bound address and the loopback names, with its port. */
function ownHosts(boundHost: string, port: number): Set<string> {
  const names = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  const bound = boundHost.includes(':') && !boundHost.startsWith('[') ? `[${boundHost}]` : boundHost;
  names.add(`${bound.toLowerCase()}:${port}`);
  return names;
}

/** The host name of a `Host` header (`[::1]:80` -> `[::1]`, `fake:4010` -> `fake`), lower-cased. */
function hostName(host: string): string {
  const lower = host.toLowerCase();
  const end = lower.startsWith('[') ? lower.indexOf(']') + 1 : lower.lastIndexOf(':');
  return end > 0 ? lower.slice(0, end) : lower;
}

/** An IP literal (v4, or v6 in brackets) or `localhost`: names no other site's page can be reached under. */
const LITERAL_HOST = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\]|localhost|[a-z0-9-]+\.localhost)$/;

/** Whether the name is one of `allowedHosts` (`*` any, `.example.test` the domain and its subdomains). */
function isAllowedName(name: string, allowedHosts: readonly string[]): boolean {
  return allowedHosts.some((allowed) => {
    const lower = allowed.toLowerCase();
    if (lower === '*') return true;
    if (lower.startsWith('.')) return name === lower.slice(1) || name.endsWith(lower);
    return name === lower;
  });
}

/**
 * Why a partner API request must be refused for its `Host`, or undefined. The partner API takes
 * credentials, but `--seed demo` publishes them: a page that rebinds its own name to this machine
 * could otherwise create a webhook aimed at a local service and read the answer back. Browsers
 * always send the page's own name as `Host`, so IP addresses and `localhost` (any port, for
 * mapped container ports) are safe, and other names must be allowed by name.
 */
function apiHostRefusal(incoming: IncomingMessage, allowedHosts: readonly string[]): string | undefined {
  const name = hostName(incoming.headers.host ?? '');
  if (LITERAL_HOST.test(name) || isAllowedName(name, allowedHosts)) return undefined;
  return `This server does not answer to the host name ${JSON.stringify(name)} (a guard against DNS rebinding); start it with --allowed-host ${name || 'NAME'} to accept it.`;
}

/**
 * Why a control call must be refused, or undefined. The control API has no credentials by design,
 * so the guards are: loopback callers only; a `Host` naming this server (a DNS-rebinding page
 * reaches 127.0.0.1 under its own host name); no `Origin` of another site (browsers send one with
 * every cross-origin POST, a plain HTML form's included, and `Sec-Fetch-Site` besides).
 */
function controlRefusal(
  incoming: IncomingMessage,
  hosts: Set<string>,
  allowedHosts: readonly string[],
): string | undefined {
  if (!isLoopbackAddress(incoming.socket.remoteAddress))
    return 'The control API answers loopback callers only (start the server with --allow-remote-control to change that).';
  const host = (incoming.headers.host ?? '').toLowerCase();
  if (
    !hosts.has(host) &&
    !isAllowedName(
      hostName(host),
      allowedHosts.filter((name) => name !== '*'),
    )
  )
    return `The control API answers requests addressed to this server only (Host ${[...hosts].join(' or ')}); start it with --allow-remote-control to accept other host names.`;
  const origin = incoming.headers.origin;
  if (origin !== undefined) {
    let originHost: string | undefined;
    try {
      const parsed = new URL(origin);
      if (parsed.protocol === 'http:') originHost = parsed.host.toLowerCase();
    } catch {
      originHost = undefined;
    }
    const withPort = originHost === undefined || originHost.includes(':') ? originHost : `${originHost}:80`;
    // Same origin: the page was served under the `Host` this call carries, already accepted above
    // (this server's own name, or one of `allowedHosts`), so the simulator page opened as
    // `http://fake:4010/_fake/ui` may use its own buttons.
    const sameOrigin = withPort !== undefined && (withPort === host || withPort === `${host}:80`);
    if (withPort === undefined || (!hosts.has(withPort) && !sameOrigin)) {
      return 'The control API refuses calls from web pages of other origins; start the server with --allow-remote-control to accept them.';
    }
  }
  if (incoming.headers['sec-fetch-site'] === 'cross-site')
    return 'The control API refuses cross-site calls from browsers; start the server with --allow-remote-control to accept them.';
  return undefined;
}

/** The request's path and query, or why the request target cannot be served. */
function requestPath(
  target: string,
  hosts: Set<string>,
): { path: string; absolute?: true } | { status: number; detail: string } {
  // Origin form is a path even when it starts with `//` (never a scheme-relative URL naming another host).
  if (target.startsWith('/')) return { path: target };
  if (target === '*') return { path: '/' };
  // Absolute form (RFC 9112 3.2.2) is for proxies; an origin server serves it only for itself.
  let parsed: URL;
  try {
    parsed = new URL(target);
  } catch {
    return { status: 400, detail: 'The request target is not a valid path or URL.' };
  }
  const authority = `${parsed.hostname.toLowerCase()}:${parsed.port || (parsed.protocol === 'https:' ? '443' : '80')}`;
  if (parsed.protocol !== 'http:' || !hosts.has(authority)) {
    return { status: 421, detail: 'This server is not a proxy: it serves its own address only.' };
  }
  // RFC 9112 3.2.2: with an absolute-form target, the target's authority stands for `Host`.
  return { path: `${parsed.pathname}${parsed.search}`, absolute: true };
}

/**
 * The request as the fake reads it: method, URL, headers, signal and (for methods that carry one)
 * the body stream. A plain object instead of a WHATWG `Request`, whose construction (header
 * validation, body stream set-up) cost the standalone server a fifth of its time per request;
 * the fake reads nothing else of a request.
 */
/** The headers of an incoming request as the fake reads them (`get`, `has`), hop-by-hop ones hidden. */
class IncomingHeaders {
  constructor(private readonly incoming: IncomingMessage) {}

  get(name: string): string | null {
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.test(lower)) return null;
    const value = this.incoming.headers[lower];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }
}

/** The request's fields the fake reads, on a class (one shape for every request, no per-request closures). */
class IncomingRequest {
  readonly method: string;
  readonly headers: IncomingHeaders;
  #body: ReadableStream<Uint8Array> | null | undefined;

  constructor(
    private readonly incoming: IncomingMessage,
    readonly url: string,
    readonly signal: AbortSignal,
  ) {
    this.method = incoming.method ?? 'GET';
    this.headers = new IncomingHeaders(incoming);
  }

  get body(): ReadableStream<Uint8Array> | null {
    this.#body ??=
      this.method !== 'GET' && this.method !== 'HEAD'
        ? (Readable.toWeb(this.incoming) as ReadableStream<Uint8Array>)
        : null;
    return this.#body;
  }
}

function toRequest(incoming: IncomingMessage, url: string, signal: AbortSignal): Request {
  return new IncomingRequest(incoming, url, signal) as unknown as Request;
}

async function writeResponse(response: Response, outgoing: ServerResponse): Promise<void> {
  // A JSON answer of the fake keeps its text and headers as plain values: written as they are
  // (encoded once, on the socket), with no Headers list walked and no body stream read back.
  if (response instanceof JsonResponse && !response.bodyUsed) {
    outgoing.writeHead(response.status, {
      ...response.headerRecord,
      'content-length': String(Buffer.byteLength(response.serialized)),
    });
    outgoing.end(response.serialized);
    return;
  }
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (!response.body) {
    outgoing.writeHead(response.status, headers);
    outgoing.end();
    return;
  }
  // Any other body is streamed: headers first, then the body as it comes (a fault's body may
  // stall after the headers); the read stops when the caller leaves.
  outgoing.writeHead(response.status, headers);
  outgoing.flushHeaders();
  const reader = response.body.getReader();
  outgoing.once('close', () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!outgoing.write(value)) await new Promise((resolve) => outgoing.once('drain', resolve));
  }
  outgoing.end();
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
  const fake = options.fake ?? createFakeService(options);
  const host = options.host ?? '127.0.0.1';
  let origin = '';
  let hosts = new Set<string>();
  const allowedHosts = options.allowedHosts ?? [];
  /**
   * Per connection, the answer still being made: HTTP/1.1 lets a client send its next request
   * before the previous answer (pipelining), and only safe methods may then be processed in
   * parallel (RFC 9112 9.3.2). One request per connection at a time, in order, so each sees the
   * state the one before it left. Different connections still run side by side.
   */
  const inFlight = new WeakMap<Socket, Promise<void>>();
  const server = createServer((incoming, outgoing) => {
    const socket = incoming.socket;
    const before = inFlight.get(socket);
    const run = () =>
      serve(incoming, outgoing).catch(() => {
        // Nothing a client sends may stop the process: at worst its own connection ends.
        socket.destroy();
      });
    const done: Promise<void> = before ? before.then(run) : run();
    inFlight.set(socket, done);
    void done.then(() => {
      if (inFlight.get(socket) === done) inFlight.delete(socket);
    });
  });
  const serve = async (incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> => {
    const method = (incoming.method ?? 'GET').toUpperCase();
    if (FORBIDDEN_METHODS.has(method)) return answer(outgoing, 405, `Method "${method}" not allowed.`);
    const target = requestPath(incoming.url ?? '/', hosts);
    if ('status' in target) return answer(outgoing, target.status, target.detail);
    let url: URL;
    try {
      // Joined as text: `new URL('//evil.example/x', origin)` would name another host.
      url = new URL(`${origin}${target.path}`);
    } catch {
      return answer(outgoing, 400, 'The request target is not a valid path.');
    }
    // The control API has its own, stricter guard (controlRefusal), answered inside the fake; a
    // request the guard was not asked about is never let through to it. The face is the one the
    // fake itself routes to: `/_fake/api/v1/partnership/...` reaches the partner API, so it gets
    // the partner API's Host guard, never the control API's.
    const isControl = faceOfPath(url.pathname) === 'control';
    const refusal = !isControl
      ? 'Not a control route.'
      : options.allowRemoteControl === true
        ? undefined
        : controlRefusal(incoming, hosts, allowedHosts);
    if (!isControl && target.absolute !== true) {
      const hostRefusal = apiHostRefusal(incoming, allowedHosts);
      if (hostRefusal !== undefined) return answer(outgoing, 403, hostRefusal);
    }
    const abort = new AbortController();
    outgoing.on('close', () => {
      if (!outgoing.writableFinished) abort.abort(new Error('client went away'));
    });
    const request = toRequest(incoming, url.href, abort.signal);
    const remoteViewer = !isLoopbackAddress(incoming.socket.remoteAddress);
    // The simulator page is static; the control API's own guard decides who gets it.
    const response = await (refusal === undefined && isSimulatorPath(url.pathname)
      ? serveSimulatorPage(request)
      : fake.handle(request, {
          controlAllowed: refusal === undefined,
          controlRefusal: refusal,
          remoteViewer,
        }));
    if (response.type === 'error') {
      incoming.socket.destroy();
      return;
    }
    await writeResponse(response, outgoing);
  };
  server.keepAliveTimeout = 5_000;
  // A client that sends headers or a body slowly holds a socket, never the process: bounded waits.
  const headersTimeoutMs = options.headersTimeoutMs ?? 10_000;
  server.headersTimeout = headersTimeoutMs;
  server.requestTimeout = Math.max(60_000, headersTimeoutMs);
  // Node's header timer starts with the first byte: a connection that never sends one would stay
  // open for ever. Closed once that long has passed with nothing read from it.
  server.on('connection', (socket: Socket) => {
    const timer = realSetTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, headersTimeoutMs);
    timer.unref();
    socket.once('close', () => realClearTimeout(timer));
  });
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
  hosts = ownHosts(address.address, address.port);
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
