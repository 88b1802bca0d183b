/**
 * The standalone fake as the raw-HTTP audit drives it: a server started in-process on loopback
 * (frozen clock, demo seed, no rate limit unless asked), and requests written byte for byte.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO_PARTNER } from 'restaurant-partner-sdk/testing';
import {
  startFakeServer,
  type FakeServerOptions,
  type RunningFakeServer,
} from 'restaurant-partner-sdk/testing/node';
import { API, START } from './helpers.js';
import { basicAuthorization } from '../support/basic-auth.js';
import { httpText, rawJson, rawRequest, type RawAnswer } from './raw-http.js';

export const demoAuth = basicAuthorization(DEMO_PARTNER.partnerId, DEMO_PARTNER.apiToken);

export interface AuditServer {
  server: RunningFakeServer;
  /** `127.0.0.1:PORT`, the Host the server answers to. */
  host: string;
  send(method: string, target: string, headers?: Record<string, string>, body?: string): Promise<RawAnswer>;
  /** A control call at `<prefix>/_fake/<path>` with a JSON body; answers status and parsed body. */
  control(
    method: string,
    path: string,
    body?: unknown,
    prefix?: string,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the wire body, read field by field by the tests
  ): Promise<{ status: number | undefined; body: any }>;
}

export async function startAudit(options: FakeServerOptions = {}): Promise<AuditServer> {
  const server = await startFakeServer({
    seed: 'demo',
    rateLimit: false,
    clock: { frozen: true, startAt: START },
    ...options,
  });
  const host = `127.0.0.1:${server.port}`;
  const send = (method: string, target: string, headers: Record<string, string> = {}, body = '') =>
    rawRequest(
      server.port,
      httpText(
        method,
        target,
        {
          host,
          connection: 'close',
          ...(body
            ? { 'content-length': String(Buffer.byteLength(body)), 'content-type': 'application/json' }
            : {}),
          ...headers,
        },
        body,
      ),
      // Kept open until the server closes (`connection: close`): a half-closed socket may lose a slow answer.
      { timeoutMs: 30_000, keepOpen: true },
    );
  const control = async (method: string, path: string, body?: unknown, prefix = '') => {
    const answer = await send(
      method,
      `${prefix}/_fake/${path}`,
      {},
      body === undefined ? '' : JSON.stringify(body),
    );
    return { status: answer.status, body: rawJson(answer) };
  };
  return { server, host, send, control };
}

/** A webhook receiver on loopback: counts what arrives, answers with `status`, or never when `silent`. */
export interface Receiver {
  url: string;
  /** Bodies received, in arrival order. */
  bodies: string[];
  /** How it answers from now on (change it between steps). */
  mode: { status?: number; silent?: boolean; delayMs?: () => number };
  close(): Promise<void>;
}

export async function startReceiver(
  options: { status?: number; silent?: boolean; delayMs?: () => number } = {},
): Promise<Receiver> {
  const bodies: string[] = [];
  const mode = { ...options };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      if (mode.silent) return;
      const answer = () => {
        response.writeHead(mode.status ?? 200, { 'content-type': 'application/json' });
        response.end('{"ok":true}');
      };
      const delay = mode.delayMs?.() ?? 0;
      if (delay > 0) setTimeout(answer, delay);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    bodies,
    mode,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Books a table at restaurant 1 of the demo seed (under `prefix`) and answers its id. */
export async function book(
  audit: AuditServer,
  prefix = '',
  startTime = '2026-12-09T19:00:00',
): Promise<number> {
  const answer = await audit.send(
    'POST',
    `${prefix}${API}/restaurants/1/reservations/`,
    { authorization: demoAuth },
    JSON.stringify({ start_time: startTime, adults: 2 }),
  );
  if (answer.status !== 201) throw new Error(`booking failed: ${answer.text}`);
  return rawJson(answer).id as number;
}

/** Registers a webhook at `url` for every event (under `prefix`) and answers its id. */
export async function subscribe(audit: AuditServer, url: string, prefix = ''): Promise<number> {
  const answer = await audit.send(
    'POST',
    `${prefix}${API}/webhooks/`,
    { authorization: demoAuth },
    JSON.stringify({ url }),
  );
  if (answer.status !== 201) throw new Error(`webhook failed: ${answer.text}`);
  return rawJson(answer).id as number;
}
