/**
 * `bodyTimeoutMs`: a sender that trickles its body (1 byte a second) is answered 408 once the
 * limit, counted from the headers, has passed; no handler runs and the connection is closed. Real
 * `node:http` servers and a real `node:http` client, on both ways of hosting the receiver.
 */
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { buildDelivery, createWebhookReceiver, type WebhookReceiver } from 'restaurant-partner-sdk/webhooks';
import { DEFAULT_BODY_TIMEOUT_MS } from '../../src/webhooks/options.js';
import { TOKEN } from './helpers.js';
import { startFetchStyleServer, startNodeServer, type RunningServer } from './servers.js';
import { reservation } from '../support/reservation.js';

interface TrickleOutcome {
  status: number;
  body: string;
  /** Milliseconds from the headers being sent to the answer. */
  answeredAfterMs: number;
  /** Bytes of the body written before the answer came. */
  bytesSent: number;
  /** Whether the server closed the connection within 5 s of its answer. */
  closed: boolean;
}

/** POSTs `body` with its full Content-Length, one byte a second, and stops writing once answered. */
function trickle(url: string, headers: Record<string, string>, body: string): Promise<TrickleOutcome> {
  return new Promise((resolve, reject) => {
    const bytes = Buffer.from(body);
    const target = new URL(url);
    const startedAt = Date.now();
    let bytesSent = 0;
    const request = httpRequest({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: 'POST',
      agent: false,
      headers: { ...headers, 'content-length': String(bytes.byteLength) },
    });
    request.on('error', (error) => (bytesSent === 0 ? reject(error) : undefined));
    request.flushHeaders();
    const sendOne = () => {
      if (bytesSent >= bytes.byteLength || request.destroyed) return;
      request.write(bytes.subarray(bytesSent, bytesSent + 1));
      bytesSent += 1;
    };
    sendOne();
    const timer = setInterval(sendOne, 1000);
    request.on('response', (response) => {
      const answeredAfterMs = Date.now() - startedAt;
      clearInterval(timer);
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        const socket = request.socket;
        const finish = (closed: boolean) => {
          clearTimeout(giveUp);
          request.destroy();
          resolve({ status: response.statusCode ?? 0, body: text, answeredAfterMs, bytesSent, closed });
        };
        const giveUp = setTimeout(() => finish(false), 5_000);
        if (!socket || socket.destroyed) finish(true);
        else socket.once('close', () => finish(true));
      });
    });
  });
}

const hosts: [string, (receiver: WebhookReceiver) => Promise<RunningServer>, string][] = [
  ['nodeHandler() on node:http', startNodeServer, ''],
  ['handle() on node:http', startFetchStyleServer, '/webhooks/reservations'],
];

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.each(hosts)('bodyTimeoutMs with %s', (_name, start, path) => {
  it('answers 408 to a body trickling at 1 byte/s once the limit has passed since the headers, runs no handler, closes the connection', async () => {
    let runs = 0;
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false, bodyTimeoutMs: 1_500 }).on(
      '*',
      () => void (runs += 1),
    );
    server = await start(receiver);
    const delivery = buildDelivery(
      { event: 'RESERVATION_CONFIRMED', reservation: reservation(), restaurantId: 1 },
      TOKEN,
    );
    const outcome = await trickle(`${server.url}${path}`, delivery.headers, delivery.body);
    expect(outcome.status).toBe(408);
    expect(JSON.parse(outcome.body)).toEqual({
      error: expect.stringMatching(/did not arrive within 1500 ms/),
    });
    // Not before the limit; well before the body could have ended (hundreds of seconds away).
    expect(outcome.answeredAfterMs).toBeGreaterThanOrEqual(1_400);
    expect(outcome.answeredAfterMs).toBeLessThan(15_000);
    expect(outcome.bytesSent).toBeLessThan(delivery.body.length);
    expect(outcome.closed).toBe(true);
    expect(runs).toBe(0);
  }, 30_000);

  it('a body that arrives in time is handled as before', async () => {
    let runs = 0;
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false, bodyTimeoutMs: 1_500 }).on(
      '*',
      () => void (runs += 1),
    );
    server = await start(receiver);
    const delivery = buildDelivery({ event: 'TEST' }, TOKEN);
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
    });
    expect(response.status).toBe(200);
    expect(runs).toBe(1);
  });
});

it('the default limit is at most 30 s', () => {
  expect(DEFAULT_BODY_TIMEOUT_MS).toBeGreaterThan(0);
  expect(DEFAULT_BODY_TIMEOUT_MS).toBeLessThanOrEqual(30_000);
});
