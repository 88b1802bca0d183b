import { describe, expect, it, vi } from 'vitest';
import {
  buildDelivery,
  buildDeliveryRequest,
  createWebhookReceiver,
  WebhookError,
  WebhookPayloadError,
  WebhookPayloadTooLargeError,
  WebhookRawBodyRequiredError,
  WebhookUnsupportedMediaTypeError,
  WebhookVerificationError,
  type WebhookEvent,
} from 'restaurant-partner-sdk/webhooks';
import { PartnerSdkError } from 'restaurant-partner-sdk';
import { OTHER_TOKEN, TOKEN } from './helpers.js';
import { basicAuthorization } from '../support/basic-auth.js';
import { reservation } from '../support/reservation.js';

const URL_ = 'http://partner.test/webhooks';
const confirmed = () =>
  buildDelivery({ event: 'RESERVATION_CONFIRMED', reservation: reservation(), restaurantId: 7 }, TOKEN);

const post = (body: BodyInit | null, headers: Record<string, string>) =>
  new Request(URL_, { method: 'POST', headers, body });
const jsonHeaders = { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` };

function receiverWithSpy(options: Partial<Parameters<typeof createWebhookReceiver>[0]> = {}) {
  const handler = vi.fn();
  const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false, ...options }).on('*', handler);
  return { receiver, handler };
}

describe('bad deliveries get their status and never reach a handler', () => {
  const valid = confirmed();
  const cases: { name: string; request: () => Request; status: number; error: string }[] = [
    {
      name: 'wrong token',
      request: () => post(valid.body, { ...valid.headers, authorization: `Bearer ${OTHER_TOKEN}` }),
      status: 401,
      error: 'did not match',
    },
    {
      name: 'missing token header',
      request: () => post(valid.body, { 'content-type': 'application/json' }),
      status: 401,
      error: 'missing',
    },
    {
      name: 'Basic instead of Bearer',
      request: () => post(valid.body, { ...valid.headers, authorization: basicAuthorization('x', TOKEN) }),
      status: 401,
      error: 'missing',
    },
    {
      name: 'token that is a prefix of the real one',
      request: () => post(valid.body, { ...valid.headers, authorization: `Bearer ${TOKEN.slice(0, -1)}` }),
      status: 401,
      error: 'did not match',
    },
    { name: 'empty body', request: () => post('', jsonHeaders), status: 400, error: 'empty' },
    { name: 'no body at all', request: () => post(null, jsonHeaders), status: 400, error: 'empty' },
    {
      name: 'malformed JSON',
      request: () => post('{"id": "evt_1", "event": ', jsonHeaders),
      status: 400,
      error: 'not valid JSON',
    },
    {
      name: 'invalid UTF-8',
      request: () => post(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), jsonHeaders),
      status: 400,
      error: 'UTF-8',
    },
    {
      name: 'XML content type',
      request: () => post(valid.body, { ...valid.headers, 'content-type': 'application/xml' }),
      status: 415,
      error: 'application/xml',
    },
    {
      name: 'form content type',
      request: () =>
        post(valid.body, { ...valid.headers, 'content-type': 'application/x-www-form-urlencoded' }),
      status: 415,
      error: 'JSON',
    },
    {
      name: 'oversized body',
      request: () => post(`{"pad":"${'x'.repeat(2048)}"}`, jsonHeaders),
      status: 413,
      error: 'maxBodyBytes',
    },
    { name: 'JSON array', request: () => post('[1,2,3]', jsonHeaders), status: 400, error: 'an array' },
    {
      name: 'JSON string',
      request: () => post('"RESERVATION_CONFIRMED"', jsonHeaders),
      status: 400,
      error: 'not a delivery envelope',
    },
    {
      name: 'object without an event name',
      request: () => post('{"hello":"world"}', jsonHeaders),
      status: 400,
      error: 'event',
    },
    {
      name: 'reservation event without its reservation',
      request: () =>
        post(buildDelivery({ event: 'RESERVATION_CANCELLED', restaurantId: 7 }, TOKEN).body, jsonHeaders),
      status: 400,
      error: 'reservation',
    },
    {
      name: 'reservation with a broken start_time',
      request: () =>
        post(
          buildDelivery(
            { event: 'RESERVATION_MODIFIED', reservation: reservation({ start_time: 'tomorrow' }) },
            TOKEN,
          ).body,
          jsonHeaders,
        ),
      status: 400,
      error: 'reservation.start_time',
    },
    {
      name: 'GET instead of POST',
      request: () => new Request(URL_, { headers: valid.headers }),
      status: 405,
      error: 'POST',
    },
    {
      // The sender went away mid-body: the same 400 as the node adapter, not an "unexpected failure" of the receiver.
      name: 'body stream that fails while being read',
      request: () =>
        new Request(URL_, {
          method: 'POST',
          headers: valid.headers,
          body: new ReadableStream({ pull: (controller) => controller.error(new Error('connection reset')) }),
          duplex: 'half',
        } as RequestInit),
      status: 400,
      error: 'could not be read',
    },
  ];

  it.each(cases)('$name -> $status', async ({ request, status, error }) => {
    const { receiver, handler } = receiverWithSpy({ maxBodyBytes: 1024 });
    const response = await receiver.handle(request());
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as { error: string };
    expect(body.error).toContain(error);
    expect(handler).not.toHaveBeenCalled();
  });

  it('a replayed delivery id is answered 200 without running the handler again', async () => {
    const { receiver, handler } = receiverWithSpy();
    const first = await receiver.handle(post(valid.body, valid.headers));
    const replay = await receiver.handle(post(valid.body, valid.headers));
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: true });
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ received: true, duplicate: true });
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('a parsed object instead of the raw body is a 500 that says how to mount the receiver', async () => {
    const { receiver, handler } = receiverWithSpy();
    const result = await receiver.receive({
      method: 'POST',
      headers: valid.headers,
      body: JSON.parse(valid.body),
    });
    expect(result.status).toBe(500);
    expect(result.error).toBeInstanceOf(WebhookRawBodyRequiredError);
    expect(String(result.body.error)).toMatch(/express\.json\(\)/);
    expect(handler).not.toHaveBeenCalled();
  });

  it('a Request whose body another layer already read is a 500 naming the problem', async () => {
    const { receiver, handler } = receiverWithSpy();
    const request = post(valid.body, valid.headers);
    await request.text();
    const response = await receiver.handle(request);
    expect(response.status).toBe(500);
    expect(((await response.json()) as { error: string }).error).toContain('already read');
    expect(handler).not.toHaveBeenCalled();
  });

  it('refuses an oversized body from Content-Length without reading it, and stops reading a stream past the limit', async () => {
    const { receiver, handler } = receiverWithSpy({ maxBodyBytes: 1024 });
    let pulls = 0;
    const endless = () =>
      new ReadableStream<Uint8Array>({
        pull(controller) {
          pulls += 1;
          controller.enqueue(new Uint8Array(256).fill(0x20));
        },
      });
    const declared = new Request(URL_, {
      method: 'POST',
      headers: { ...jsonHeaders, 'content-length': '5000000' },
      body: endless(),
      duplex: 'half',
    } as RequestInit);
    expect((await receiver.handle(declared)).status).toBe(413);
    expect(pulls).toBeLessThanOrEqual(1); // the stream's first pull happens on construction, never read on

    pulls = 0;
    const streamed = new Request(URL_, {
      method: 'POST',
      headers: jsonHeaders,
      body: endless(),
      duplex: 'half',
    } as RequestInit);
    const response = await receiver.handle(streamed);
    expect(response.status).toBe(413);
    expect(response.headers.get('connection')).toBe('close');
    // 1024 bytes allow four 256-byte chunks; the fifth passes the limit and reading stops there.
    expect(pulls).toBeLessThanOrEqual(7);
    expect(handler).not.toHaveBeenCalled();
  });
});

describe('verify()', () => {
  const receiver = createWebhookReceiver({ tokens: [TOKEN], tokenHeader: 'X-Webhook-Token', logger: false });

  it('returns the typed event, with the reservation parsed and unknown fields kept', async () => {
    const delivery = buildDelivery(
      {
        event: 'RESERVATION_CONFIRMED',
        reservation: reservation({ table_label: 'T4' } as never),
        restaurantId: 7,
        id: 'evt_42',
        createdAt: '2026-11-23T10:00:00Z',
      },
      TOKEN,
    );
    const body = JSON.stringify({ ...JSON.parse(delivery.body), attempt: 2 });
    const event = await receiver.verify({ body, headers: delivery.headers });
    expect(event.type).toBe('RESERVATION_CONFIRMED');
    if (event.type !== 'RESERVATION_CONFIRMED') throw new Error('narrowing failed');
    expect(event).toMatchObject({
      id: 'evt_42',
      event: 'RESERVATION_CONFIRMED',
      restaurant_id: 7,
      created_at: '2026-11-23T10:00:00Z',
      attempt: 2,
    });
    expect(event.reservation).toMatchObject({ id: 41, adults: 2, table_label: 'T4' });
  });

  it.each([
    ['string', (body: string) => body],
    ['Uint8Array', (body: string) => new TextEncoder().encode(body)],
    ['Buffer', (body: string) => Buffer.from(body)],
    ['ArrayBuffer', (body: string) => new TextEncoder().encode(body).buffer],
    ['DataView', (body: string) => new DataView(new TextEncoder().encode(body).buffer)],
  ])('accepts the raw body as a %s', async (_kind, toBody) => {
    const delivery = confirmed();
    const event = await receiver.verify({ body: toBody(delivery.body), headers: delivery.headers });
    expect(event.id).toBe(delivery.id);
  });

  it.each([
    ['fetch Headers', (headers: Record<string, string>) => new Headers(headers)],
    [
      'plain object with any case',
      (headers: Record<string, string>) => ({
        Authorization: headers.authorization,
        'Content-Type': headers['content-type'],
      }),
    ],
    [
      'node IncomingHttpHeaders with a repeated header',
      (headers: Record<string, string>) => ({
        authorization: headers.authorization,
        'content-type': headers['content-type'],
        'x-forwarded-for': ['10.0.0.1', '10.0.0.2'],
      }),
    ],
    ['Map', (headers: Record<string, string>) => new Map(Object.entries(headers))],
  ])('reads headers given as %s', async (_kind, toHeaders) => {
    const delivery = confirmed();
    await expect(
      receiver.verify({ body: delivery.body, headers: toHeaders(delivery.headers) }),
    ).resolves.toMatchObject({ id: delivery.id });
  });

  it('ignores header values that are not text (a null-prototype object, a function) instead of throwing', async () => {
    const error = await receiver
      .verify({
        body: confirmed().body,
        headers: { authorization: Object.create(null), 'x-webhook-token': () => TOKEN } as never,
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect((error as WebhookVerificationError).reason).toBe('missing');
  });

  it.each([
    ['the configured header, raw', { 'x-webhook-token': TOKEN }],
    ['the configured header, with Bearer', { 'x-webhook-token': `Bearer ${TOKEN}` }],
    ['Authorization: Token (Django REST style)', { authorization: `Token ${TOKEN}` }],
    ['a lower-case bearer scheme', { authorization: `bearer ${TOKEN}` }],
  ])('accepts the token in %s', async (_where, tokenHeaders) => {
    const delivery = confirmed();
    const event = await receiver.verify({
      body: delivery.body,
      headers: { 'content-type': 'application/json', ...tokenHeaders },
    });
    expect(event.type).toBe('RESERVATION_CONFIRMED');
  });

  it('accepts JSON media types with parameters or a +json suffix, and a missing Content-Type', async () => {
    const delivery = confirmed();
    for (const contentType of [
      'application/json; charset=utf-8',
      'Application/JSON',
      'application/vnd.restaurant+json',
      undefined,
    ]) {
      const headers: Record<string, string> = { authorization: delivery.headers.authorization! };
      if (contentType) headers['content-type'] = contentType;
      await expect(receiver.verify({ body: delivery.body, headers })).resolves.toMatchObject({
        id: delivery.id,
      });
    }
  });

  it('throws typed errors carrying the status, all PartnerSdkErrors', async () => {
    const delivery = confirmed();
    const attempts: [() => Promise<unknown>, new (...args: never[]) => WebhookError, number][] = [
      [() => receiver.verify({ body: delivery.body, headers: {} }), WebhookVerificationError, 401],
      [() => receiver.verify({ body: '{', headers: delivery.headers }), WebhookPayloadError, 400],
      [
        () =>
          receiver.verify({
            body: delivery.body,
            headers: { ...delivery.headers, 'content-type': 'text/xml' },
          }),
        WebhookUnsupportedMediaTypeError,
        415,
      ],
      [
        () => receiver.verify({ body: 'x'.repeat(1024 * 1024 + 1), headers: delivery.headers }),
        WebhookPayloadTooLargeError,
        413,
      ],
    ];
    for (const [attempt, errorClass, status] of attempts) {
      const error = await attempt().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(errorClass);
      expect(error).toBeInstanceOf(PartnerSdkError);
      expect((error as WebhookError).status).toBe(status);
    }
  });

  it.each([
    ['a parsed object', { id: 'evt_1', event: 'TEST' }, /a plain object/],
    ['undefined', undefined, /undefined/],
    ['a stream', new ReadableStream(), /ReadableStream/],
  ])('tells the partner to pass the raw body when given %s', async (_kind, body, received) => {
    const error = await receiver
      .verify({ body: body as never, headers: confirmed().headers })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WebhookRawBodyRequiredError);
    const message = (error as Error).message;
    expect(message).toMatch(received);
    expect(message).toContain('register the webhook route before app.use(express.json())');
    expect(message).toContain('req.rawBody = buf');
    expect(message).toContain('express.json()');
    expect(message).toContain('await request.text()');
  });

  it('surfaces an unknown event type instead of refusing it, and narrows on type', async () => {
    const body = JSON.stringify({
      id: 'evt_9',
      event: 'RESERVATION_REMINDER_SENT',
      restaurant_id: 7,
      reservation: { id: 1, anything: true },
    });
    const event: WebhookEvent = await receiver.verify({ body, headers: confirmed().headers });
    expect(event.type).toBe('unknown');
    if (event.type !== 'unknown') throw new Error('narrowing failed');
    expect(event.event).toBe('RESERVATION_REMINDER_SENT');
    expect(event.reservation).toEqual({ id: 1, anything: true });
  });

  it('reads test deliveries, integer ids and plausible alternative spellings of the envelope', async () => {
    const headers = confirmed().headers;
    const test = await receiver.verify({ body: buildDelivery({ event: 'TEST' }, TOKEN).body, headers });
    expect(test).toMatchObject({ type: 'TEST', reservation: null, restaurant_id: null });

    const integerId = await receiver.verify({ body: JSON.stringify({ id: 981, event: 'TEST' }), headers });
    expect(integerId.id).toBe('981');

    const aliased = await receiver.verify({
      body: JSON.stringify({
        event_id: 'e-1',
        event_type: 'RESERVATION_CANCELLED',
        data: reservation({ cancelled: true }),
      }),
      headers,
    });
    expect(aliased).toMatchObject({
      type: 'RESERVATION_CANCELLED',
      id: 'e-1',
      reservation: { id: 41, cancelled: true },
    });
  });

  it('gives an envelope without id a stable id derived from its bytes, so a retry is still recognised', async () => {
    const body = JSON.stringify({ event: 'TEST', created_at: '2026-11-23T10:00:00Z' });
    const first = await receiver.verify({ body, headers: confirmed().headers });
    const again = await receiver.verify({ body, headers: confirmed().headers });
    const other = await receiver.verify({
      body: body.replace('10:00', '11:00'),
      headers: confirmed().headers,
    });
    expect(first.id).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(again.id).toBe(first.id);
    expect(other.id).not.toBe(first.id);
  });

  it('builds a Request exactly as buildDelivery describes it', async () => {
    const request = buildDeliveryRequest(URL_, { event: 'TEST', id: 'evt_t' }, TOKEN);
    expect(request.method).toBe('POST');
    expect(request.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(await receiver.verify({ body: await request.text(), headers: request.headers })).toMatchObject({
      type: 'TEST',
      id: 'evt_t',
    });
  });
});
