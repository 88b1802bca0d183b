import { inspect } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import {
  buildDelivery,
  buildDeliveryRequest,
  createMemoryDuplicateStore,
  createWebhookReceiver,
  WebhookConfigurationError,
  WebhookHandlerError,
  type DeliveryContent,
  type DuplicateStore,
  type WebhookError,
  type WebhookEvent,
} from 'restaurant-partner-sdk/webhooks';
import { captureLogger, OTHER_TOKEN, TOKEN } from './helpers.js';
import { reservation } from '../support/reservation.js';

const URL_ = 'http://partner.test/webhooks';
const deliver = (
  receiver: { handle(request: Request): Promise<Response> },
  content: DeliveryContent,
  token = TOKEN,
) => receiver.handle(buildDeliveryRequest(URL_, content, token));

describe('dispatch', () => {
  it('hands each event type to its own handler, typed, and answers 200', async () => {
    const seen: string[] = [];
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false })
      .on(
        'RESERVATION_CONFIRMED',
        (event) => void seen.push(`confirmed ${event.reservation.id} at ${event.restaurant_id}`),
      )
      .on('RESERVATION_MODIFIED', (event) => void seen.push(`modified ${event.reservation.adults}`))
      .on(
        'RESERVATION_CANCELLED',
        async (event) => void seen.push(`cancelled ${event.reservation.cancelled}`),
      )
      .on('TEST', (event) => void seen.push(`test ${event.id}`));

    const responses = [
      await deliver(receiver, {
        event: 'RESERVATION_CONFIRMED',
        reservation: reservation(),
        restaurantId: 7,
      }),
      await deliver(receiver, {
        event: 'RESERVATION_MODIFIED',
        reservation: reservation({ adults: 4 }),
        restaurantId: 7,
      }),
      await deliver(receiver, {
        event: 'RESERVATION_CANCELLED',
        reservation: reservation({ cancelled: true }),
        restaurantId: 7,
      }),
      await deliver(receiver, { event: 'TEST', id: 'evt_test' }),
    ];
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    expect(seen).toEqual(['confirmed 41 at 7', 'modified 4', 'cancelled true', 'test evt_test']);
  });

  it("sends events without a handler of their own to '*', unknown ones to onUnknown, and runs several handlers in order", async () => {
    const calls: string[] = [];
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false })
      .on('RESERVATION_CONFIRMED', () => void calls.push('first'))
      .on('RESERVATION_CONFIRMED', () => void calls.push('second'))
      .onUnknown((event) => void calls.push(`unknown ${event.event}`))
      .on('*', (event: WebhookEvent) => void calls.push(`fallback ${event.type}`));

    await deliver(receiver, { event: 'RESERVATION_CONFIRMED', reservation: reservation() });
    await deliver(receiver, { event: 'RESERVATION_CANCELLED', reservation: reservation() });
    await deliver(receiver, { event: 'TABLE_ASSIGNED', reservation: reservation() });
    expect(calls).toEqual(['first', 'second', 'fallback RESERVATION_CANCELLED', 'unknown TABLE_ASSIGNED']);
  });

  it('answers 200 to a verified event nobody listens to, so the service does not retry it forever', async () => {
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false });
    const response = await deliver(receiver, { event: 'RESERVATION_MODIFIED', reservation: reservation() });
    expect(response.status).toBe(200);
  });

  it('refuses a handler that is not a function at registration', () => {
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false });
    expect(() => receiver.on('TEST', 'nope' as never)).toThrow(/handler must be a function/);
  });
});

describe('a failing handler', () => {
  it('answers 500 without its message, leaves the delivery unmarked, and the retry is processed once', async () => {
    const logger = captureLogger();
    const onError = vi.fn();
    let failuresLeft = 1;
    const processed: string[] = [];
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger, onError }).on(
      'RESERVATION_CANCELLED',
      async (event) => {
        if (failuresLeft-- > 0) throw new Error('database is down');
        processed.push(event.id);
      },
    );
    const delivery = buildDelivery(
      { event: 'RESERVATION_CANCELLED', reservation: reservation(), id: 'evt_retry' },
      TOKEN,
    );
    const send = () =>
      receiver.handle(new Request(URL_, { method: 'POST', headers: delivery.headers, body: delivery.body }));

    const failed = await send();
    expect(failed.status).toBe(500);
    expect(await failed.text()).not.toContain('database is down');
    expect(onError).toHaveBeenCalledTimes(1);
    const [error, context] = onError.mock.calls[0]!;
    expect(error).toBeInstanceOf(WebhookHandlerError);
    expect((error as WebhookHandlerError).cause).toEqual(new Error('database is down'));
    expect(context).toMatchObject({ status: 500, event: { id: 'evt_retry' } });
    expect(logger.lines.find((line) => line.level === 'error')?.details).toMatchObject({
      status: 500,
      deliveryId: 'evt_retry',
      cause: 'Error: database is down',
    });

    const retried = await send();
    expect(retried.status).toBe(200);
    expect(await retried.json()).toEqual({ received: true });
    const again = await send();
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect(processed).toEqual(['evt_retry']);
  });

  it('never crashes the receiver, even when the logger and onError throw too', async () => {
    const broken = () => {
      throw new Error('broken');
    };
    const receiver = createWebhookReceiver({
      tokens: [TOKEN],
      logger: { warn: broken, error: broken, info: broken, debug: broken },
      onError: broken,
    }).on('TEST', broken);
    expect((await deliver(receiver, { event: 'TEST' })).status).toBe(500);
    expect((await deliver(receiver, { event: 'TEST' }, OTHER_TOKEN)).status).toBe(401);
  });
});

describe('duplicates', () => {
  it('runs the handler once when the same delivery arrives twice at the same time', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const handler = vi.fn(() => gate);
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false }).on(
      'RESERVATION_CONFIRMED',
      handler,
    );
    const delivery = buildDelivery({ event: 'RESERVATION_CONFIRMED', reservation: reservation() }, TOKEN);
    const send = () =>
      receiver.handle(new Request(URL_, { method: 'POST', headers: delivery.headers, body: delivery.body }));
    const first = send();
    const second = send();
    await vi.waitFor(() => expect(handler).toHaveBeenCalledTimes(1));
    release();
    const answers = await Promise.all([first, second]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    // Either may win the race; the other waits for it and is answered as a duplicate.
    const bodies = await Promise.all(answers.map((answer) => answer.json()));
    expect(bodies).toContainEqual({ received: true });
    expect(bodies).toContainEqual({ received: true, duplicate: true });
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('runs a synchronous handler once when the same delivery arrives five times at once', async () => {
    const handler = vi.fn(() => undefined);
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false }).on('*', handler);
    const delivery = buildDelivery({ event: 'RESERVATION_CONFIRMED', reservation: reservation() }, TOKEN);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        receiver.receive({ method: 'POST', headers: delivery.headers, body: delivery.body }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.filter((answer) => answer.duplicate === true)).toHaveLength(4);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('uses a pluggable store: has() before the handler, add() only after it succeeded, keyed by webhook, event, reservation and delivery id', async () => {
    const keys = new Set<string>();
    const has = vi.fn(async (key: string) => keys.has(key));
    const store: DuplicateStore = { has, add: vi.fn(async (key: string) => void keys.add(key)) };
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false, duplicateStore: store }).on(
      '*',
      (event) => {
        if (event.id === 'evt_bad') throw new Error('no');
      },
    );
    await deliver(receiver, {
      event: 'RESERVATION_CONFIRMED',
      reservation: reservation({ id: 77 }),
      restaurantId: 1,
      id: 'evt_ok',
      webhookId: 12,
    });
    await deliver(receiver, {
      event: 'RESERVATION_CONFIRMED',
      reservation: reservation({ id: 77 }),
      restaurantId: 1,
      id: 'evt_bad',
      webhookId: 12,
    });
    await deliver(receiver, { event: 'TEST', id: 'evt_test' });
    expect(has).toHaveBeenCalledWith('webhook-12:RESERVATION_CONFIRMED:77:evt_ok');
    expect(has).toHaveBeenCalledWith('webhook-12:RESERVATION_CONFIRMED:77:evt_bad');
    const [webhookKey, tokenKey, ...rest] = [...keys];
    expect(rest).toEqual([]);
    expect(webhookKey).toBe('webhook-12:RESERVATION_CONFIRMED:77:evt_ok');
    // No webhook id in the delivery: the token's fingerprint stands for the webhook, never the token.
    expect(tokenKey).toMatch(/^token-[0-9a-f]{16}:TEST::evt_test$/);
    expect(tokenKey).not.toContain(TOKEN);
  });

  it('keeps two partners apart on one store and shares duplicates between two receivers of one partner', async () => {
    const store = createMemoryDuplicateStore();
    const runs: string[] = [];
    const receiverOf = (name: string, token: string) =>
      createWebhookReceiver({ tokens: [token], logger: false, duplicateStore: store }).on(
        '*',
        () => void runs.push(name),
      );
    const partnerA = receiverOf('A', TOKEN);
    const partnerA2 = receiverOf('A2', TOKEN);
    const partnerB = receiverOf('B', OTHER_TOKEN);
    // The same delivery id, each partner with its own reservation, and a test delivery each.
    for (const [receiver, token, id] of [
      [partnerA, TOKEN, 1],
      [partnerB, OTHER_TOKEN, 2],
    ] as const) {
      expect(
        (
          await deliver(
            receiver,
            { event: 'RESERVATION_CONFIRMED', reservation: reservation({ id }), id: '1' },
            token,
          )
        ).status,
      ).toBe(200);
      expect((await deliver(receiver, { event: 'TEST', id: '1' }, token)).status).toBe(200);
    }
    expect(runs).toEqual(['A', 'A', 'B', 'B']);
    // The second instance of partner A sees both of A's deliveries as duplicates.
    expect(
      await (
        await deliver(partnerA2, {
          event: 'RESERVATION_CONFIRMED',
          reservation: reservation({ id: 1 }),
          id: '1',
        })
      ).json(),
    ).toEqual({ received: true, duplicate: true });
    expect(await (await deliver(partnerA2, { event: 'TEST', id: '1' })).json()).toEqual({
      received: true,
      duplicate: true,
    });
    expect(runs).toHaveLength(4);
  });

  it('refuses a store whose claims could end while a handler runs', () => {
    const claimStore = (claimTtlMs?: number): DuplicateStore => ({
      has: () => false,
      add: () => {},
      claim: async () => ({ status: 'processed' }),
      ...(claimTtlMs === undefined ? {} : { claimTtlMs }),
    });
    expect(() => createWebhookReceiver({ tokens: [TOKEN], duplicateStore: claimStore(30_000) })).toThrow(
      /claimTtlMs.*handlerTimeoutMs \(30000 ms\) \+ 5000 ms/,
    );
    expect(() => createWebhookReceiver({ tokens: [TOKEN], duplicateStore: claimStore() })).toThrow(
      /claimTtlMs/,
    );
    expect(() =>
      createWebhookReceiver({ tokens: [TOKEN], duplicateStore: claimStore(10_000), handlerTimeoutMs: 5_000 }),
    ).not.toThrow();
    expect(() =>
      createWebhookReceiver({ tokens: [TOKEN], duplicateStore: claimStore(35_000) }),
    ).not.toThrow();
  });

  it('answers 500 when the store cannot say, and 200 (logged) when it cannot record after the handler ran', async () => {
    const logger = captureLogger();
    const handler = vi.fn();
    const failingHas = createWebhookReceiver({
      tokens: [TOKEN],
      logger,
      duplicateStore: { has: () => Promise.reject(new Error('redis down')), add: () => {} },
    }).on('TEST', handler);
    const refused = await deliver(failingHas, { event: 'TEST' });
    expect(refused.status).toBe(500);
    expect(handler).not.toHaveBeenCalled();

    const failingAdd = createWebhookReceiver({
      tokens: [TOKEN],
      logger,
      duplicateStore: { has: () => false, add: () => Promise.reject(new Error('redis down')) },
    }).on('TEST', handler);
    const accepted = await deliver(failingAdd, { event: 'TEST' });
    expect(accepted.status).toBe(200);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(logger.lines.some((line) => line.message.includes('failed to record'))).toBe(true);
  });

  it('can be turned off', async () => {
    const handler = vi.fn();
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false, duplicateStore: false }).on(
      'TEST',
      handler,
    );
    await deliver(receiver, { event: 'TEST', id: 'evt_same' });
    await deliver(receiver, { event: 'TEST', id: 'evt_same' });
    expect(handler).toHaveBeenCalledTimes(2);
  });

  it('the in-memory store forgets ids after their time to live, and the oldest first when full', () => {
    let now = 0;
    const store = createMemoryDuplicateStore({ maxEntries: 2, ttlMs: 1000, now: () => now });
    store.add('a');
    now = 999;
    expect(store.has('a')).toBe(true);
    now = 1000;
    expect(store.has('a')).toBe(false);
    store.add('b');
    store.add('c');
    store.add('d');
    expect([store.has('b'), store.has('c'), store.has('d')]).toEqual([false, true, true]);
  });

  it('the in-memory store counts an id added again as new: the ids added since it are forgotten first', () => {
    let now = 0;
    const store = createMemoryDuplicateStore({ maxEntries: 3, ttlMs: 1000, now: () => now });
    store.add('a');
    now = 1000;
    // 'a' expired; processed again, it is remembered anew.
    expect(store.has('a')).toBe(false);
    store.add('b');
    store.add('a');
    store.add('c');
    expect([store.has('a'), store.has('b'), store.has('c')]).toEqual([true, true, true]);
    store.add('d');
    expect([store.has('b'), store.has('a'), store.has('c'), store.has('d')]).toEqual([
      false,
      true,
      true,
      true,
    ]);
    store.add('e');
    expect([store.has('a'), store.has('c'), store.has('d'), store.has('e')]).toEqual([
      false,
      true,
      true,
      true,
    ]);
    // Past its time, an id is forgotten whatever room is left.
    now = 2000;
    expect(store.has('e')).toBe(false);
  });
});

describe('token rotation', () => {
  it('with a list: old and new both verify during the roll-out, and the old one fails once removed', async () => {
    const tokens = [TOKEN, OTHER_TOKEN];
    const receiver = createWebhookReceiver({ tokens, logger: false });
    expect((await deliver(receiver, { event: 'TEST' }, TOKEN)).status).toBe(200);
    expect((await deliver(receiver, { event: 'TEST' }, OTHER_TOKEN)).status).toBe(200);
    tokens.splice(0, 1); // the list is read on each delivery
    expect((await deliver(receiver, { event: 'TEST' }, TOKEN)).status).toBe(401);
    expect((await deliver(receiver, { event: 'TEST' }, OTHER_TOKEN)).status).toBe(200);
  });

  it('with an async provider: asked on every delivery, so a removed token fails at once', async () => {
    let current = [TOKEN];
    const provider = vi.fn(async () => current);
    const receiver = createWebhookReceiver({ tokens: provider, logger: false });
    expect((await deliver(receiver, { event: 'TEST' }, TOKEN)).status).toBe(200);
    current = [TOKEN, OTHER_TOKEN];
    expect((await deliver(receiver, { event: 'TEST' }, OTHER_TOKEN)).status).toBe(200);
    expect((await deliver(receiver, { event: 'TEST' }, TOKEN)).status).toBe(200);
    current = [OTHER_TOKEN];
    expect((await deliver(receiver, { event: 'TEST' }, TOKEN)).status).toBe(401);
    expect((await deliver(receiver, { event: 'TEST' }, OTHER_TOKEN)).status).toBe(200);
    expect(provider).toHaveBeenCalledTimes(5);
    // A request without any token is refused without asking the provider.
    const anonymous = await receiver.handle(
      new Request(URL_, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
    );
    expect(anonymous.status).toBe(401);
    expect(provider).toHaveBeenCalledTimes(5);
  });

  it('answers 500 with a log line that says why when the provider gives a token ending in a newline (it could never match)', async () => {
    const logger = captureLogger();
    const receiver = createWebhookReceiver({ tokens: async () => [`${TOKEN}\n`], logger });
    const response = await deliver(receiver, { event: 'TEST' });
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain(TOKEN);
    expect(logger.text()).toContain('tokens[0] with leading or trailing whitespace');
    expect(logger.text()).not.toContain(TOKEN);
  });

  it('answers 500 (so the service retries) when the provider fails or gives no token', async () => {
    const failing = createWebhookReceiver({
      tokens: () => Promise.reject(new Error(`vault timeout for ${TOKEN}`)),
      logger: false,
    });
    const empty = createWebhookReceiver({ tokens: () => [], logger: false });
    for (const receiver of [failing, empty]) {
      const response = await deliver(receiver, { event: 'TEST' });
      expect(response.status).toBe(500);
      expect(await response.text()).not.toContain(TOKEN);
    }
  });

  it('refuses bad options at creation with a message naming the option', () => {
    expect(() => createWebhookReceiver({ tokens: TOKEN as never })).toThrow(/single string/);
    expect(() => createWebhookReceiver({ tokens: [] })).toThrow(WebhookConfigurationError);
    expect(() => createWebhookReceiver({ tokens: [TOKEN, ''] })).toThrow(/tokens\[1\]/);
    expect(() => createWebhookReceiver({ tokens: [TOKEN, `${OTHER_TOKEN}\n`] })).toThrow(
      /tokens\[1\] with leading or trailing whitespace/,
    );
    expect(() => createWebhookReceiver({ tokens: [TOKEN], maxBodyBytes: 0 })).toThrow(/maxBodyBytes/);
    expect(() => createWebhookReceiver({ tokens: [TOKEN], bodyTimeoutMs: 0 })).toThrow(/bodyTimeoutMs/);
    expect(() => createWebhookReceiver({ tokens: [TOKEN], tokenHeader: 'x token' })).toThrow(/tokenHeader/);
  });
});

describe('secrets', () => {
  it('no token, accepted or presented, appears in answers, logs, errors or their serialisations', async () => {
    const logger = captureLogger();
    const errors: WebhookError[] = [];
    const guessed = 'whk_guess_attempt_1234567890';
    const receiver = createWebhookReceiver({
      tokens: async () => [TOKEN],
      logger,
      onError: (error) => void errors.push(error),
    }).on('RESERVATION_CONFIRMED', () => {
      throw new Error('database is down');
    });
    const sent = [
      buildDeliveryRequest(URL_, { event: 'TEST' }, guessed),
      new Request(URL_, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/html' },
        body: 'x',
      }),
      new Request(URL_, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: `{"token": "${TOKEN}"`,
      }),
      new Request(URL_, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          event: 'RESERVATION_CONFIRMED',
          id: 'x',
          reservation: { id: 'not-a-number', note: TOKEN },
        }),
      }),
      buildDeliveryRequest(URL_, { event: 'RESERVATION_CONFIRMED', reservation: reservation() }, TOKEN),
      new Request(URL_, { method: 'GET', headers: { authorization: `Bearer ${TOKEN}` } }),
    ];
    const answers = await Promise.all(
      sent.map(async (request) => {
        const response = await receiver.handle(request);
        return `${response.status} ${JSON.stringify([...response.headers])} ${await response.text()}`;
      }),
    );
    expect(answers.map((answer) => Number(answer.slice(0, 3)))).toEqual([401, 415, 400, 400, 500, 405]);
    expect(errors).toHaveLength(6);

    const everything = [
      ...answers,
      logger.text(),
      ...errors.map((error) => `${error.message} ${JSON.stringify(error)} ${inspect(error, { depth: 0 })}`),
    ].join('\n');
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain(guessed);
  });

  it('by default logs refusals with console.warn, prefixed and token-free, and nothing for accepted deliveries', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const info = vi.spyOn(console, 'info').mockImplementation(() => {});
    try {
      const receiver = createWebhookReceiver({ tokens: [TOKEN] });
      await deliver(receiver, { event: 'TEST', id: 'evt_quiet' });
      await deliver(receiver, { event: 'TEST', id: 'evt_quiet' });
      expect(warn).not.toHaveBeenCalled();
      expect(info).not.toHaveBeenCalled();
      await deliver(receiver, { event: 'TEST' }, OTHER_TOKEN);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toMatch(
        /^\[restaurant-partner-sdk\/webhooks\] Webhook delivery answered 401/,
      );
      expect(inspect(warn.mock.calls)).not.toContain(OTHER_TOKEN);
    } finally {
      warn.mockRestore();
      info.mockRestore();
    }
  });

  it("redacts accepted tokens from the log line of a handler's error (the error itself stays the partner's, as cause)", async () => {
    const logger = captureLogger();
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger }).on('TEST', () => {
      throw new Error(`upstream refused token ${TOKEN}`);
    });
    expect((await deliver(receiver, { event: 'TEST' })).status).toBe(500);
    expect(logger.text()).toContain('upstream refused token [redacted]');
    expect(logger.text()).not.toContain(TOKEN);
  });
});
