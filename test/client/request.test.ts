/**
 * `client.request(...)`: operations the SDK does not wrap go through the same pipeline as the
 * others (throttle, retries by method, deadline, validation), against the in-process fake.
 */
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { FakeService } from 'restaurant-partner-sdk/testing';
import {
  InputValidationError,
  NotFoundError,
  PartnerApiError,
  PartnerClient,
  ResponseValidationError,
  silentLogger,
  type Logger,
} from 'restaurant-partner-sdk';
import { fakeWithClient } from '../support/fake-client.js';

let fake: FakeService;
afterEach(() => fake?.dispose());

function setUp(extra: Partial<ConstructorParameters<typeof PartnerClient>[0]> = {}) {
  const made = fakeWithClient({ client: extra });
  fake = made.fake;
  const partnerRequests = () => fake.requests.filter((entry) => entry.face === 'partner');
  return { client: made.client, restaurant: made.restaurant, partnerRequests };
}

const RestaurantList = z.array(z.object({ id: z.number() }).loose());
const Envelope = z.object({ results: RestaurantList }).loose();
const Listing = z.union([RestaurantList, Envelope]);

describe('client.request', () => {
  it('reads a known route, typed and checked by the schema, with the response', async () => {
    const { client, restaurant } = setUp();
    const listing = await client.request({ method: 'GET', path: 'restaurants/', schema: Listing });
    expectTypeOf(listing).toEqualTypeOf<z.output<typeof Listing>>();
    const items = Array.isArray(listing) ? listing : listing.results;
    expect(items.map((item) => item.id)).toContain(restaurant.id);

    const { data, response } = await client
      .request({ method: 'GET', path: '/api/v1/partnership/restaurants/' })
      .withResponse();
    expectTypeOf(data).toBeUnknown();
    expect(response?.status).toBe(200);
    expect(JSON.stringify(data)).toContain(String(restaurant.id));
  });

  it('an answer outside the schema is a ResponseValidationError; a warning under responseValidation warn', async () => {
    const { client } = setUp();
    const Wrong = z.array(z.object({ availability: z.array(z.string()) }));
    await expect(
      client.request({ method: 'GET', path: 'restaurants/', schema: Wrong }),
    ).rejects.toBeInstanceOf(ResponseValidationError);

    const warnings: string[] = [];
    const logger: Logger = { ...silentLogger, warn: (message: string) => warnings.push(message) };
    const lenient = client.withOptions({ responseValidation: 'warn', logger });
    const received = await lenient.request({ method: 'GET', path: 'restaurants/', schema: Wrong });
    expect(received).toBeDefined();
    expect(warnings.join('\n')).toContain('availability');
  });

  it('an unknown route is a NotFoundError (availability on the fake)', async () => {
    const { client, restaurant } = setUp();
    await expect(
      client.request({
        method: 'GET',
        path: `restaurants/${restaurant.id}/availability/`,
        query: { date: '2026-12-05' },
      }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it.each([
    '../profile/',
    'restaurants/../../admin/',
    'restaurants/%2e%2e/x/',
    'restaurants/a%2Fb/',
    '/restaurants/',
    '//evil.example/api/v1/partnership/',
    'https://evil.example/api/v1/partnership/restaurants/',
    '/api/v1/partnership/../admin/',
    'restaurants/?page=2',
    '',
  ])('refuses the path %j before any request', async (path) => {
    const { client, partnerRequests } = setUp();
    const error = await client.request({ method: 'GET', path }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(InputValidationError);
    expect((error as InputValidationError).issues[0]?.field).toBe('path');
    expect(partnerRequests()).toHaveLength(0);
  });

  it('refuses an unknown method and a body JSON cannot carry', async () => {
    const { client, partnerRequests } = setUp();
    await expect(client.request({ method: 'TRACE' as never, path: 'restaurants/' })).rejects.toBeInstanceOf(
      InputValidationError,
    );
    await expect(
      client.request({ method: 'POST', path: 'webhooks/', body: { n: 1n } }),
    ).rejects.toBeInstanceOf(InputValidationError);
    expect(partnerRequests()).toHaveLength(0);
  });

  it('a 429 is retried after the pause, paced by the rate limiter', async () => {
    const { client, partnerRequests } = setUp();
    fake.injectFault({ operation: 'restaurants.list', status: 429, headers: { 'retry-after': '3' } });
    const started = fake.clock.now();
    await client.request({ method: 'GET', path: 'restaurants/', schema: Listing });
    const requests = partnerRequests();
    expect(requests.map((entry) => entry.status)).toEqual([429, 200]);
    expect(fake.clock.now() - started).toBeGreaterThanOrEqual(3_000);
  });

  it("withResponse() and list pages give the call's id, the one its hook events and log lines carry", async () => {
    const seen: Array<{ operation: string; callId: string }> = [];
    const { client, restaurant } = setUp({
      hooks: { onRequest: ({ operation, callId }) => void seen.push({ operation, callId }) },
    });
    const created = await client.reservations
      .create(restaurant.id, {
        start_time: { date: new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10), time: '19:00' },
        adults: 2,
      })
      .withResponse();
    const page = await client.reservations.list(restaurant.id);
    const profile = await client.profile.retrieve().withResponse();
    const idOf = (operation: string) => [
      ...new Set(seen.filter((event) => event.operation === operation).map((event) => event.callId)),
    ];
    expect(idOf('reservations.create')).toEqual([created.callId]);
    expect(idOf('reservations.list')).toEqual([page.callId]);
    expect(idOf('profile.retrieve')).toEqual([profile.callId]);
    expect(new Set([created.callId, page.callId, profile.callId]).size).toBe(3);
  });

  it('a 500 on GET is retried; on POST it is not resent', async () => {
    const { client, partnerRequests } = setUp();
    fake.injectFault({ operation: 'restaurants.list', status: 500 });
    await client.request({ method: 'GET', path: 'restaurants/' });
    expect(partnerRequests().map((entry) => entry.status)).toEqual([500, 200]);

    fake.injectFault({ operation: 'webhooks.create', status: 500 });
    const error = await client
      .request({ method: 'POST', path: 'webhooks/', body: { url: 'https://partner.example/hooks' } })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(PartnerApiError);
    expect((error as PartnerApiError).status).toBe(500);
    expect(partnerRequests().filter((entry) => entry.method === 'POST')).toHaveLength(1);
  });

  it('takes per-call options: maxRetries and headers', async () => {
    const { client, partnerRequests } = setUp();
    fake.injectFault({ operation: 'restaurants.list', status: 503, times: 5 });
    await expect(
      client.request({ method: 'GET', path: 'restaurants/' }, { maxRetries: 1 }),
    ).rejects.toBeInstanceOf(PartnerApiError);
    expect(partnerRequests()).toHaveLength(2);
    await expect(
      client.request({ method: 'GET', path: 'restaurants/' }, { headers: { authorization: 'x' } }),
    ).rejects.toBeInstanceOf(InputValidationError);
  });
});
