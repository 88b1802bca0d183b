/**
 * The receiver reads tolerantly where the live service's deliveries are not published (each
 * refusal here would lose an event in production), and never hangs on the partner's own code.
 */
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  buildDelivery,
  createWebhookReceiver,
  type WebhookEvent,
  type WebhookEventOf,
  WebhookConfigurationError,
  WebhookHandlerError,
} from 'restaurant-partner-sdk/webhooks';
import { captureLogger, OTHER_TOKEN, TOKEN } from './helpers.js';
import { basicAuthorization } from '../support/basic-auth.js';
import { reservation } from '../support/reservation.js';

type ReservationModifiedEvent = WebhookEventOf<'RESERVATION_MODIFIED'>;

const URL_ = 'http://partner.test/webhooks';
const confirmed = () =>
  buildDelivery({ event: 'RESERVATION_CONFIRMED', reservation: reservation(), restaurantId: 7 }, TOKEN);

function receiverWithSpy(options: Partial<Parameters<typeof createWebhookReceiver>[0]> = {}) {
  const seen: WebhookEvent[] = [];
  const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false, ...options }).on('*', (event) => {
    seen.push(event);
  });
  return { receiver, seen };
}

describe('deliveries the spec leaves open are read, not refused', () => {
  it.each([
    ['text/plain', 'text/plain; charset=utf-8'],
    ['no Content-Type', undefined],
    ['application/octet-stream', 'application/octet-stream'],
    ['text/json', 'text/json'],
  ])('JSON sent as %s is handled', async (_name, contentType) => {
    const { receiver, seen } = receiverWithSpy();
    const delivery = confirmed();
    const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` };
    if (contentType) headers['content-type'] = contentType;
    const response = await receiver.handle(
      new Request(URL_, { method: 'POST', headers, body: delivery.body }),
    );
    expect(response.status).toBe(200);
    expect(seen.map((event) => event.type)).toEqual(['RESERVATION_CONFIRMED']);
  });

  it.each([
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
    'text/html',
  ])('a Content-Type naming another format (%s) is still refused with 415', async (contentType) => {
    const { receiver, seen } = receiverWithSpy();
    const response = await receiver.handle(
      new Request(URL_, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': contentType },
        body: confirmed().body,
      }),
    );
    expect(response.status).toBe(415);
    expect(seen).toHaveLength(0);
  });

  it('a bare token in Authorization, with no scheme, is accepted; a wrong one or another scheme is not', async () => {
    const { receiver, seen } = receiverWithSpy();
    const body = confirmed().body;
    const send = (authorization: string) =>
      receiver.receive({
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body,
      });
    expect((await send(TOKEN)).status).toBe(200);
    expect((await send(`  ${TOKEN} `)).status).toBe(200);
    expect((await send(OTHER_TOKEN)).status).toBe(401);
    expect((await send(basicAuthorization('x', TOKEN))).status).toBe(401);
    expect(seen).toHaveLength(1);
  });

  it('a RESERVATION_MODIFIED whose reservation lacks start_time (only what changed) reaches its handler', async () => {
    const handled: ReservationModifiedEvent[] = [];
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false }).on(
      'RESERVATION_MODIFIED',
      (event) => {
        expectTypeOf(event.reservation.start_time).toEqualTypeOf<string | undefined>();
        handled.push(event);
      },
    );
    for (const [event, partial] of [
      ['RESERVATION_MODIFIED', { id: 4021, adults: 4 }],
      ['RESERVATION_CANCELLED', { id: 4021 }],
    ] as const) {
      const body = JSON.stringify({ id: `evt_${event}`, event, restaurant_id: 7, reservation: partial });
      const result = await receiver.receive({
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}` },
        body,
      });
      expect(result.status).toBe(200);
    }
    expect(
      handled.map((event) => [event.reservation.id, event.reservation.adults, event.reservation.start_time]),
    ).toEqual([[4021, 4, undefined]]);
    // The id stays required: without it the event cannot be acted on.
    const noId = JSON.stringify({ id: 'evt_x', event: 'RESERVATION_MODIFIED', reservation: { adults: 4 } });
    expect(
      (await receiver.receive({ method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: noId }))
        .status,
    ).toBe(400);
  });

  it('headers given as a Map are read case-insensitively', async () => {
    const { receiver, seen } = receiverWithSpy();
    const delivery = confirmed();
    const headers = new Map([
      ['Authorization', `Bearer ${TOKEN}`],
      ['Content-Type', 'application/json'],
    ]);
    await expect(receiver.verify({ body: delivery.body, headers })).resolves.toMatchObject({
      type: 'RESERVATION_CONFIRMED',
    });
    const wrong = new Map([['AUTHORIZATION', `Bearer ${OTHER_TOKEN}`]]);
    expect((await receiver.receive({ headers: wrong, body: delivery.body })).status).toBe(401);
    const xml = new Map([
      ['Authorization', `Bearer ${TOKEN}`],
      ['CONTENT-TYPE', 'application/xml'],
    ]);
    expect((await receiver.receive({ headers: xml, body: delivery.body })).status).toBe(415);
    expect(seen).toHaveLength(0);
  });

  it('a string body starting with a byte-order mark is read like the same bytes', async () => {
    const { receiver } = receiverWithSpy();
    const delivery = confirmed();
    const withMark = `\uFEFF${delivery.body}`;
    const headers = { authorization: `Bearer ${TOKEN}` };
    const fromString = await receiver.verify({ body: withMark, headers });
    const fromBytes = await receiver.verify({ body: new TextEncoder().encode(withMark), headers });
    expect(fromString).toEqual(fromBytes);
    expect(fromString.type).toBe('RESERVATION_CONFIRMED');
    // Without an envelope id, both forms get the same digest id, so a repeat is recognised as one.
    const { id: _id, ...noId } = JSON.parse(delivery.body) as Record<string, unknown>;
    const body = `\uFEFF${JSON.stringify(noId)}`;
    const [a, b] = await Promise.all([
      receiver.verify({ body, headers }),
      receiver.verify({ body: new TextEncoder().encode(body), headers }),
    ]);
    expect(a.id).toBe(b.id);
  });
});

describe('partner code that never settles does not hang a delivery', () => {
  it('a handler past handlerTimeoutMs: answered 500, logged, its signal aborted, the id not marked', async () => {
    const logger = captureLogger();
    let calls = 0;
    let signal: AbortSignal | undefined;
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger, handlerTimeoutMs: 20 }).on(
      'RESERVATION_CONFIRMED',
      (_event, context) => {
        calls += 1;
        signal = context.signal;
        // The first run never settles; the service's retry then succeeds.
        return calls === 1 ? new Promise(() => {}) : undefined;
      },
    );
    const delivery = confirmed();
    const first = await receiver.receive({ method: 'POST', headers: delivery.headers, body: delivery.body });
    expect(first.status).toBe(500);
    expect(first.error).toBeInstanceOf(WebhookHandlerError);
    expect((first.error as WebhookHandlerError).timeoutMs).toBe(20);
    expect(first.body).toEqual({ error: 'The webhook handler failed; retry later' });
    expect(signal?.aborted).toBe(true);
    expect(logger.lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
      expect.stringContaining('did not finish within 20 ms (option handlerTimeoutMs)'),
    ]);
    const retry = await receiver.receive({ method: 'POST', headers: delivery.headers, body: delivery.body });
    expect(retry.status).toBe(200);
    expect(retry.duplicate).toBeUndefined();
    expect(calls).toBe(2);
  });

  it('a token provider past tokensTimeoutMs: answered 500 and logged', async () => {
    const logger = captureLogger();
    const handler = vi.fn();
    const receiver = createWebhookReceiver({
      tokens: () => new Promise(() => {}),
      tokensTimeoutMs: 20,
      logger,
    }).on('*', handler);
    const delivery = confirmed();
    const result = await receiver.receive({ method: 'POST', headers: delivery.headers, body: delivery.body });
    expect(result.status).toBe(500);
    expect(result.error).toBeInstanceOf(WebhookConfigurationError);
    expect(result.error!.message).toContain('did not answer within 20 ms (option tokensTimeoutMs)');
    expect(logger.text()).toContain('tokensTimeoutMs');
    expect(logger.text()).not.toContain(TOKEN);
    expect(handler).not.toHaveBeenCalled();
  });

  it.each([0, -1, Number.NaN, Infinity, 2 ** 31])('refuses a time limit of %s at creation', (value) => {
    expect(() => createWebhookReceiver({ tokens: [TOKEN], handlerTimeoutMs: value })).toThrow(
      /handlerTimeoutMs must be a number of milliseconds/,
    );
    expect(() => createWebhookReceiver({ tokens: [TOKEN], tokensTimeoutMs: value })).toThrow(
      /tokensTimeoutMs must be a number of milliseconds/,
    );
  });
});

describe('receiver options', () => {
  it('a misspelt option is refused at creation, naming it, instead of being ignored', () => {
    // @ts-expect-error misspelt option
    expect(() => createWebhookReceiver({ tokens: [TOKEN], tokenheader: 'x-webhook-token' })).toThrow(
      /unknown option "tokenheader"; expected tokens, tokenHeader/,
    );
  });
});
