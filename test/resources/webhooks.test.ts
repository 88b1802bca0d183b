import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { InputValidationError, ResponseValidationError } from 'restaurant-partner-sdk';
import { empty, json, mockApi, webhookBody } from '../support/hostile-server.js';

const api = mockApi();

describe('webhooks', () => {
  it('create POSTs /webhooks/, hides auth_token from JSON and inspect, and keeps it on copies', async () => {
    api.reply((call) => json({ ...webhookBody(call.body as object), auth_token: 'whk_secret_123' }, 201));
    const webhook = await api.client().webhooks.create({
      url: 'https://partner.test/hooks',
      name: 'main',
      subscribed_events: { RESERVATION_CONFIRMED: true },
    });
    expect(api.calls[0]!.method).toBe('POST');
    expect(api.calls[0]!.route).toBe('/webhooks/');
    expect(api.calls[0]!.body).toEqual({
      url: 'https://partner.test/hooks',
      name: 'main',
      subscribed_events: { RESERVATION_CONFIRMED: true },
    });
    expect(webhook.auth_token).toBe('whk_secret_123');
    expect(JSON.stringify(webhook)).not.toContain('whk_secret_123');
    expect(inspect(webhook, { depth: 5 })).not.toContain('whk_secret_123');
    expect(String(inspect(webhook))).toContain('[hidden: store it when you receive it]');
    // Shown once: the obvious ways of keeping it must keep it.
    expect({ ...webhook }.auth_token).toBe('whk_secret_123');
    expect(structuredClone(webhook).auth_token).toBe('whk_secret_123');
    const { auth_token: kept, ...rest } = webhook;
    expect(kept).toBe('whk_secret_123');
    expect(rest).toMatchObject({ id: webhook.id, url: 'https://partner.test/hooks' });
    expect(Object.keys(webhook)).toContain('auth_token');
  });

  it('refuses an unknown key in a webhook input before any request, naming it', async () => {
    const client = api.client();
    const error = await client.webhooks
      // @ts-expect-error misspelt field: the input types are exact
      .create({ url: 'https://partner.test/hooks', nmae: 'main' })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(InputValidationError);
    expect(error.field).toBe('nmae');
    expect(api.calls).toHaveLength(0);
  });

  it.each(['token', 'secret', 'authToken'])(
    'reads the token under `%s` and normalises it to auth_token',
    async (field) => {
      api.reply(() => json({ ...webhookBody(), [field]: 'whk_other' }));
      const webhook = await api.client().webhooks.regenerateToken(3);
      expect(webhook.auth_token).toBe('whk_other');
      expect(JSON.stringify(webhook)).not.toContain('whk_other');
      expect(api.calls[0]!.route).toBe('/webhooks/3/auth-token/');
      expect(api.calls[0]!.method).toBe('POST');
    },
  );

  it('an answer that fails its check keeps no token on the error', async () => {
    api.reply(
      () => json({ ...webhookBody(), created_at: 'yesterday', auth_token: 'whk_leaked_1' }),
      () => json({ count: 1, next: null, results: [{ ...webhookBody(), id: 'x', secret: 'whk_leaked_2' }] }),
    );
    const client = api.client();
    for (const call of [() => client.webhooks.regenerateToken(3), () => client.webhooks.list().toArray()]) {
      const error = await call().catch((caught) => caught);
      expect(error).toBeInstanceOf(ResponseValidationError);
      const shown = `${error.message} ${JSON.stringify(error)} ${inspect(error, { depth: 10 })} ${JSON.stringify(error.body)}`;
      expect(shown).not.toMatch(/whk_leaked/);
      expect(shown).toContain('[REDACTED]');
    }
  });

  it('a token in a listed webhook is hidden too', async () => {
    api.reply(() => json({ count: 1, next: null, results: [{ ...webhookBody(), secret: 'whk_listed' }] }));
    const [webhook] = await api.client().webhooks.list().toArray();
    expect(webhook!.auth_token).toBe('whk_listed');
    expect(JSON.stringify(webhook)).not.toContain('whk_listed');
  });

  it('list, retrieve, update, test and delete use the REST routes', async () => {
    api.reply(
      () => json([webhookBody()]),
      () => json(webhookBody()),
      (call) => json(webhookBody(call.body as object)),
      () => json(webhookBody({ last_response_status_code: 200 })),
      () => empty(204),
      () => json({ detail: 'deleted' }, 200),
      () => new Response(null, { status: 200 }),
    );
    const client = api.client();
    expect((await client.webhooks.list().toArray())[0]!.id).toBe(3);
    expect((await client.webhooks.retrieve(3)).id).toBe(3);
    expect((await client.webhooks.update(3, { is_enabled: false })).is_enabled).toBe(false);
    expect((await client.webhooks.test('3')).last_response_status_code).toBe(200);
    await expect(client.webhooks.delete(3)).resolves.toBeUndefined();
    await expect(client.webhooks.delete(3)).resolves.toBeUndefined();
    await expect(client.webhooks.delete(3)).resolves.toBeUndefined();
    expect(api.calls.map((call) => [call.method, call.route, call.body])).toEqual([
      ['GET', '/webhooks/', undefined],
      ['GET', '/webhooks/3/', undefined],
      ['PATCH', '/webhooks/3/', { is_enabled: false }],
      ['POST', '/webhooks/3/test/', {}],
      ['DELETE', '/webhooks/3/', undefined],
      ['DELETE', '/webhooks/3/', undefined],
      ['DELETE', '/webhooks/3/', undefined],
    ]);
  });

  describe('delete retried after an answer that leaves its outcome unknown', () => {
    it('resolves when the retry finds the webhook gone (the first attempt deleted it)', async () => {
      api.reply(
        () => json({ detail: 'Bad gateway' }, 502),
        () => json({ detail: 'Not found.' }, 404),
      );
      await expect(api.client().webhooks.delete(3)).resolves.toBeUndefined();
      expect(api.calls.map((call) => call.method)).toEqual(['DELETE', 'DELETE']);
    });

    it('still answers NotFoundError for a webhook that never existed, or after a 429 (not processed)', async () => {
      api.reply(
        () => json({ detail: 'Not found.' }, 404),
        () => json({ detail: 'slow down' }, 429, { 'retry-after': '0' }),
        () => json({ detail: 'Not found.' }, 404),
      );
      const client = api.client();
      await expect(client.webhooks.delete(3)).rejects.toMatchObject({ name: 'NotFoundError', status: 404 });
      await expect(client.webhooks.delete(4)).rejects.toMatchObject({ name: 'NotFoundError', status: 404 });
      expect(api.calls).toHaveLength(3);
    });
  });

  describe('input rules, no request sent', () => {
    it.each([
      ['url of 501 characters', { url: `https://p.test/${'a'.repeat(501 - 15)}` }, 'url'],
      ['ftp url', { url: 'ftp://p.test/hooks' }, 'url'],
      ['javascript url', { url: 'javascript:alert(1)' }, 'url'],
      ['name of 126 characters', { url: 'https://p.test/h', name: 'n'.repeat(126) }, 'name'],
    ])('refuses %s', async (_label, input, field) => {
      const error = await api
        .client()
        .webhooks.create(input as never)
        .catch((caught) => caught);
      expect(error).toBeInstanceOf(InputValidationError);
      expect(error.field).toBe(field);
      expect(api.calls).toHaveLength(0);
    });

    it('names the rule a too-long url breaks: its length, not its scheme', async () => {
      const error = await api
        .client()
        .webhooks.create({ url: `https://p.test/${'a'.repeat(501 - 15)}` })
        .catch((caught) => caught);
      expect(error).toBeInstanceOf(InputValidationError);
      expect(error.issues).toEqual([
        expect.objectContaining({ field: 'url', code: 'too_big', message: expect.stringMatching(/500/) }),
      ]);
      expect(error.message).not.toMatch(/http or https/);
      expect(api.calls).toHaveLength(0);
    });

    it('accepts url of 500 and name of 125 characters, http and https', async () => {
      api.always((call) => json(webhookBody(call.body as object), 201));
      const client = api.client();
      const url500 = `https://p.test/${'a'.repeat(500 - 15)}`;
      expect(url500).toHaveLength(500);
      await client.webhooks.create({ url: url500, name: 'n'.repeat(125) });
      await client.webhooks.create({ url: 'http://p.test/h' });
      expect(api.calls).toHaveLength(2);
    });
  });
});
