/**
 * What the simulator page adds to the control API, over real HTTP (so a script can do all the
 * page does): `GET /_fake/state` as a poller uses it (ETag, 304, a bounded delivery log, no token
 * for a viewer not on loopback) and `DELETE /_fake/faults/:id`; and how the page itself is served:
 * content types, a strict Content-Security-Policy, the control plane's guards.
 */
import { once } from 'node:events';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';
import { PartnerClient } from 'restaurant-partner-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_PARTNER, createFakeService } from 'restaurant-partner-sdk/testing';
import { startFakeServer, type RunningFakeServer } from 'restaurant-partner-sdk/testing/node';

let server: RunningFakeServer;
beforeEach(async () => {
  server = await startFakeServer({ seed: 'demo', port: 0, rateLimit: false });
});
afterEach(() => server.close());

const call = (method: string, route: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/_fake/${route}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** A raw request, for headers fetch will not let a caller set (Host). */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ hostname, port, path, headers }, (incoming) => {
      let body = '';
      incoming
        .setEncoding('utf8')
        .on('data', (chunk: string) => (body += chunk))
        .on('end', () => resolve({ status: incoming.statusCode!, body }));
    });
    outgoing.on('error', reject).end();
  });
}

describe('GET /_fake/state for a poller, and DELETE /_fake/faults/:id', () => {
  it('answers 304 to If-None-Match until something changes, then the new state with a new ETag', async () => {
    const first = await call('GET', 'state');
    expect(first.status).toBe(200);
    const state = await first.json();
    expect(state).toMatchObject({
      clock: { now: expect.any(String), frozen: false },
      rateLimit: { requestsPerSecond: false },
      remoteViewer: false,
      partners: [
        { partnerId: DEMO_PARTNER.partnerId, name: DEMO_PARTNER.name, apiToken: DEMO_PARTNER.apiToken },
      ],
      reservations: [],
      faults: [],
      deliveries: [],
      deliveriesTotal: 0,
    });
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(/^".+"$/);

    const unchanged = await call('GET', 'state', undefined, { 'if-none-match': tag });
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe('');

    await call('POST', 'restaurants/4/reservations', {
      start_time: '2030-01-01T19:00:00',
      adults: 2,
      channel: 'phone',
    });
    const changed = await call('GET', 'state', undefined, { 'if-none-match': tag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(tag);
    expect((await changed.json()).reservations).toEqual([
      expect.objectContaining({ channel: 'phone', partnerId: null, restaurantId: 4, confirmed: true }),
    ]);
  });

  it('?deliveries=N keeps the latest N attempts of the log and says how many there are', async () => {
    const receiver = createServer((_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    ).listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    try {
      const client = new PartnerClient({
        baseUrl: server.url,
        partnerId: DEMO_PARTNER.partnerId,
        apiToken: DEMO_PARTNER.apiToken,
        rateLimit: false,
      });
      await client.webhooks.create({
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
      });
      const booked = [];
      const date = DateTime.fromMillis(server.fake.clock.now(), { zone: 'Europe/Paris' })
        .plus({ days: 2 })
        .toISODate()!;
      for (const time of ['19:00', '19:30', '20:00'])
        booked.push(await client.reservations.create(2, { start_time: { date, time }, adults: 2 }));
      for (const reservation of booked)
        await call('POST', `restaurants/2/reservations/${reservation.id}/confirm`, {});
      const latest = await (await call('GET', 'state?deliveries=2')).json();
      expect(latest.deliveriesTotal).toBe(3);
      expect(latest.deliveries.map((delivery: { reservationId: number }) => delivery.reservationId)).toEqual([
        booked[1]!.id,
        booked[2]!.id,
      ]);
      expect((await call('GET', 'state?deliveries=5000')).status).toBe(400);
    } finally {
      receiver.close();
    }
  });

  it('DELETE /_fake/faults/:id removes one pending fault; a second removal is a 404', async () => {
    await call('POST', 'faults', { operation: 'reservations.create', status: 503 });
    await call('POST', 'faults', { operation: 'webhooks.create', status: 500, times: 3 });
    const faults = await (await call('GET', 'faults')).json();
    expect(faults.map((fault: { id: number; operation: string }) => fault.operation)).toEqual([
      'reservations.create',
      'webhooks.create',
    ]);
    expect((await call('DELETE', `faults/${faults[0].id}`)).status).toBe(204);
    expect((await (await call('GET', 'faults')).json()).map((fault: { id: number }) => fault.id)).toEqual([
      faults[1].id,
    ]);
    expect((await call('DELETE', `faults/${faults[0].id}`)).status).toBe(404);
    expect((await call('DELETE', 'faults/abc')).status).toBe(404);
  });

  it('GET /_fake/ lists them', async () => {
    const { routes } = await (await call('GET', '')).json();
    expect(routes).toEqual(
      expect.arrayContaining([
        'GET /_fake/state ?reservations=N&deliveries=N&bytes=N',
        'DELETE /_fake/faults/:faultId',
      ]),
    );
  });

  it('a viewer that is not on loopback never gets a partner token', async () => {
    const fake = createFakeService({ seed: 'demo' });
    const remote = { controlAllowed: true, remoteViewer: true };
    const state = await (await fake.handle(new Request('http://fake.test/_fake/state'), remote)).json();
    expect(state.remoteViewer).toBe(true);
    expect(state.partners).toEqual([
      { partnerId: DEMO_PARTNER.partnerId, name: DEMO_PARTNER.name, apiToken: null },
    ]);
    expect(JSON.stringify(state)).not.toContain(DEMO_PARTNER.apiToken);
    fake.dispose();
  });
});

describe('GET /_fake/ui', () => {
  it('serves the page and its two assets from the package with their content types and a strict Content-Security-Policy', async () => {
    const page = await fetch(`${server.url}/_fake/ui`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await page.text();
    // No inline script, no other origin.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/https?:\/\//);
    for (const [path, type] of [
      ['/_fake/ui/simulator.js', 'text/javascript; charset=utf-8'],
      ['/_fake/ui/simulator.css', 'text/css; charset=utf-8'],
    ] as const) {
      const asset = await fetch(`${server.url}${path}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toBe(type);
      expect(asset.headers.get('content-security-policy')).toBe(csp);
      expect((await asset.text()).length).toBeGreaterThan(1000);
    }
    expect((await fetch(`${server.url}/_fake/ui/`)).status).toBe(200);
    expect((await fetch(`${server.url}/_fake/ui/other.js`)).status).toBe(404);
    expect((await fetch(`${server.url}/_fake/ui/index.html`)).status).toBe(404);
    expect((await fetch(`${server.url}/_fake/ui`, { method: 'POST' })).status).toBe(405);
  });

  it('obeys the control plane guards: another Host name or a page of another origin gets a 403', async () => {
    const port = new URL(server.url).port;
    expect((await rawGet('/_fake/ui', { host: `127.0.0.1:${port}` })).status).toBe(200);
    expect((await rawGet('/_fake/ui', { host: `rebound.example:${port}` })).status).toBe(403);
    expect(
      (await rawGet('/_fake/ui/simulator.js', { host: `127.0.0.1:${port}`, origin: 'http://evil.example' }))
        .status,
    ).toBe(403);
    expect((await rawGet('/_fake/overview', { host: `rebound.example:${port}` })).status).toBe(403);
  });
});
