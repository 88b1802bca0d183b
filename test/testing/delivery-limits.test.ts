/**
 * Deliveries that end: every attempt within its time limit on both adapters, garbage collections
 * included, attempts to several webhooks at once, and a capped read of what a target answers.
 * Real targets on loopback: one that accepts and never answers, one that answers 20 MB.
 */
import { execFile } from 'node:child_process';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeService, type FakeService } from 'restaurant-partner-sdk/testing';
import { startFakeServer, type RunningFakeServer } from 'restaurant-partner-sdk/testing/node';
import { API } from './helpers.js';
import { basicAuthorization } from '../support/basic-auth.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/**
 * A target that accepts connections and never answers; counts the connections that carried a
 * request and how many of those closed. (undici may open a spare connection as a request is
 * aborted, idle until its keep-alive ends: it carries nothing and is not counted.)
 */
async function silentTarget(): Promise<{
  url: string;
  carried: () => number;
  closed: () => number;
  close: () => Promise<void>;
}> {
  const sockets: Socket[] = [];
  let carried = 0;
  let closed = 0;
  const server = createServer((socket) => {
    sockets.push(socket);
    let used = false;
    socket.on('error', () => undefined);
    socket.once('data', () => ((used = true), (carried += 1)));
    socket.on('close', () => used && (closed += 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`,
    carried: () => carried,
    closed: () => closed,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A partner with a linked restaurant, one booking, and `hooks` webhooks, on the standalone server. */
async function bookedOnServer(server: RunningFakeServer, hooks: string[]) {
  const fake = server.fake;
  const partner = fake.addPartner();
  const restaurant = fake.addRestaurant({ partnerIds: [partner.partnerId] });
  const headers = {
    authorization: basicAuthorization(partner.partnerId, partner.apiToken),
    'content-type': 'application/json',
  };
  for (const url of hooks)
    await fetch(`${server.url}${API}/webhooks/`, { method: 'POST', headers, body: JSON.stringify({ url }) });
  const day = new Date(fake.clock.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  const booking = await (
    await fetch(`${server.url}${API}/restaurants/${restaurant.id}/reservations/`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ start_time: `${day}T19:00:00`, adults: 2 }),
    })
  ).json();
  const cancel = () =>
    fetch(`${server.url}${API}/restaurants/${restaurant.id}/reservations/${booking.id}/?action=cancel`, {
      method: 'PATCH',
      headers,
    });
  return { cancel };
}

const waitFor = async (condition: () => boolean, ms: number) => {
  for (let waited = 0; !condition() && waited < ms; waited += 25)
    await new Promise((resolve) => setTimeout(resolve, 25));
};

describe('every delivery attempt ends within its time limit', () => {
  it.each(['standalone', 'msw'])(
    'through the %s adapter, with garbage collected while it waits',
    async (adapter) => {
      const timeoutMs = 1500;
      const { stdout } = await run(
        process.execPath,
        [
          '--expose-gc',
          '--import',
          'tsx',
          'test/testing/support/delivery-gc-probe.ts',
          adapter,
          String(timeoutMs),
        ],
        { cwd: root, timeout: 30_000 },
      );
      const result = JSON.parse(stdout.trim().split('\n').at(-1)!);
      expect(result.status).toBe(200);
      expect(result.error).toMatch(/^TimeoutError/);
      expect(result.targetConnections).toBeGreaterThan(0);
      // Ends at the limit, never at undici's own 300 s (generous for a loaded machine).
      expect(result.tookMs).toBeGreaterThanOrEqual(timeoutMs - 50);
      expect(result.tookMs).toBeLessThan(timeoutMs + 4000);
      // Over plain fetch the target sees its socket closed. (MSW's interceptor keeps a passthrough
      // socket open after its request was aborted; the attempt itself still ends on time.)
      if (adapter === 'standalone') expect(result.socketsClosed).toBe(result.targetConnections);
    },
  );

  describe('on the standalone server', () => {
    let server: RunningFakeServer;
    let target: Awaited<ReturnType<typeof silentTarget>>;
    afterEach(async () => {
      await server.close();
      await target.close();
    });

    it('runs attempts to several silent webhooks at once: a cancel with 3 of them waits one time limit, not three', async () => {
      const timeoutMs = 2000;
      target = await silentTarget();
      server = await startFakeServer({ rateLimit: false, deliveries: { timeoutMs } });
      const { cancel } = await bookedOnServer(server, [target.url, `${target.url}/2`, `${target.url}/3`]);
      const started = performance.now();
      const answer = await cancel();
      const took = performance.now() - started;
      expect(answer.status).toBe(200);
      expect(target.carried()).toBe(3);
      // One after another would take 6 s at least.
      expect(took).toBeLessThan(3 * timeoutMs - 1000);
      expect(server.fake.deliveries.map((entry) => entry.error)).toEqual([
        expect.stringMatching(/^TimeoutError/),
        expect.stringMatching(/^TimeoutError/),
        expect.stringMatching(/^TimeoutError/),
      ]);
      await waitFor(() => target.closed() === 3, 2000);
      expect(target.closed()).toBe(3);
    });
  });
});

describe('what a target answers is read with a cap and kept truncated', () => {
  let fake: FakeService;
  let target: Server;
  afterEach(async () => {
    fake.dispose();
    target.closeAllConnections();
    await new Promise((resolve) => target.close(resolve));
  });

  it('reads 8 KiB of a 20 MB answer, stops reading, and keeps 8 KiB', async () => {
    let written = 0;
    let finished = false;
    target = createHttpServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        while (written < 20 * 1024 * 1024) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        finished = true;
        response.end();
      };
      response.on('error', () => undefined);
      pump();
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(target.address() as { port: number }).port}/hooks`;
    fake = createFakeService({ rateLimit: false });
    const partner = fake.addPartner();
    const authorization = basicAuthorization(partner.partnerId, partner.apiToken);
    const created = await fake.handle(
      new Request(`http://fake.test${API}/webhooks/`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ url }),
      }),
    );
    const webhook = await created.json();
    for (let index = 0; index < 5; index += 1) {
      const tested = await fake.handle(
        new Request(`http://fake.test${API}/webhooks/${webhook.id}/test/`, {
          method: 'POST',
          headers: { authorization },
        }),
      );
      expect(await tested.json()).toMatchObject({ last_response_status_code: 200, last_response: null });
    }
    const log = fake.deliveries;
    expect(log).toHaveLength(5);
    for (const entry of log) {
      expect(entry).toMatchObject({ status: 200, responseTruncated: true });
      expect(typeof entry.response === 'string' && entry.response.length).toBe(8192);
    }
    // The rest was never read: the target never got to write its 20 MB.
    expect(finished).toBe(false);
  });
});
