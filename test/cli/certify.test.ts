/**
 * `restaurant-partner certify`: the SDK's own receiver (Express, `node:http`, fetch-style) passes
 * every check, run as a child process; receivers with one planted fault each fail the matching
 * check (the battery run in-process, against real HTTP servers).
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, describe, expect, it } from 'vitest';
import { createWebhookReceiver } from 'restaurant-partner-sdk/webhooks';
import { certify } from '../../src/cli/certify.js';
import { records, run, stopAll } from './support.js';

const TOKEN = 'whk_Current_Token_42';
const OLD = 'whk_Retired_Token_41';
const NEXT = 'whk_Next_Token_43';
const servers: Server[] = [];
afterAll(() => {
  stopAll();
  for (const server of servers) server.close();
});

const quiet = { warn: () => undefined, error: () => undefined };
const sdkReceiver = () => createWebhookReceiver({ tokens: [TOKEN, NEXT], logger: quiet });

async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  const server = createServer(handler).listen(0, '127.0.0.1');
  servers.push(server);
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
}

/** The SDK receiver's fetch-style `handle`, served over node:http as Next.js or Hono would. */
function fetchStyle(): (request: IncomingMessage, response: ServerResponse) => void {
  const receiver = sdkReceiver();
  return (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk) => chunks.push(chunk));
    const respond = async () => {
      const answer = await receiver.handle(
        new Request(`http://127.0.0.1${request.url}`, {
          method: request.method,
          headers: request.headers as Record<string, string>,
          body: Buffer.concat(chunks),
        }),
      );
      response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(await answer.text());
    };
    // The emitter does not wait on a listener: a failure resets the connection rather than go unhandled.
    request.on('end', () => void respond().catch(() => response.destroy()));
  };
}

async function expressReceiver(): Promise<string> {
  const app = express();
  app.post('/webhooks', sdkReceiver().nodeHandler());
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
}

describe('restaurant-partner certify against the SDK receiver', { timeout: 60_000 }, () => {
  for (const [name, url] of [
    ['Express', expressReceiver],
    ['node:http', () => serve(sdkReceiver().nodeHandler())],
    ['fetch-style', () => serve(fetchStyle())],
  ] as const) {
    it(`${name}: every check passes (exit 0)`, async () => {
      const result = await run(
        ['certify', '--webhook-url', await url(), '--old-token', OLD, '--next-token', NEXT, '--json'],
        { PARTNER_WEBHOOK_TOKEN: TOKEN },
      );
      expect(result.code, result.stdout + result.stderr).toBe(0);
      const checks = records(result.lines).filter((record) => record.check);
      expect(checks.map((check) => [check.check, check.outcome])).toEqual([
        ['valid delivery', 'pass'],
        ['missing token', 'pass'],
        ['forged token', 'pass'],
        ['re-cased token', 'pass'],
        ['retired token', 'pass'],
        ['next token', 'pass'],
        ['same delivery twice', 'pass'],
        ['out of order', 'pass'],
        ['body over the limit', 'pass'],
        ['body not JSON', 'pass'],
        ['answer time', 'pass'],
      ]);
      expect(result.stdout).not.toContain(TOKEN);
      expect(result.stdout).not.toContain(OLD);
    });
  }

  it('reports checks without their token as skipped, lines for people, and exit 2 without a token', async () => {
    const url = await serve(sdkReceiver().nodeHandler());
    const result = await run(['certify', '--webhook-url', url], { PARTNER_WEBHOOK_TOKEN: TOKEN });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/SKIPPED retired token: no --old-token given/);
    expect(result.stdout).toMatch(/PASS {4}answer time: a valid delivery was answered in \d+ ms/);
    expect((await run(['certify', '--webhook-url', url])).code).toBe(2);
  });
});

/** A receiver with one fault: the SDK's answer, except where `fault` answers first. */
function planted(
  fault: (facts: {
    authorization: string | undefined;
    body: string;
    seen: Set<string>;
  }) => number | undefined,
  delayMs = 0,
) {
  const receiver = sdkReceiver();
  const seen = new Set<string>();
  return serve((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk) => chunks.push(chunk));
    const respond = async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const status = fault({ authorization: request.headers.authorization, body, seen });
      let id: string | undefined;
      try {
        id = JSON.parse(body).id;
      } catch {
        // Not JSON: the SDK's answer decides.
      }
      if (id) seen.add(id);
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (status !== undefined) return response.writeHead(status).end();
      const answer = await receiver.handle(
        new Request('http://127.0.0.1/webhooks', {
          method: 'POST',
          headers: request.headers as Record<string, string>,
          body,
        }),
      );
      response.writeHead(answer.status).end(await answer.text());
    };
    // As above: a failure resets the connection rather than go unhandled.
    request.on('end', () => void respond().catch(() => response.destroy()));
  });
}

const sameToken = (authorization: string | undefined, token: string) =>
  authorization?.toLowerCase() === `bearer ${token.toLowerCase()}`;

describe('certify catches each planted fault with the matching check', { timeout: 60_000 }, () => {
  const cases: [string, Promise<string> | (() => Promise<string>), string][] = [
    [
      'accepts a delivery without a token',
      () => planted(({ authorization }) => (authorization ? undefined : 200)),
      'missing token',
    ],
    [
      'accepts any token',
      () => planted(({ authorization }) => (authorization ? 200 : undefined)),
      'forged token',
    ],
    [
      'compares tokens without case',
      () => planted(({ authorization }) => (sameToken(authorization, TOKEN) ? 200 : undefined)),
      're-cased token',
    ],
    [
      'still accepts the retired token',
      () => planted(({ authorization }) => (authorization === `Bearer ${OLD}` ? 200 : undefined)),
      'retired token',
    ],
    [
      'refuses the next token',
      () => planted(({ authorization }) => (authorization === `Bearer ${NEXT}` ? 401 : undefined)),
      'next token',
    ],
    [
      'refuses a repeated delivery',
      () =>
        planted(({ body, seen }) => {
          try {
            return seen.has(JSON.parse(body).id) ? 409 : undefined;
          } catch {
            return undefined;
          }
        }),
      'same delivery twice',
    ],
    [
      'fails on an older event after a newer one',
      () =>
        planted(({ body }) =>
          body.includes('"RESERVATION_CONFIRMED"') && body.includes('2030-06-02T11:00:00') ? 500 : undefined,
        ),
      'out of order',
    ],
    [
      'answers 500 to a body over the limit',
      () => planted(({ body }) => (body.length > 1024 * 1024 ? 500 : undefined)),
      'body over the limit',
    ],
    [
      'answers 500 to a body that is not JSON',
      () =>
        planted(({ body }) => {
          try {
            JSON.parse(body);
            return undefined;
          } catch {
            return 500;
          }
        }),
      'body not JSON',
    ],
    ['answers slowly', () => planted(() => undefined, 400), 'answer time'],
  ];
  for (const [fault, makeUrl, check] of cases) {
    it(`${fault}: "${check}" fails`, async () => {
      const url = await (typeof makeUrl === 'function' ? makeUrl() : makeUrl);
      const results = await certify({
        url,
        token: TOKEN,
        oldToken: OLD,
        nextToken: NEXT,
        maxBodyBytes: 1024 * 1024,
        slowMs: 300,
      });
      const failed = results.filter((result) => result.outcome === 'fail').map((result) => result.check);
      expect(failed).toContain(check);
      // A receiver that answers the right token at all still passes the first check.
      expect(results[0]).toMatchObject({ check: 'valid delivery', outcome: 'pass' });
      expect(results.find((result) => result.check === check)!.detail).toMatch(
        /: .*(refuse|answer|accept|deliveries)/,
      );
    });
  }
});
