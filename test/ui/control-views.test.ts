/**
 * The control routes the simulator page is built on, over real HTTP (so a script can do all the
 * page does), and how the page itself is served: content types, a strict Content-Security-Policy,
 * the control plane's guards, and no partner token for a viewer that is not on loopback.
 */
import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_PARTNER, createFakeService, startFakeServer, type RunningFakeServer } from 'restaurant-partner-sdk/testing';

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
      incoming.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => resolve({ status: incoming.statusCode!, body }));
    });
    outgoing.on('error', reject).end();
  });
}

describe('control views', () => {
  it('GET /_fake/overview shows everything at once, and answers 304 to If-None-Match until something changes', async () => {
    const first = await call('GET', 'overview');
    expect(first.status).toBe(200);
    const overview = await first.json();
    expect(overview).toMatchObject({
      clock: { now: expect.any(String), frozen: false },
      rateLimit: { requestsPerSecond: false },
      remoteViewer: false,
      partners: [{ partnerId: DEMO_PARTNER.partnerId, name: DEMO_PARTNER.name, apiToken: DEMO_PARTNER.apiToken }],
      faults: [],
      deliveries: { total: 0, latest: [] },
    });
    expect(overview.restaurants.map((restaurant: { display_name: string; reservations: unknown[] }) => [restaurant.display_name, restaurant.reservations.length])).toEqual([
      ['Le Petit Sablon', 0],
      ['Bistro des Vosges', 0],
      ['Hudson Street Grill', 0],
      ['Canal House (not linked)', 0],
    ]);
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(/^".+"$/);

    const unchanged = await call('GET', 'overview', undefined, { 'if-none-match': tag });
    expect(unchanged.status).toBe(304);

    await call('POST', 'restaurants/4/reservations', { start_time: '2030-01-01T19:00:00', adults: 2, channel: 'phone' });
    const changed = await call('GET', 'overview', undefined, { 'if-none-match': tag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(tag);
    const reservations = (await changed.json()).restaurants[3].reservations;
    expect(reservations).toEqual([expect.objectContaining({ channel: 'phone', partnerId: null, restaurantId: 4, state: 'confirmed' })]);

    expect((await call('GET', 'overview?deliveries=5000')).status).toBe(400);
  });

  it('GET /_fake/reservations lists every channel of every restaurant with its state', async () => {
    const created = await (await call('POST', 'restaurants/2/reservations', { start_time: '2030-01-01T19:00:00', adults: 2, channel: 'walk-in' })).json();
    await call('POST', `restaurants/2/reservations/${created.id}/cancel`, { by: 'customer' });
    expect(await (await call('GET', 'reservations')).json()).toEqual([expect.objectContaining({ id: created.id, restaurantId: 2, channel: 'walk-in', state: 'cancelled' })]);
  });

  it('DELETE /_fake/faults/:id removes one pending fault; a second removal is a 404', async () => {
    await call('POST', 'faults', { operation: 'reservations.create', status: 503 });
    await call('POST', 'faults', { operation: 'webhooks.create', status: 500, times: 3 });
    const faults = await (await call('GET', 'faults')).json();
    expect(faults.map((fault: { id: number; operation: string }) => fault.operation)).toEqual(['reservations.create', 'webhooks.create']);
    expect((await call('DELETE', `faults/${faults[0].id}`)).status).toBe(204);
    expect((await (await call('GET', 'faults')).json()).map((fault: { id: number }) => fault.id)).toEqual([faults[1].id]);
    expect((await call('DELETE', `faults/${faults[0].id}`)).status).toBe(404);
    expect((await call('DELETE', 'faults/abc')).status).toBe(404);
  });

  it('GET /_fake/ lists the new routes', async () => {
    const { routes } = await (await call('GET', '')).json();
    expect(routes).toEqual(expect.arrayContaining([expect.stringMatching(/^GET \/_fake\/overview/), 'DELETE /_fake/faults/:id', 'GET /_fake/ui (the simulator page)']));
  });

  it('a viewer that is not on loopback never gets a partner token', async () => {
    const fake = createFakeService({ seed: 'demo' });
    const remote = { controlAllowed: true, remoteViewer: true };
    const overview = await (await fake.handle(new Request('http://fake.test/_fake/overview'), remote)).json();
    expect(overview.remoteViewer).toBe(true);
    expect(overview.partners).toEqual([{ partnerId: DEMO_PARTNER.partnerId, name: DEMO_PARTNER.name, apiToken: null }]);
    const partners = await (await fake.handle(new Request('http://fake.test/_fake/partners'), remote)).text();
    expect(partners).not.toContain(DEMO_PARTNER.apiToken);
    expect(JSON.stringify(overview)).not.toContain(DEMO_PARTNER.apiToken);
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
    expect((await rawGet('/_fake/ui/simulator.js', { host: `127.0.0.1:${port}`, origin: 'http://evil.example' })).status).toBe(403);
    expect((await rawGet('/_fake/overview', { host: `rebound.example:${port}` })).status).toBe(403);
  });
});
