import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DRIVERS, createDriver } from './helpers.js';
import { basicAuthorization } from '../support/basic-auth.js';

type Driver = Awaited<ReturnType<typeof createDriver>>;

describe.each(DRIVERS)('authentication, rate limit, profile and restaurants through %s', (kind) => {
  let driver: Driver;
  afterEach(() => driver.close());

  describe('Basic auth', () => {
    beforeEach(async () => {
      driver = await createDriver(kind, { rateLimit: 1 });
    });

    it('answers 401 with WWW-Authenticate: Basic for missing, malformed, unknown or wrong credentials, before anything but an unknown path', async () => {
      const { partnerId, apiToken } = driver.partner;
      for (const auth of [
        null,
        'Bearer abc',
        'Basic !!!',
        basicAuthorization(partnerId, `${apiToken}x`),
        basicAuthorization(partnerId, ''),
        basicAuthorization(crypto.randomUUID(), apiToken),
        `Basic ${btoa(partnerId)}`,
      ]) {
        for (const path of ['/restaurants/', '/restaurants/1/reservations/', '/webhooks/99/']) {
          const answer = await driver.send('GET', path, { auth });
          expect(answer.status, `${auth} ${path}`).toBe(401);
          expect(answer.headers.get('www-authenticate')).toMatch(/^Basic/);
          expect(answer.body.detail).toEqual(expect.any(String));
        }
        // A path no route serves is a 404 naming the nearest route, credentials or not, as a
        // Django service resolves URLs before it authenticates.
        const nowhere = await driver.send('GET', '/restaurant/', { auth });
        expect(nowhere.status).toBe(404);
        expect(nowhere.body.detail).toContain('Nearest: /api/v1/partnership/restaurants/');
      }
      // None of those refused calls spent the partner's rate budget.
      expect((await driver.send('GET', '/restaurants/')).status).toBe(200);
    });

    it('accepts the partner UUID in any letter case, as a UUID is case-insensitive', async () => {
      const answer = await driver.send('GET', '/restaurants/', {
        auth: basicAuthorization(driver.partner.partnerId.toUpperCase(), driver.partner.apiToken),
      });
      expect(answer.status).toBe(200);
    });
  });

  describe('rate limit', () => {
    it('allows 1 request per second per partner by default, answers 429 with whole-second Retry-After, and does not count refusals', async () => {
      driver = await createDriver(kind, { rateLimit: undefined });
      expect(driver.fake.rateLimit).toBe(1);
      expect((await driver.send('GET', '/restaurants/')).status).toBe(200);
      await driver.fake.clock.advance(400);
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const refused = await driver.send('GET', '/restaurants/');
        expect(refused.status).toBe(429);
        expect(refused.headers.get('retry-after')).toBe('1');
        expect(refused.body.detail).toEqual(expect.any(String));
      }
      // Another partner has its own budget.
      const other = driver.fake.addPartner();
      expect(
        (
          await driver.send('GET', '/restaurants/', {
            auth: basicAuthorization(other.partnerId, other.apiToken),
          })
        ).status,
      ).toBe(200);
      await driver.fake.clock.advance(600);
      expect((await driver.send('GET', '/restaurants/')).status).toBe(200);
    });

    it('can be raised, rounded up in Retry-After for slower limits, or turned off', async () => {
      driver = await createDriver(kind, { rateLimit: 2 });
      expect((await driver.send('GET', '/restaurants/')).status).toBe(200);
      expect((await driver.send('GET', '/restaurants/')).status).toBe(200);
      expect((await driver.send('GET', '/restaurants/')).status).toBe(429);
      driver.fake.setRateLimit(0.4);
      expect((await driver.send('GET', '/restaurants/')).status).toBe(200);
      await driver.fake.clock.advance(1000);
      expect((await driver.send('GET', '/restaurants/')).headers.get('retry-after')).toBe('2');
      driver.fake.setRateLimit(false);
      for (let index = 0; index < 20; index += 1)
        expect((await driver.send('GET', '/restaurants/')).status).toBe(200);
    });
  });

  describe('profile and restaurants', () => {
    beforeEach(async () => {
      driver = await createDriver(kind);
    });

    it('retrieves the profile as an object, with or without the trailing slash', async () => {
      for (const path of ['/profile/', '/profile']) {
        const answer = await driver.send('GET', path);
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual({
          uuid: driver.partner.partnerId,
          name: 'Test partner',
          description: null,
          website_url: null,
        });
      }
    });

    it('updates only the fields present, and answers 400 with a field map for bad ones', async () => {
      const first = await driver.send('PATCH', '/profile/', {
        body: { name: 'Tables Online', description: { en: 'Book tables', fr: 'Réservez' } },
      });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        uuid: driver.partner.partnerId,
        name: 'Tables Online',
        description: { en: 'Book tables', fr: 'Réservez', nl: '', de: '' },
        website_url: null,
      });
      const second = await driver.send('PATCH', '/profile/', {
        body: { website_url: 'https://tables.example', description: { nl: 'Boek' } },
      });
      expect(second.body).toMatchObject({
        name: 'Tables Online',
        website_url: 'https://tables.example',
        description: { en: 'Book tables', nl: 'Boek' },
      });
      for (const [patch, field] of [
        [{ website_url: 'ftp://x' }, 'website_url'],
        [{ name: 3 }, 'name'],
        [{ description: { es: 'Hola' } }, 'description.es'],
        [{ description: 'text' }, 'description'],
        [{ colour: 'blue' }, 'colour'],
      ] as const) {
        const answer = await driver.send('PATCH', '/profile/', { body: patch });
        expect(answer.status, JSON.stringify(patch)).toBe(400);
        expect(answer.body[field]).toEqual([expect.any(String)]);
      }
      expect((await driver.send('GET', '/profile/')).body).toEqual(second.body);
    });

    it('lists only linked restaurants, as a bare array of the spec’s fields', async () => {
      const linked = driver.fake.addRestaurant({
        display_name: 'Chez Test',
        schema_name: 'chez_test',
        timezone: 'Europe/Paris',
        partnerIds: [driver.partner.partnerId],
      });
      driver.fake.addRestaurant({ display_name: 'Hidden' });
      const answer = await driver.send('GET', '/restaurants/');
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual([
        {
          id: linked.id,
          display_name: 'Chez Test',
          schema_name: 'chez_test',
          address: '',
          website: '',
          latitude: expect.any(Number),
          longitude: expect.any(Number),
          timezone: 'Europe/Paris',
        },
      ]);
    });

    it('answers 404 JSON outside the API and the control prefix', async () => {
      const answer = await driver.send('GET', '/../../somewhere');
      expect(answer.status).toBe(404);
      expect(answer.body.detail).toEqual(expect.any(String));
    });
  });
});
