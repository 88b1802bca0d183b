import { describe, expect, it } from 'vitest';
import { AbortError, PartnerClient, TimeoutError, silentLogger } from 'restaurant-partner-sdk';

// A fetch that never answers and ignores its signal, as a careless custom fetch or test double may.
const deafFetch = (() => new Promise<Response>(() => undefined)) as typeof fetch;
const client = (options: object = {}) =>
  new PartnerClient({
    baseUrl: 'https://api.partner.test',
    partnerId: 'partner',
    apiToken: 'token',
    rateLimit: false,
    maxRetries: 0,
    fetch: deafFetch,
    logger: silentLogger,
    ...options,
  });

describe('each attempt is bounded even when fetch ignores its signal', () => {
  it('times out after timeoutMs', async () => {
    await expect(client({ timeoutMs: 30 }).restaurants.list().toArray()).rejects.toBeInstanceOf(TimeoutError);
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    const call = client().restaurants.list({ signal: controller.signal }).toArray();
    controller.abort(new Error('user navigated away'));
    await expect(call).rejects.toBeInstanceOf(AbortError);
  });
});
