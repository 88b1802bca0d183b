/**
 * The receiver over real HTTP: deliveries built with `buildDelivery` are POSTed over the network
 * to an Express 5 app (`nodeHandler()`) and to a fetch-style handler served by `node:http`.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8Length } from '../../src/webhooks/node-adapter.js';
import { propertyRuns } from '../support/property-runs.js';
import { buildDelivery, createWebhookReceiver, type WebhookEvent } from 'restaurant-partner-sdk/webhooks';
import { captureLogger, OTHER_TOKEN, TOKEN } from './helpers.js';
import { type RunningServer, startExpressApp, startFetchStyleServer, startNodeServer } from './servers.js';
import { reservation } from '../support/reservation.js';

const PATH = '/webhooks/reservations';
const MAX_BODY_BYTES = 8 * 1024;

function hostedReceiver() {
  const events: WebhookEvent[] = [];
  const logger = captureLogger();
  let failNext = false;
  const receiver = createWebhookReceiver({ tokens: [TOKEN], logger, maxBodyBytes: MAX_BODY_BYTES })
    .on('RESERVATION_CONFIRMED', (event) => void events.push(event))
    .on('RESERVATION_MODIFIED', (event) => void events.push(event))
    .on('RESERVATION_CANCELLED', (event) => {
      if (failNext) {
        failNext = false;
        throw new Error('ledger unavailable');
      }
      events.push(event);
    })
    .on('TEST', (event) => void events.push(event))
    .onUnknown((event) => void events.push(event));
  return { receiver, events, logger, failNextCancel: () => (failNext = true) };
}

const post = (url: string, body: BodyInit, headers: Record<string, string>) =>
  fetch(url, { method: 'POST', headers, body });

describe.each([
  ['Express 5 app with nodeHandler()', startExpressApp],
  [
    'fetch-style handle() served by node:http',
    (receiver: Parameters<typeof startExpressApp>[0]) => startFetchStyleServer(receiver, PATH),
  ],
] as const)('%s', (_name, start) => {
  let server: RunningServer;
  let hosted: ReturnType<typeof hostedReceiver>;
  let url: string;
  beforeAll(async () => {
    hosted = hostedReceiver();
    server = await start(hosted.receiver);
    url = `${server.url}${PATH}`;
  });
  afterAll(() => server.close());

  it('receives confirm, modify, cancel and test deliveries as typed events', async () => {
    const contents = [
      { event: 'RESERVATION_CONFIRMED', reservation: reservation({ confirmed: true }), restaurantId: 7 },
      { event: 'RESERVATION_MODIFIED', reservation: reservation({ adults: 5 }), restaurantId: 7 },
      { event: 'RESERVATION_CANCELLED', reservation: reservation({ cancelled: true }), restaurantId: 7 },
      { event: 'TEST' },
    ];
    const before = hosted.events.length;
    for (const content of contents) {
      const delivery = buildDelivery(content, TOKEN);
      const response = await post(url, delivery.body, delivery.headers);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ received: true });
    }
    const received = hosted.events.slice(before);
    expect(received.map((event) => event.type)).toEqual([
      'RESERVATION_CONFIRMED',
      'RESERVATION_MODIFIED',
      'RESERVATION_CANCELLED',
      'TEST',
    ]);
    const [confirmedEvent, modified, cancelled] = received;
    expect(confirmedEvent).toMatchObject({ restaurant_id: 7, reservation: { id: 41, confirmed: true } });
    expect(modified).toMatchObject({ reservation: { adults: 5 } });
    expect(cancelled).toMatchObject({ reservation: { cancelled: true } });
  });

  it('answers each bad delivery with its status and runs no handler', async () => {
    const valid = buildDelivery({ event: 'RESERVATION_CONFIRMED', reservation: reservation() }, TOKEN);
    const before = hosted.events.length;
    const answers = {
      wrongToken: await post(url, valid.body, { ...valid.headers, authorization: `Bearer ${OTHER_TOKEN}` }),
      missingToken: await post(url, valid.body, { 'content-type': 'application/json' }),
      emptyBody: await post(url, '', valid.headers),
      malformed: await post(url, '{"id":', valid.headers),
      wrongType: await post(url, valid.body, { ...valid.headers, 'content-type': 'application/xml' }),
      oversized: await post(url, JSON.stringify({ pad: 'x'.repeat(MAX_BODY_BYTES) }), valid.headers),
      notEnvelope: await post(url, '{"order": 12}', valid.headers),
    };
    expect(
      Object.fromEntries(Object.entries(answers).map(([name, response]) => [name, response.status])),
    ).toEqual({
      wrongToken: 401,
      missingToken: 401,
      emptyBody: 400,
      malformed: 400,
      wrongType: 415,
      oversized: 413,
      notEnvelope: 400,
    });
    for (const response of Object.values(answers)) {
      const text = await response.text();
      expect(JSON.parse(text)).toHaveProperty('error');
      expect(text).not.toContain(TOKEN);
    }
    expect(hosted.events.length).toBe(before);
    expect(hosted.logger.text()).not.toContain(TOKEN);
  });

  it('refuses a large streamed body with 413 before reading it all', async () => {
    const valid = buildDelivery({ event: 'TEST' }, TOKEN);
    const size = 4 * 1024 * 1024;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= size) return controller.close();
        sent += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
      },
    });
    // No Content-Length (chunked), so the limit is enforced while reading.
    const response = await fetch(url, {
      method: 'POST',
      headers: valid.headers,
      body,
      duplex: 'half',
    } as RequestInit).catch((error: unknown) => error);
    expect(response).toBeInstanceOf(Response);
    expect((response as Response).status).toBe(413);
    expect((response as Response).headers.get('connection')).toBe('close');
    // Answered before the body had all arrived. (How much the client uploaded meanwhile is up to
    // scheduling: node drains the rest of the request after a 413, so it is not asserted.)
    expect(server.answers.at(-1)).toEqual({ status: 413, bodyComplete: false });
  });

  it('answers a replayed delivery 200 without a second event, and processes a delivery whose handler failed when it comes again', async () => {
    const replay = buildDelivery(
      { event: 'RESERVATION_MODIFIED', reservation: reservation({ adults: 3 }) },
      TOKEN,
    );
    const before = hosted.events.length;
    expect((await post(url, replay.body, replay.headers)).status).toBe(200);
    const second = await post(url, replay.body, replay.headers);
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ received: true, duplicate: true });
    expect(hosted.events.length).toBe(before + 1);

    const cancel = buildDelivery(
      { event: 'RESERVATION_CANCELLED', reservation: reservation({ cancelled: true }) },
      TOKEN,
    );
    hosted.failNextCancel();
    const failed = await post(url, cancel.body, cancel.headers);
    expect(failed.status).toBe(500);
    expect(await failed.text()).not.toContain('ledger unavailable');
    expect((await post(url, cancel.body, cancel.headers)).status).toBe(200);
    expect(hosted.events.filter((event) => event.id === cancel.id)).toHaveLength(1);
  });
});

describe('Express mount order', () => {
  it('with express.json() in front, the raw bytes are gone: 500 and a log line that says how to mount it', async () => {
    const logger = captureLogger();
    const handled: WebhookEvent[] = [];
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger }).on(
      '*',
      (event) => void handled.push(event),
    );
    for (const mount of ['json-first', 'json-then-raw'] as const) {
      const server = await startExpressApp(receiver, { mount });
      try {
        const delivery = buildDelivery({ event: 'TEST' }, TOKEN);
        const response = await post(`${server.url}${PATH}`, delivery.body, delivery.headers);
        expect(response.status).toBe(500);
        expect(handled).toHaveLength(0);
        // The answer and the log say what happened and what to do.
        expect(((await response.json()) as { error: string }).error).toContain(
          'a JSON parser (express.json()) already parsed',
        );
        const line = logger.lines.findLast((entry) => entry.level === 'error');
        expect(line?.message).toContain('register the webhook route before app.use(express.json())');
        expect(line?.message).toContain(
          'express.json({ verify: (req, _res, buf) => { req.rawBody = buf; } })',
        );
        expect(logger.text()).not.toContain(TOKEN);
        // JSON sent as text/plain is not parsed by express.json(): the stream is still there to read.
        const plain = await post(`${server.url}${PATH}`, delivery.body, {
          ...delivery.headers,
          'content-type': 'text/plain',
        });
        expect(plain.status).toBe(200);
        handled.length = 0;
      } finally {
        await server.close();
      }
    }
  });

  it('behind a global express.json({ verify }) that keeps req.rawBody, the kept bytes are used', async () => {
    const handled: WebhookEvent[] = [];
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false }).on(
      '*',
      (event) => void handled.push(event),
    );
    const server = await startExpressApp(receiver, { mount: 'json-keeping-raw' });
    try {
      const delivery = buildDelivery({ event: 'RESERVATION_CONFIRMED', reservation: reservation() }, TOKEN);
      expect((await post(`${server.url}${PATH}`, delivery.body, delivery.headers)).status).toBe(200);
      expect(handled.map((event) => event.id)).toEqual([delivery.id]);
      const echo = await post(`${server.url}/api/echo`, '{"a":1}', { 'content-type': 'application/json' });
      expect(await echo.json()).toEqual({ echoed: { a: 1 } });
    } finally {
      await server.close();
    }
  });

  it('with express.raw() in front, the Buffer it read is used', async () => {
    const handled: WebhookEvent[] = [];
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false }).on(
      '*',
      (event) => void handled.push(event),
    );
    const server = await startExpressApp(receiver, { mount: 'raw-first' });
    try {
      const delivery = buildDelivery({ event: 'RESERVATION_CONFIRMED', reservation: reservation() }, TOKEN);
      expect((await post(`${server.url}${PATH}`, delivery.body, delivery.headers)).status).toBe(200);
      expect(handled.map((event) => event.id)).toEqual([delivery.id]);
      // The rest of the app still parses JSON as usual.
      const echo = await post(`${server.url}/api/echo`, '{"a":1}', { 'content-type': 'application/json' });
      expect(await echo.json()).toEqual({ echoed: { a: 1 } });
    } finally {
      await server.close();
    }
  });
});

describe('nodeHandler() answers', () => {
  it('carry their exact length in bytes (no chunked framing), for an accepted, a repeated and a refused delivery', async () => {
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false }).on('*', () => {});
    const server = await startNodeServer(receiver);
    try {
      const delivery = buildDelivery({ event: 'RESERVATION_CONFIRMED', reservation: reservation() }, TOKEN);
      const answers = [
        await post(server.url, delivery.body, delivery.headers),
        await post(server.url, delivery.body, delivery.headers),
        // The refusal names the media type it was given: a character past ASCII takes two bytes.
        await post(server.url, delivery.body, { ...delivery.headers, 'content-type': 'text/é' }),
      ];
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 415]);
      const bodies: unknown[] = [];
      for (const answer of answers) {
        const bytes = new Uint8Array(await answer.arrayBuffer());
        expect(answer.headers.get('transfer-encoding')).toBeNull();
        expect(Number(answer.headers.get('content-length'))).toBe(bytes.byteLength);
        bodies.push(JSON.parse(new TextDecoder().decode(bytes)));
      }
      expect(bodies).toEqual([
        { received: true },
        { received: true, duplicate: true },
        { error: expect.stringContaining('text/é') },
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('the length nodeHandler() writes', () => {
  it('is the UTF-8 size of any JSON answer: one-, two-, three- and four-byte characters, lone surrogates escaped', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), (any, graphemes) => {
        for (const text of [JSON.stringify({ error: any }), JSON.stringify({ error: `é€😀${graphemes}` })])
          expect(utf8Length(text)).toBe(new TextEncoder().encode(text).byteLength);
      }),
      { numRuns: propertyRuns(300) },
    );
  });
});
