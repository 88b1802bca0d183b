import { describe, expect, it } from 'vitest';
import {
  createRateLimiter,
  isPartnerSdkError,
  PartnerClient,
  RateLimitWaitTooLongError,
  silentLogger,
  type RateLimiter,
} from 'restaurant-partner-sdk';
import { createClockRateLimiter } from 'restaurant-partner-sdk/testing';
import { createManualClock } from '../support/manual-clock.js';
import { API_TOKEN, BASE_URL, json, mockApi, PARTNER_ID } from '../support/hostile-server.js';

const api = mockApi();

describe('priority: interactive calls before background ones', () => {
  it('on the clock limiter: an interactive call asking behind 20 background calls is granted within 2 intervals', async () => {
    const clock = createManualClock();
    const limiter = createClockRateLimiter({ requestsPerSecond: 1, clock });
    const order: string[] = [];
    const background = Array.from({ length: 20 }, (_, index) =>
      limiter.acquire({ priority: 'background' }).then(() => order.push(`b${index}`)),
    );
    await clock.advance(2500);
    const askedAt = clock.now();
    let interactiveAt = 0;
    const interactive = limiter.acquire({ priority: 'interactive' }).then(() => {
      interactiveAt = clock.now();
      order.push('i');
    });
    await clock.runAll();
    await Promise.all([...background, interactive]);
    expect(interactiveAt - askedAt).toBeLessThanOrEqual(2 * 1000);
    // It went ahead of the 17 background calls still waiting, which kept their arrival order.
    expect(order.indexOf('i')).toBe(3);
    expect(order.filter((name) => name !== 'i')).toEqual(
      Array.from({ length: 20 }, (_, index) => `b${index}`),
    );
  });

  it('on the real-time limiter: a background call waits while interactive ones do, and the estimate says so', async () => {
    const limiter = createRateLimiter({ requestsPerSecond: 20 });
    expect(limiter.requestsPerSecond).toBe(20);
    const order: string[] = [];
    const first = limiter.acquire();
    const background = limiter.acquire({ priority: 'background' }).then(() => order.push('background'));
    const interactive = [1, 2, 3].map((index) =>
      limiter.acquire().then(() => order.push(`interactive ${index}`)),
    );
    // Three interactive calls are served before a new background call, none before a new interactive one.
    expect(limiter.estimateWaitMs('background')).toBeGreaterThan(limiter.estimateWaitMs('interactive'));
    expect(limiter.estimateWaitMs('background') - limiter.estimateWaitMs()).toBeGreaterThanOrEqual(50);
    await Promise.all([first, background, ...interactive]);
    expect(order).toEqual(['interactive 1', 'interactive 2', 'interactive 3', 'background']);
    expect(limiter.estimateWaitMs()).toBeLessThan(60);
  });

  it('a client passes the priority of the call (or of the client, or withOptions) to a limiter of your own', async () => {
    api.always(() => json({ uuid: PARTNER_ID }));
    const seen: (RateLimiter.AcquireOptions['priority'] | undefined)[] = [];
    const limiter: RateLimiter = {
      acquire: async (options) => void seen.push(options?.priority),
      pause: () => undefined,
      queueDepth: 0,
    };
    const client = api.client({ rateLimit: limiter });
    await client.profile.retrieve().catch(() => undefined);
    await client.profile.retrieve({ priority: 'background' }).catch(() => undefined);
    await client
      .withOptions({ priority: 'background' })
      .profile.retrieve()
      .catch(() => undefined);
    await client
      .withOptions({ priority: 'background' })
      .profile.retrieve({ priority: 'interactive' })
      .catch(() => undefined);
    expect(seen).toEqual(['interactive', 'background', 'background', 'interactive']);
  });

  it('an unknown priority is refused by name before any request', async () => {
    expect(
      () =>
        new PartnerClient({
          baseUrl: BASE_URL,
          partnerId: PARTNER_ID,
          apiToken: API_TOKEN,
          logger: silentLogger,
          priority: 'urgent' as never,
        }),
    ).toThrow(/priority/);
    const client = api.client();
    await expect(client.profile.retrieve({ priority: 'urgent' as never })).rejects.toThrow(/priority/);
  });
});

describe('fail fast: a call whose place is past its deadline', () => {
  it('is refused at once with RateLimitWaitTooLongError, and the calls behind it move up', async () => {
    const clock = createManualClock();
    const limiter = createClockRateLimiter({ requestsPerSecond: 1, clock });
    const start = clock.now();
    const waiting = Array.from({ length: 5 }, () => limiter.acquire());
    expect(limiter.estimateWaitMs()).toBeGreaterThan(4000);
    const late = limiter.acquire({ maxWaitMs: 3000 });
    await expect(late).rejects.toBeInstanceOf(RateLimitWaitTooLongError);
    const error = await late.catch((caught: unknown) => caught);
    expect(isPartnerSdkError(error, RateLimitWaitTooLongError)).toBe(true);
    expect(error).toMatchObject({
      name: 'RateLimitWaitTooLongError',
      priority: 'interactive',
      maxWaitMs: 3000,
    });
    expect((error as RateLimitWaitTooLongError).estimatedWaitMs).toBeGreaterThan(3000);
    expect(clock.now()).toBe(start);
    expect(limiter.queueDepth).toBe(4);
    await clock.runAll();
    await Promise.all(waiting);
  });

  it('a background call pushed past its deadline by interactive calls arriving later is refused within one interval', async () => {
    const clock = createManualClock();
    const limiter = createClockRateLimiter({ requestsPerSecond: 1, clock });
    await limiter.acquire();
    let refusedAt: number | undefined;
    const background = limiter
      .acquire({ priority: 'background', maxWaitMs: 2500 })
      .catch((error: unknown) => {
        refusedAt = clock.now();
        return error;
      });
    const interactive = Array.from({ length: 4 }, () => limiter.acquire());
    const askedAt = clock.now();
    await clock.runAll();
    await Promise.all(interactive);
    expect(await background).toBeInstanceOf(RateLimitWaitTooLongError);
    expect(refusedAt! - askedAt).toBeLessThanOrEqual(1100);
  });

  it('through the client: a call with a short deadline behind a full queue fails at once, never sent', async () => {
    let requests = 0;
    api.always(() => {
      requests += 1;
      return json({ uuid: PARTNER_ID });
    });
    const clock = createManualClock();
    const limiter = createClockRateLimiter({ requestsPerSecond: 1, clock });
    const client = api.client({ clock, rateLimit: limiter });
    const queued = Array.from({ length: 5 }, () => limiter.acquire());
    await expect(client.profile.retrieve({ deadlineMs: 2000 })).rejects.toBeInstanceOf(
      RateLimitWaitTooLongError,
    );
    expect(requests).toBe(0);
    await clock.runAll();
    await Promise.all(queued);
  });
});

describe('one partner, one budget in a process', () => {
  const options = { partnerId: PARTNER_ID, apiToken: API_TOKEN, logger: silentLogger };

  it('clients of the same partner and service share one limiter by default, localhost and 127.0.0.1 alike', () => {
    const first = new PartnerClient({ ...options, baseUrl: 'http://localhost:8123' });
    const second = new PartnerClient({ ...options, baseUrl: 'http://127.0.0.1:8123/' });
    const third = new PartnerClient({
      ...options,
      baseUrl: 'http://127.0.0.1:8123',
      rateLimit: { requestsPerSecond: 1 },
    });
    expect(first.rateLimiter).toBeDefined();
    expect(second.rateLimiter).toBe(first.rateLimiter);
    expect(third.rateLimiter).toBe(first.rateLimiter);
    expect(first.rateLimiter?.requestsPerSecond).toBe(1);
  });

  it('another partner, another service or another rate gets its own; a limiter given is kept', () => {
    const base = new PartnerClient({ ...options, baseUrl: 'https://api.example.com' });
    expect(
      new PartnerClient({ ...options, baseUrl: 'https://api.example.com', partnerId: 'another-partner' })
        .rateLimiter,
    ).not.toBe(base.rateLimiter);
    expect(new PartnerClient({ ...options, baseUrl: 'https://sandbox.example.com' }).rateLimiter).not.toBe(
      base.rateLimiter,
    );
    expect(
      new PartnerClient({
        ...options,
        baseUrl: 'https://api.example.com',
        rateLimit: { requestsPerSecond: 2 },
      }).rateLimiter,
    ).not.toBe(base.rateLimiter);
    const own = createRateLimiter({ requestsPerSecond: 1 });
    expect(
      new PartnerClient({ ...options, baseUrl: 'https://api.example.com', rateLimit: own }).rateLimiter,
    ).toBe(own);
  });

  it('three clients of one partner send at most one request per second together', async () => {
    api.always(() => json({ uuid: PARTNER_ID }));
    // When each request leaves, once its rate-limit wait is over.
    const sentAt: number[] = [];
    const hooks = { onRequest: () => void sentAt.push(Date.now()) };
    const clients = [1, 2, 3].map(() => new PartnerClient({ ...options, baseUrl: BASE_URL, hooks }));
    const startedAt = Date.now();
    await Promise.all(clients.map((client) => client.profile.retrieve()));
    expect(sentAt).toHaveLength(3);
    // Three requests at 1 per second take two intervals at least (a loaded machine only makes it longer).
    expect(Math.max(...sentAt) - startedAt).toBeGreaterThanOrEqual(2000);
  }, 15_000);
});
