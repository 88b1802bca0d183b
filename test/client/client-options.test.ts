import { describe, expect, it } from 'vitest';
import {
  createRateLimiter,
  InputValidationError,
  PartnerClient,
  ServerError,
  silentLogger,
} from 'restaurant-partner-sdk';
import { createClockRateLimiter } from 'restaurant-partner-sdk/testing';
import { createManualClock } from '../support/manual-clock.js';
import { API_TOKEN, BASE_URL, json, mockApi, PARTNER_ID, webhookBody } from '../support/hostile-server.js';

const api = mockApi();
const required = { baseUrl: BASE_URL, partnerId: PARTNER_ID, apiToken: API_TOKEN, logger: silentLogger };

describe('PartnerClient options', () => {
  it('clients of one partner share one limiter by default; a limiter passed in is kept', () => {
    const first = new PartnerClient(required);
    const second = new PartnerClient(required);
    expect(first.rateLimiter).toBeDefined();
    expect(first.rateLimiter).toBe(second.rateLimiter);
    const shared = createRateLimiter({ requestsPerSecond: 1 });
    expect(new PartnerClient({ ...required, rateLimit: shared }).rateLimiter).toBe(shared);
    expect(new PartnerClient({ ...required, rateLimit: false }).rateLimiter).toBeUndefined();
  });

  it('two clients sharing a limiter share its budget', async () => {
    const clock = createManualClock();
    const limiter = createClockRateLimiter({ requestsPerSecond: 1, clock });
    const sentAt: number[] = [];
    api.always(() => {
      sentAt.push(clock.now());
      return json([]);
    });
    const first = api.client({ clock, rateLimit: limiter });
    const second = api.client({ clock, rateLimit: limiter });
    const both = Promise.all([first.restaurants.list().toArray(), second.restaurants.list().toArray()]);
    for (let index = 0; index < 20 && sentAt.length < 2; index++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      await clock.advance(200);
    }
    await both;
    expect(sentAt[1]! - sentAt[0]!).toBeGreaterThanOrEqual(1000);
  });

  it('{ requestsPerSecond, maxQueue } builds a limiter with that bound', async () => {
    const clock = createManualClock();
    api.always(() => json([]));
    const client = api.client({
      clock,
      rateLimit: createClockRateLimiter({ requestsPerSecond: 1, maxQueue: 1, clock }),
    });
    const calls = [
      client.restaurants.list().toArray(),
      client.restaurants.list().toArray(),
      client.restaurants.list().toArray(),
    ];
    const third = await calls[2]!.catch((caught) => caught);
    expect(third).toMatchObject({ name: 'RateLimitQueueFullError' });
    await clock.runAll();
    await Promise.all(calls.slice(0, 2));
  });

  it.each([
    ['baseUrl', { baseUrl: 'not a url' }],
    ['baseUrl', { baseUrl: 'ftp://api.partner.test' }],
    ['partnerId', { partnerId: '' }],
    ['apiToken', { apiToken: '' }],
    ['timeoutMs', { timeoutMs: 0 }],
    ['maxRetries', { maxRetries: -1 }],
    ['rateLimit.requestsPerSecond', { rateLimit: { requestsPerSecond: 0 } }],
    ['rateLimit.requestsPerSecond', { rateLimit: { requestsPerSecond: Number.NaN } }],
    ['rateLimit.requestsPerSecond', { rateLimit: {} }],
    ['rateLimit.maxQueue', { rateLimit: { requestsPerSecond: 1, maxQueue: -1 } }],
    ['rateLimit', { rateLimit: true }],
    ['fetch', { fetch: 'https://api.partner.test' }],
    ['logger', { logger: 5 }],
    ['logger.error', { logger: { warn: () => undefined } }],
    ['hooks', { hooks: 5 }],
    ['hooks.onRetry', { hooks: { onRetry: 'log' } }],
  ] as [string, object][])('refuses a bad %s', (field, change) => {
    expect(() => new PartnerClient({ ...required, ...change })).toThrow(InputValidationError);
    try {
      new PartnerClient({ ...required, ...change });
    } catch (error) {
      expect((error as InputValidationError).field).toBe(field);
      expect(String(error)).not.toContain(API_TOKEN);
    }
  });

  it('a 429 is retried on a webhook create too (the request was not processed)', async () => {
    api.reply(
      () => json({ detail: 'slow' }, 429, { 'retry-after': '1' }),
      (call) => json(webhookBody(call.body as object), 201),
    );
    expect((await api.client().webhooks.create({ url: 'https://p.test/h' })).id).toBe(3);
    expect(api.calls).toHaveLength(2);
  });

  it('a webhook create is not retried after a 502 (a repeat could register it twice)', async () => {
    api.reply(() => json({ detail: 'boom' }, 502));
    await expect(api.client().webhooks.create({ url: 'https://p.test/h' })).rejects.toBeInstanceOf(
      ServerError,
    );
    expect(api.calls).toHaveLength(1);
  });
});
