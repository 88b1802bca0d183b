import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFakeService } from 'restaurant-partner-sdk/testing';
import { START } from './helpers.js';
import { basicAuthorization } from '../support/basic-auth.js';

const fake = createFakeService({ rateLimit: false, clock: { frozen: true, startAt: START } });
const server = setupServer(...fake.handlers);
const unhandled: string[] = [];

beforeAll(() =>
  server.listen({
    onUnhandledFrame({ frame }: { frame: { data?: { request?: Request } } }) {
      unhandled.push(frame.data?.request?.url ?? 'frame');
    },
  } as never),
);
afterEach(() => {
  fake.reset();
  unhandled.length = 0;
});
afterAll(() => server.close());

// Whatever base URL the partner's code is configured with, the handlers answer.
const BASE = 'https://reservations.partner-service.example/api/v1/partnership';

describe('MSW handlers', () => {
  it('serve the partner API on any host through global fetch', async () => {
    const partner = fake.addPartner();
    const restaurant = fake.addRestaurant({ partnerIds: [partner.partnerId] });
    const headers = {
      authorization: basicAuthorization(partner.partnerId, partner.apiToken),
      'content-type': 'application/json',
    };
    const listed = await fetch(`${BASE}/restaurants/`, { headers });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual([expect.objectContaining({ id: restaurant.id })]);
    const created = await fetch(`${BASE}/restaurants/${restaurant.id}/reservations/`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ start_time: '2026-12-02T19:00:00', adults: 2 }),
    });
    expect(created.status).toBe(201);
    expect((await fetch(`${BASE}/profile`, { headers })).status).toBe(200);
    expect((await fetch(`${BASE}/restaurants/`)).status).toBe(401);
    const clock = await fetch('http://localhost/_fake/clock');
    expect(await clock.json()).toEqual({ now: '2026-12-01T08:00:00.000Z', frozen: true });
  });

  it('turn an injected network error into a failed fetch', async () => {
    const partner = fake.addPartner();
    fake.injectFault({ operation: 'profile.retrieve', networkError: true });
    await expect(
      fetch(`${BASE}/profile/`, {
        headers: { authorization: basicAuthorization(partner.partnerId, partner.apiToken) },
      }),
    ).rejects.toThrow(TypeError);
  });

  it('let webhook deliveries through to a real server in the same process (bypass)', async () => {
    const bodies: string[] = [];
    const receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        bodies.push(body);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const partner = fake.addPartner();
      const headers = {
        authorization: basicAuthorization(partner.partnerId, partner.apiToken),
        'content-type': 'application/json',
      };
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      const webhook = await (
        await fetch(`${BASE}/webhooks/`, { method: 'POST', headers, body: JSON.stringify({ url }) })
      ).json();
      const tested = await (
        await fetch(`${BASE}/webhooks/${webhook.id}/test/`, { method: 'POST', headers, body: '{}' })
      ).json();
      expect(tested).toMatchObject({ last_response_status_code: 200, last_response: { ok: true } });
      expect(bodies).toHaveLength(1);
      expect(JSON.parse(bodies[0]!)).toMatchObject({ event: 'TEST' });
      expect(unhandled).toEqual([]);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
