/**
 * Faults a create-safety check needs: an answer of any status (429 included) after the booking
 * was committed, over MSW and the standalone server; and a body that stalls after the headers,
 * read over a raw socket.
 */
import { connect } from 'node:net';
import { setupServer } from 'msw/node';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeService, type FakeService } from 'restaurant-partner-sdk/testing';
import { startFakeServer, type RunningFakeServer } from 'restaurant-partner-sdk/testing/node';
import { API } from './helpers.js';
import { basicAuthorization } from '../support/basic-auth.js';

function world(fake: FakeService) {
  const partner = fake.addPartner();
  const restaurant = fake.addRestaurant({ partnerIds: [partner.partnerId] });
  const day = new Date(fake.clock.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  const headers = {
    authorization: basicAuthorization(partner.partnerId, partner.apiToken),
    'content-type': 'application/json',
  };
  return { restaurant, headers, body: JSON.stringify({ start_time: `${day}T19:00:00`, adults: 2 }) };
}

describe('a fault answering after the commit, with any status', () => {
  let stop: () => Promise<void> = async () => undefined;
  afterEach(() => stop());

  it.each([
    ['standalone', 429],
    ['standalone', 503],
    ['msw', 429],
    ['msw', 200],
  ] as const)('over %s: %i, and the booking exists', async (adapter, status) => {
    const fake = createFakeService({ rateLimit: false });
    let base = 'https://partner-api.example';
    if (adapter === 'standalone') {
      const server: RunningFakeServer = await startFakeServer({ fake });
      base = server.url;
      stop = () => server.close();
    } else {
      const msw = setupServer(...fake.handlers);
      msw.listen();
      stop = async () => (msw.close(), fake.dispose());
    }
    const { restaurant, headers, body } = world(fake);
    fake.injectFault({
      operation: 'reservations.create',
      status,
      phase: 'after',
      headers: { 'retry-after': '1' },
    });
    const answer = await fetch(`${base}${API}/restaurants/${restaurant.id}/reservations/`, {
      method: 'POST',
      headers,
      body,
    });
    expect(answer.status).toBe(status);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(fake.allReservations(restaurant.id)).toHaveLength(1);
  });
});

describe('a fault whose body stalls after the headers (standalone server, raw socket)', () => {
  let server: RunningFakeServer;
  afterEach(() => server.close());

  it('sends the status line and headers at once, and the body only after bodyStallMs', async () => {
    server = await startFakeServer({ rateLimit: false });
    const { restaurant, headers, body } = world(server.fake);
    const added = await fetch(`${server.url}/_fake/faults`, {
      method: 'POST',
      body: JSON.stringify({ operation: 'reservations.create', status: 502, bodyStallMs: 1500 }),
    });
    expect(added.status).toBe(201);
    const socket = connect(server.port, '127.0.0.1');
    const started = performance.now();
    let received = '';
    let headersAt: number | undefined;
    let bodyAt: number | undefined;
    const done = new Promise<void>((resolve) => {
      socket.on('data', (chunk) => {
        received += chunk.toString('latin1');
        if (headersAt === undefined && received.includes('\r\n\r\n')) headersAt = performance.now() - started;
        if (bodyAt === undefined && received.includes('Injected fault')) {
          bodyAt = performance.now() - started;
          resolve();
        }
      });
    });
    const head = Object.entries({
      ...headers,
      host: `127.0.0.1:${server.port}`,
      'content-length': String(Buffer.byteLength(body)),
    }).map(([name, value]) => `${name}: ${value}`);
    socket.write(
      `POST ${API}/restaurants/${restaurant.id}/reservations/ HTTP/1.1\r\n${head.join('\r\n')}\r\n\r\n${body}`,
    );
    await done;
    socket.destroy();
    expect(received).toMatch(/^HTTP\/1\.1 502 /);
    expect(headersAt!).toBeLessThan(1000);
    expect(bodyAt!).toBeGreaterThanOrEqual(1450);
  });

  it('refuses bodyStallMs without a status, naming the field', async () => {
    server = await startFakeServer({ rateLimit: false });
    const refused = await fetch(`${server.url}/_fake/faults`, {
      method: 'POST',
      body: JSON.stringify({ bodyStallMs: 100, networkError: true }),
    });
    expect(refused.status).toBe(400);
    expect(Object.keys(await refused.json())).toContain('bodyStallMs');
  });
});
