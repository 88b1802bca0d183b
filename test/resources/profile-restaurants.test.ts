import { describe, expect, it } from 'vitest';
import { InputValidationError, ResponseValidationError } from 'restaurant-partner-sdk';
import { BASIC_HEADER, json, mockApi, restaurantBody } from '../support/hostile-server.js';

const api = mockApi();
const profile = {
  uuid: '6f1c2a9e-9d1b-4c55-8f0e-2b7f3c0d4e11',
  name: 'Tables Inc',
  description: { fr: 'a', nl: 'b', en: 'c', de: 'd' },
  website_url: null,
};

describe('profile', () => {
  it('retrieve GETs /profile/ and accepts one object, a one-element list and a null description', async () => {
    api.reply(
      () => json(profile),
      () => json([profile]),
      () => json({ ...profile, description: null }),
    );
    const client = api.client();
    expect((await client.profile.retrieve()).name).toBe('Tables Inc');
    expect((await client.profile.retrieve()).name).toBe('Tables Inc');
    expect((await client.profile.retrieve()).description).toBeNull();
    expect(api.calls.map((call) => [call.method, call.route, call.headers.get('authorization')])).toEqual(
      Array(3).fill(['GET', '/profile/', BASIC_HEADER]),
    );
  });

  it('refuses a list of two profiles and a profile without uuid, naming the field', async () => {
    api.reply(
      () => json([profile, profile]),
      () => json({ name: 'x' }),
    );
    const client = api.client();
    await expect(client.profile.retrieve()).rejects.toBeInstanceOf(ResponseValidationError);
    await expect(client.profile.retrieve()).rejects.toMatchObject({ field: 'uuid' });
  });

  it('update PATCHes only the given fields', async () => {
    api.reply((call) => json({ ...profile, ...(call.body as object) }));
    const updated = await api.client().profile.update({ name: 'New name', website_url: null });
    expect(updated.name).toBe('New name');
    expect(api.calls[0]!.method).toBe('PATCH');
    expect(api.calls[0]!.route).toBe('/profile/');
    expect(api.calls[0]!.body).toEqual({ name: 'New name', website_url: null });
  });

  it('update refuses a bad website_url and unknown keys without a request', async () => {
    const client = api.client();
    await expect(client.profile.update({ website_url: 'not a url' })).rejects.toMatchObject({
      name: 'InputValidationError',
      field: 'website_url',
    });
    await expect(client.profile.update({ colour: 'red' } as never)).rejects.toBeInstanceOf(
      InputValidationError,
    );
    // The unknown key is the field named, not the object around it.
    await expect(client.profile.update({ websiteUrl: 'https://p.test' } as never)).rejects.toMatchObject({
      field: 'websiteUrl',
      issues: [expect.objectContaining({ code: 'unrecognized_keys' })],
    });
    await expect(client.profile.update({ description: { en: 'x', es: 'y' } } as never)).rejects.toMatchObject(
      { field: 'description.es' },
    );
    expect(api.calls).toHaveLength(0);
  });

  it('withResponse gives the raw response of that call', async () => {
    api.reply(
      () => json(profile, 200, { 'x-request-id': 'r-1' }),
      () => json(profile, 200, { 'x-request-id': 'r-2' }),
    );
    const client = api.client();
    const [first, second] = await Promise.all([
      client.profile.retrieve().withResponse(),
      client.profile.retrieve().withResponse(),
    ]);
    expect(
      new Set([first.response?.headers.get('x-request-id'), second.response?.headers.get('x-request-id')]),
    ).toEqual(new Set(['r-1', 'r-2']));
    expect(first.data.uuid).toBe(profile.uuid);
  });
});

describe('restaurants.list', () => {
  it('GETs /restaurants/ as a bare array or an envelope, keeping unknown fields', async () => {
    api.reply(
      () => json([restaurantBody({ michelin: 1 })]),
      () => json({ count: 1, next: null, previous: null, results: [restaurantBody()] }),
    );
    const client = api.client();
    const [first] = await client.restaurants.list().toArray();
    expect((first as unknown as Record<string, unknown>).michelin).toBe(1);
    expect((await client.restaurants.list().toArray())[0]!.timezone).toBe('Europe/Brussels');
    expect(api.calls.map((call) => call.route)).toEqual(['/restaurants/', '/restaurants/']);
  });

  it('refuses a restaurant without schema_name', async () => {
    api.reply(() => json([{ id: 1 }]));
    await expect(api.client().restaurants.list().toArray()).rejects.toMatchObject({
      name: 'ResponseValidationError',
      field: '0.schema_name',
    });
  });

  it('keeps the base URL path prefix a proxy adds', async () => {
    api.reply(() => json([]));
    await api.client({ baseUrl: 'https://api.partner.test/proxy/' }).restaurants.list().toArray();
    expect(api.calls[0]!.url.pathname).toBe('/proxy/api/v1/partnership/restaurants/');
  });
});
