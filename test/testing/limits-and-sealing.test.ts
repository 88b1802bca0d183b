/**
 * Everything the fake keeps is bounded, a limit reached is a 409 `limit_reached` naming it (never
 * a 500 or a slowdown), and a deleted sandbox is sealed: a call in flight finishes without a
 * trace, and no delivery or timer outlives it.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeError } from 'restaurant-partner-sdk/testing';
import { startFakeServer, type RunningFakeServer } from 'restaurant-partner-sdk/testing/node';
import { API, DRIVERS, createDriver } from './helpers.js';
import { basicAuthorization } from '../support/basic-auth.js';

type Driver = Awaited<ReturnType<typeof createDriver>>;

describe.each(DRIVERS)('limits through %s', (kind) => {
  let driver: Driver;
  afterEach(() => driver.close());

  it('webhooks per partner: the 21st is a 409 naming the limit; deleting one makes room', async () => {
    driver = await createDriver(kind);
    for (let index = 0; index < 20; index += 1)
      expect(
        (await driver.send('POST', '/webhooks/', { body: { url: `https://partner.example/${index}` } }))
          .status,
      ).toBe(201);
    const refused = await driver.send('POST', '/webhooks/', { body: { url: 'https://partner.example/21' } });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: 'limit_reached',
      detail: expect.stringContaining('20 webhooks per partner'),
    });
    const first = (await driver.send('GET', '/webhooks/')).body[0];
    await driver.send('DELETE', `/webhooks/${first.id}/`);
    expect(
      (await driver.send('POST', '/webhooks/', { body: { url: 'https://partner.example/21' } })).status,
    ).toBe(201);
  });

  it('faults: each answer is the one fault added (not the list); the 1001st waiting is a 409', async () => {
    driver = await createDriver(kind);
    for (let index = 0; index < 999; index += 1)
      driver.fake.injectFault({ operation: 'webhooks.list', status: 503 });
    const added = await driver.send('POST', '/_fake/faults', {
      body: { operation: 'webhooks.list', status: 503 },
      auth: null,
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ id: 1000, status: 503, remaining: 1 });
    const refused = await driver.send('POST', '/_fake/faults', { body: { status: 503 }, auth: null });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: 'limit_reached',
      detail: expect.stringContaining('1,000 faults waiting'),
    });
    expect((await driver.send('GET', '/_fake/faults', { auth: null })).body).toHaveLength(1000);
  });

  it('delayed commits: a commitDelayMs fault whose times would exceed 1,000 waiting commits is a 409', async () => {
    driver = await createDriver(kind);
    expect(
      (
        await driver.send('POST', '/_fake/faults', {
          body: { operation: 'reservations.create', status: 504, commitDelayMs: 1000, times: 600 },
          auth: null,
        })
      ).status,
    ).toBe(201);
    const refused = await driver.send('POST', '/_fake/faults', {
      body: { operation: 'reservations.create', status: 504, commitDelayMs: 1000, times: 401 },
      auth: null,
    });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('delayed commit');
    expect(
      (
        await driver.send('POST', '/_fake/faults', {
          body: { operation: 'reservations.create', status: 504, commitDelayMs: 1000, times: 400 },
          auth: null,
        })
      ).status,
    ).toBe(201);
  });
});

describe('limits from code', () => {
  it('throw a FakeError with status 409 and code limit_reached', async () => {
    const driver = await createDriver('handle');
    try {
      for (let index = 0; index < 1000; index += 1) driver.fake.injectFault({ status: 500 });
      let caught: unknown;
      try {
        driver.fake.injectFault({ status: 500 });
      } catch (error) {
        caught = error;
      }
      expect(caught instanceof FakeError && [caught.status, caught.code]).toEqual([409, 'limit_reached']);
    } finally {
      await driver.close();
    }
  });
});

describe('a deleted sandbox is sealed', () => {
  let server: RunningFakeServer;
  let target: ReturnType<typeof createServer>;
  const received: string[] = [];
  afterEach(async () => {
    await server.close();
    target.closeAllConnections();
    await new Promise((resolve) => target.close(resolve));
  });

  async function sandboxWithWebhook() {
    received.length = 0;
    target = createServer((request: IncomingMessage, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        received.push(body);
        // Answers 500, so a retry would follow on the clock if anything survived.
        response.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(target.address() as { port: number }).port}/hooks`;
    server = await startFakeServer({ seed: 'none', rateLimit: false, deliveries: { retryDelaysMs: [200] } });
    const sandbox = await (
      await fetch(`${server.url}/_fake/sandboxes`, {
        method: 'POST',
        body: JSON.stringify({ seed: 'demo', rateLimit: false }),
      })
    ).json();
    const partner = sandbox.partners[0];
    const headers = {
      authorization: basicAuthorization(partner.partnerId, partner.apiToken),
      'content-type': 'application/json',
    };
    const api = `${sandbox.url}${API}`;
    expect(
      (await fetch(`${api}/webhooks/`, { method: 'POST', headers, body: JSON.stringify({ url: hook }) }))
        .status,
    ).toBe(201);
    const day = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const booking = await (
      await fetch(`${api}/restaurants/1/reservations/`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ start_time: `${day}T19:00:00`, adults: 2 }),
      })
    ).json();
    return { sandbox, api, headers, booking };
  }

  it('a call in flight when the sandbox is deleted is answered 404 and delivers nothing, then or later', async () => {
    const { sandbox, api, headers, booking } = await sandboxWithWebhook();
    // The cancel waits 300 ms (an injected latency) before it takes effect.
    await fetch(`${sandbox.controlUrl}/faults`, {
      method: 'POST',
      body: JSON.stringify({ operation: 'reservations.cancel', latencyMs: 300 }),
    });
    const inFlight = fetch(`${api}/restaurants/1/reservations/${booking.id}/?action=cancel`, {
      method: 'PATCH',
      headers,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await fetch(`${server.url}/_fake/sandboxes/${sandbox.id}`, { method: 'DELETE' })).status).toBe(
      204,
    );
    const answer = await inFlight;
    expect(answer.status).toBe(404);
    expect((await answer.json()).detail).toContain('deleted while this request ran');
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(received).toEqual([]);
  });

  it('a retry waiting on the sandbox clock never goes out after the delete', async () => {
    const { sandbox, api, headers, booking } = await sandboxWithWebhook();
    expect(
      (
        await fetch(`${api}/restaurants/1/reservations/${booking.id}/?action=cancel`, {
          method: 'PATCH',
          headers,
        })
      ).status,
    ).toBe(200);
    expect(received).toHaveLength(1);
    expect((await fetch(`${server.url}/_fake/sandboxes/${sandbox.id}`, { method: 'DELETE' })).status).toBe(
      204,
    );
    // The retry was due 200 ms later (the sandbox clock follows real time).
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(received).toHaveLength(1);
  });
});
