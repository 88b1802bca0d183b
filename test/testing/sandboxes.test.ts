/**
 * Sandboxes: parallel suites share one standalone server, each in its own world (data, clock,
 * faults, rate limit, deliveries, journal), over plain HTTP as a suite in any language drives it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeServer, type RunningFakeServer } from 'restaurant-partner-sdk/testing/node';
import { basicAuthorization } from '../support/basic-auth.js';

let server: RunningFakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

describe('sandboxes on one standalone server', () => {
  it('each is an isolated world with its own data, clock, faults, rate limit and journal', async () => {
    server = await startFakeServer({ seed: 'demo', rateLimit: false });
    const first = await call('POST', `${server.url}/_fake/sandboxes`, { seed: 'demo', rateLimit: false });
    const second = await call('POST', `${server.url}/_fake/sandboxes`, {
      seed: 'none',
      rateLimit: 1,
      dialect: { list: 'array' },
    });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.stringMatching(/^sbx_[0-9a-f]{16}$/),
      url: `${server.url}/sandboxes/${first.body.id}`,
      controlUrl: `${server.url}/sandboxes/${first.body.id}/_fake`,
      partners: [expect.objectContaining({ name: 'Demo Booking Partner' })],
      restaurants: expect.arrayContaining([expect.objectContaining({ id: 1 })]),
    });
    expect(second.body.partners).toEqual([]);

    // Data: a booking in the first sandbox is not in the root world nor the second sandbox.
    const partner = first.body.partners[0];
    const auth = { authorization: basicAuthorization(partner.partnerId, partner.apiToken) };
    const booked = await call(
      'POST',
      `${first.body.url}/api/v1/partnership/restaurants/1/reservations/`,
      {
        start_time: `${new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10)}T19:00:00`,
        adults: 2,
      },
      auth,
    );
    expect(booked.status).toBe(201);
    expect((await call('GET', `${first.body.controlUrl}/restaurants/1/reservations`)).body).toHaveLength(1);
    expect(server.fake.allReservations(1)).toEqual([]);

    // Clock: advancing one sandbox's clock leaves the others where they were.
    const rootBefore = (await call('GET', `${server.url}/_fake/clock`)).body.now;
    await call('POST', `${first.body.controlUrl}/clock/advance`, { duration: 'P10D' });
    const firstNow = Date.parse((await call('GET', `${first.body.controlUrl}/clock`)).body.now);
    const secondNow = Date.parse((await call('GET', `${second.body.controlUrl}/clock`)).body.now);
    expect(firstNow - secondNow).toBeGreaterThan(9 * 86_400_000);
    expect(
      Date.parse((await call('GET', `${server.url}/_fake/clock`)).body.now) - Date.parse(rootBefore),
    ).toBeLessThan(86_400_000);

    // Faults: a fault in the first sandbox hits there only.
    await call('POST', `${first.body.controlUrl}/faults`, {
      operation: 'restaurants.list',
      status: 503,
      times: 5,
    });
    expect(
      (await call('GET', `${first.body.url}/api/v1/partnership/restaurants/`, undefined, auth)).status,
    ).toBe(503);
    const rootPartner = server.fake.describeSeed().partners[0]!;
    expect(
      (
        await call('GET', `${server.url}/api/v1/partnership/restaurants/`, undefined, {
          authorization: basicAuthorization(rootPartner.partnerId, rootPartner.apiToken),
        })
      ).status,
    ).toBe(200);

    // Rate limit and dialect: the second sandbox's own.
    const own = (await call('POST', `${second.body.controlUrl}/partners`, {})).body;
    const restaurant = (
      await call('POST', `${second.body.controlUrl}/restaurants`, { partnerIds: [own.partnerId] })
    ).body;
    const ownAuth = { authorization: basicAuthorization(own.partnerId, own.apiToken) };
    expect(
      (
        await call(
          'GET',
          `${second.body.url}/api/v1/partnership/restaurants/${restaurant.id}/reservations/`,
          undefined,
          ownAuth,
        )
      ).body,
    ).toEqual([]);
    expect(
      (await call('GET', `${second.body.url}/api/v1/partnership/restaurants/`, undefined, ownAuth)).status,
    ).toBe(429);

    // Journal: each world lists its own requests.
    const journal = (await call('GET', `${second.body.controlUrl}/requests`)).body;
    expect(journal.map((entry: { path: string; status: number }) => [entry.path, entry.status])).toEqual([
      [`/sandboxes/${second.body.id}/_fake/partners`, 201],
      [`/sandboxes/${second.body.id}/_fake/restaurants`, 201],
      [`/sandboxes/${second.body.id}/api/v1/partnership/restaurants/${restaurant.id}/reservations/`, 200],
      [`/sandboxes/${second.body.id}/api/v1/partnership/restaurants/`, 429],
    ]);

    // The listing, then delete: its URLs answer 404 and name why.
    expect(
      (await call('GET', `${server.url}/_fake/sandboxes`)).body
        .map((sandbox: { id: string }) => sandbox.id)
        .sort(),
    ).toEqual([first.body.id, second.body.id].sort());
    expect((await call('DELETE', `${server.url}/_fake/sandboxes/${first.body.id}`)).status).toBe(204);
    const gone = await call('GET', `${first.body.controlUrl}/clock`);
    expect(gone.status).toBe(404);
    expect(gone.body.detail).toMatch(/deleted, expired/);
    expect((await call('DELETE', `${server.url}/_fake/sandboxes/${first.body.id}`)).status).toBe(404);
    // Sandboxes are made at the root only.
    expect((await call('POST', `${second.body.controlUrl}/sandboxes`, {})).status).toBe(404);
  });

  it('two suites at once on one server, each in its sandbox, each seeing only its own clock, faults and bookings', async () => {
    server = await startFakeServer({ seed: 'demo', rateLimit: false });
    const suite = async (name: string, days: number, faultStatus: number) => {
      const sandbox = (await call('POST', `${server!.url}/_fake/sandboxes`, { rateLimit: false })).body;
      const partner = sandbox.partners[0];
      const auth = { authorization: basicAuthorization(partner.partnerId, partner.apiToken) };
      const api = (path: string) => `${sandbox.url}/api/v1/partnership${path}`;
      await call('POST', `${sandbox.controlUrl}/clock/advance`, { duration: `P${days}D` });
      await call('POST', `${sandbox.controlUrl}/faults`, {
        operation: 'profile.retrieve',
        status: faultStatus,
        times: 3,
      });
      const date = new Date(
        Date.parse((await call('GET', `${sandbox.controlUrl}/clock`)).body.now) + 86_400_000,
      )
        .toISOString()
        .slice(0, 10);
      const statuses: number[] = [];
      for (let index = 0; index < 3; index += 1) {
        statuses.push((await call('GET', api('/profile/'), undefined, auth)).status);
        const booked = await call(
          'POST',
          api('/restaurants/1/reservations/'),
          { start_time: `${date}T${19 + index}:00:00`, adults: 2, first_name: name },
          auth,
        );
        statuses.push(booked.status);
      }
      const listed = (
        await call('GET', api('/restaurants/1/reservations/'), undefined, auth)
      ).body.results.map((reservation: { first_name: string }) => reservation.first_name);
      const now = (await call('GET', `${sandbox.controlUrl}/clock`)).body.now;
      return { statuses, listed, now, sandbox };
    };
    const [first, second] = await Promise.all([suite('first', 10, 503), suite('second', 40, 418)]);
    expect(first.statuses).toEqual([503, 201, 503, 201, 503, 201]);
    expect(second.statuses).toEqual([418, 201, 418, 201, 418, 201]);
    expect(first.listed).toEqual(['first', 'first', 'first']);
    expect(second.listed).toEqual(['second', 'second', 'second']);
    expect(Date.parse(second.now) - Date.parse(first.now)).toBeGreaterThan(29 * 86_400_000);
    expect(server.fake.allReservations(1)).toEqual([]);
  });

  it('refuses bad input, bounds their number, and expires idle ones', async () => {
    server = await startFakeServer({ rateLimit: false, sandboxes: { max: 2, idleTimeoutMs: 200 } });
    const bad = await call('POST', `${server.url}/_fake/sandboxes`, {
      seed: 'everything',
      rateLimit: -1,
      dialect: 'array',
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body)).toEqual(expect.arrayContaining(['seed', 'rateLimit', 'dialect']));
    expect(
      (await call('POST', `${server.url}/_fake/sandboxes`, { dialect: { list: 'csv' } })).body.dialect,
    ).toEqual([expect.stringContaining('list must be one of envelope, array')]);
    const kept = (await call('POST', `${server.url}/_fake/sandboxes`, {})).body;
    // Seeded like the server (no seed here) unless the body says otherwise.
    expect(kept.partners).toEqual([]);
    await call('POST', `${server.url}/_fake/sandboxes`, {});
    const third = await call('POST', `${server.url}/_fake/sandboxes`, {});
    expect(third.status).toBe(409);
    expect(third.body.code).toBe('too_many_sandboxes');
    // Idle for longer than the limit (real time, as a forgotten CI shard's would be): gone.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await call('GET', `${kept.controlUrl}/clock`)).status).toBe(404);
    expect((await call('POST', `${server.url}/_fake/sandboxes`, {})).status).toBe(201);
  });

  it("guards a sandbox's control API like the root's", async () => {
    server = await startFakeServer({ rateLimit: false });
    const sandbox = (await call('POST', `${server.url}/_fake/sandboxes`, {})).body;
    expect(
      (await call('POST', `${sandbox.controlUrl}/reset`, undefined, { origin: 'http://evil.example' }))
        .status,
    ).toBe(403);
    expect(
      (await call('POST', `${server.url}/_fake/sandboxes`, {}, { origin: 'http://evil.example' })).status,
    ).toBe(403);
  });
});
