/**
 * The standalone fake as the raw-HTTP audit drives it: a server started in-process on loopback
 * (frozen clock, demo seed, no rate limit unless asked), and requests written byte for byte.
 */
import { DEMO_PARTNER } from 'restaurant-partner-sdk/testing';
import {
  startFakeServer,
  type FakeServerOptions,
  type RunningFakeServer,
} from 'restaurant-partner-sdk/testing/node';
import { START, basic } from './helpers.js';
import { httpText, rawJson, rawRequest, type RawAnswer } from './raw-http.js';

export const demoAuth = basic(DEMO_PARTNER.partnerId, DEMO_PARTNER.apiToken);

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
