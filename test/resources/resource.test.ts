import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { PartnerClient, silentLogger } from 'restaurant-partner-sdk';
import { nextPageUrl } from '../../src/resources/resource.js';

describe('nextPageUrl', () => {
  const first = new URL('https://gateway.test/partner-proxy/api/v1/partnership/restaurants/?page_size=2');

  it('keeps a link under the API root of baseUrl, and sends every other one to our own URL with its query only', () => {
    expect(nextPageUrl(first, '/partner-proxy/api/v1/partnership/restaurants/?page=2')).toBe(
      'https://gateway.test/partner-proxy/api/v1/partnership/restaurants/?page=2',
    );
    // A service behind a proxy that adds a path prefix builds its links without the prefix.
    expect(nextPageUrl(first, '/api/v1/partnership/restaurants/?page=2&page_size=2')).toBe(
      'https://gateway.test/partner-proxy/api/v1/partnership/restaurants/?page=2&page_size=2',
    );
    expect(nextPageUrl(first, 'https://gateway.test/api/v1/partnership/restaurants/?page=3')).toBe(
      'https://gateway.test/partner-proxy/api/v1/partnership/restaurants/?page=3',
    );
    expect(nextPageUrl(first, 'http://backend:8000/api/v1/partnership/restaurants/?page=2')).toBe(
      'https://gateway.test/partner-proxy/api/v1/partnership/restaurants/?page=2',
    );
    expect(nextPageUrl(first, '?page=2')).toBe(
      'https://gateway.test/partner-proxy/api/v1/partnership/restaurants/?page=2',
    );
    expect(nextPageUrl(first, 4)).toBe(
      'https://gateway.test/partner-proxy/api/v1/partnership/restaurants/?page_size=2&page=4',
    );
  });

  it('without a prefix, a root-relative link is followed as given', () => {
    const plain = new URL('https://api.test/api/v1/partnership/restaurants/1/reservations/');
    expect(nextPageUrl(plain, '/api/v1/partnership/restaurants/1/reservations/?page=2')).toBe(
      'https://api.test/api/v1/partnership/restaurants/1/reservations/?page=2',
    );
  });
});

describe('lists behind a proxy that adds a path prefix', () => {
  it('follows a root-relative next link without the prefix to the prefixed path', async () => {
    const seen: string[] = [];
    const server = createServer((request, response) => {
      seen.push(request.url ?? '');
      const url = new URL(request.url ?? '/', 'http://localhost');
      const found = url.pathname === '/proxy/api/v1/partnership/restaurants/';
      const body = !found
        ? { detail: 'Not found.' }
        : url.searchParams.get('page') === '2'
          ? {
              count: 2,
              next: null,
              previous: '/api/v1/partnership/restaurants/',
              results: [{ id: 2, schema_name: 'second' }],
            }
          : {
              count: 2,
              next: '/api/v1/partnership/restaurants/?page=2',
              previous: null,
              results: [{ id: 1, schema_name: 'first' }],
            };
      response.writeHead(found ? 200 : 404, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const client = new PartnerClient({
        baseUrl: `${origin}/proxy`,
        partnerId: 'partner',
        apiToken: 'token-123456',
        rateLimit: false,
        logger: silentLogger,
      });
      const restaurants = await client.restaurants.list().toArray();
      expect(restaurants.map((restaurant) => restaurant.id)).toEqual([1, 2]);
      expect(seen).toEqual([
        '/proxy/api/v1/partnership/restaurants/',
        '/proxy/api/v1/partnership/restaurants/?page=2',
      ]);
    } finally {
      server.close();
    }
  });
});
