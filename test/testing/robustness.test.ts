/**
 * No request can crash or wedge the standalone fake: each defect an audit over raw HTTP found,
 * replayed byte for byte, then a fuzzer throwing random methods, targets, headers and bodies.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_PARTNER, createFakeService } from 'restaurant-partner-sdk/testing';
import { startFakeServer, type RunningFakeServer } from 'restaurant-partner-sdk/testing/node';
import { API, START } from './helpers.js';
import { basicAuthorization } from '../support/basic-auth.js';
import { httpText, rawJson, rawRequest } from './raw-http.js';
import { propertyRuns } from '../support/property-runs.js';

let server: RunningFakeServer | undefined;
let lines: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  lines = [];
});

const demoAuth = basicAuthorization(DEMO_PARTNER.partnerId, DEMO_PARTNER.apiToken);

async function start(options: Parameters<typeof startFakeServer>[0] = {}) {
  server = await startFakeServer({
    seed: 'demo',
    rateLimit: false,
    logger: (line) => lines.push(line),
    ...options,
  });
  const host = `127.0.0.1:${server.port}`;
  const send = (method: string, target: string, headers: Record<string, string> = {}, body = '') =>
    rawRequest(
      server!.port,
      httpText(
        method,
        target,
        {
          host,
          connection: 'close',
          ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
          ...headers,
        },
        body,
      ),
    );
  const control = (method: string, path: string, body?: unknown) =>
    send(
      method,
      `/_fake/${path}`,
      { 'content-type': 'application/json' },
      body === undefined ? '' : JSON.stringify(body),
    );
  const alive = async () => expect((await send('GET', '/_fake/')).status).toBe(200);
  return { server, host, send, control, alive };
}

const noInternalErrors = () =>
  expect(lines.filter((line) => / -> 500|internal error|\n\s+at /.test(line))).toEqual([]);

describe('requests that used to kill or break the standalone fake', () => {
  it('TRACE answers 405 instead of killing the process', async () => {
    const { send, alive } = await start();
    expect((await send('TRACE', '/')).status).toBe(405);
    expect((await send('TRACE', `${API}/profile/`, { authorization: demoAuth })).status).toBe(405);
    // TRACK, which fetch refuses too, is not even HTTP to node's parser: a 400 from node itself.
    expect((await send('TRACK', '/')).status).toBe(400);
    await alive();
  });

  it('an absolute-form target that does not parse answers 400', async () => {
    const { send, alive } = await start();
    for (const target of ['http://[::1/', 'http://%zz/x', 'http://a:99999/'])
      expect((await send('GET', target)).status).toBe(400);
    await alive();
  });

  it('a foreign absolute-form target is refused (421), never served nor echoed into next links', async () => {
    const { send, host, alive } = await start();
    const foreign = await send(
      'GET',
      'http://evil.example/api/v1/partnership/restaurants/1/reservations/?page_size=1',
      { authorization: demoAuth },
    );
    expect(foreign.status).toBe(421);
    expect(foreign.text).not.toContain('evil.example');
    // Its own address in absolute form is served, and links name the server's own origin.
    for (const time of ['19:00', '20:00'])
      server!.fake.addOtherChannelBooking(1, {
        start_time: `2030-01-0${time === '19:00' ? 8 : 9}T${time}:00`,
        adults: 2,
      });
    const own = await send('GET', `http://${host}/api/v1/partnership/restaurants/1/reservations/`, {
      authorization: demoAuth,
      host: 'evil.example',
    });
    expect(own.status).toBe(200);
    expect(own.text).not.toContain('evil.example');
    await alive();
  });

  it('advancing the clock by P300000Y is a 400 and leaves the clock and webhooks working', async () => {
    const { send, control, alive } = await start();
    const refused = await control('POST', 'clock/advance', { duration: 'P300000Y' });
    expect(refused.status).toBe(400);
    expect(rawJson(refused).duration).toEqual([expect.stringContaining('9999')]);
    expect((await control('POST', 'clock/set', { now: '+275760-09-13T00:00:00Z' })).status).toBe(400);
    expect((await control('POST', 'clock/advance', { milliseconds: 1e300 })).status).toBe(400);
    expect((await control('GET', 'clock')).status).toBe(200);
    expect((await send('GET', `${API}/webhooks/`, { authorization: demoAuth })).status).toBe(200);
    await alive();
  });

  it("a virtual sleep past the clock's end stops at the end of year 9999 instead of breaking it", async () => {
    const fake = createFakeService({ clock: { frozen: true, startAt: START } });
    await fake.clock.sleep(Number.MAX_SAFE_INTEGER);
    expect(new Date(fake.clock.now()).toISOString()).toBe('9999-12-31T23:59:59.999Z');
    fake.dispose();
  });

  it('faults: 1xx statuses and headers no HTTP answer can carry are refused; 205 answers without a body', async () => {
    const { send, control, alive } = await start();
    for (const status of [101, 199])
      expect(rawJson(await control('POST', 'faults', { status })).status).toEqual([expect.any(String)]);
    const badHeaders = await control('POST', 'faults', {
      status: 503,
      headers: {
        'bad name': 'x',
        'x-split': 'a\r\nset-cookie: evil=1',
        'content-length': '5',
        'x-nul': 'a\u0000b',
      },
    });
    expect(badHeaders.status).toBe(400);
    expect(Object.keys(rawJson(badHeaders))).toEqual(
      expect.arrayContaining([
        'headers.bad name',
        'headers.x-split',
        'headers.content-length',
        'headers.x-nul',
      ]),
    );
    expect((await control('POST', 'faults', { status: 205, operation: 'restaurants.list' })).status).toBe(
      201,
    );
    const answer = await send('GET', `${API}/restaurants/`, { authorization: demoAuth });
    expect(answer.status).toBe(205);
    await alive();
    noInternalErrors();
  });

  it('a snapshot name with a broken percent-escape is a 404, not a 500', async () => {
    const { control, alive } = await start();
    expect((await control('POST', 'snapshots/%zz/restore')).status).toBe(404);
    expect((await control('POST', 'snapshots/%E0%A4%A/restore')).status).toBe(404);
    await alive();
    noInternalErrors();
  });

  it('a webhook URL with credentials is refused when registered (it could never be delivered)', async () => {
    const { send } = await start();
    const answer = await send(
      'POST',
      `${API}/webhooks/`,
      { authorization: demoAuth, 'content-type': 'application/json' },
      JSON.stringify({ url: 'https://user:secret@partner.example/hooks' }),
    );
    expect(answer.status).toBe(400);
    expect(rawJson(answer).url).toEqual([expect.stringContaining('credentials')]);
  });

  it('a client that drops mid-body is logged in one line, not as an internal error with a stack', async () => {
    const { host, alive } = await start();
    const head = httpText(
      'POST',
      `${API}/webhooks/`,
      { host, authorization: demoAuth, 'content-type': 'application/json', 'content-length': '1000' },
      '{"url": "https://par',
    );
    await rawRequest(server!.port, head, { destroyAfterWrite: true });
    await alive();
    noInternalErrors();
  });

  it('--rate-limit 2.5 admits 2.5 requests per second over time, not 2', async () => {
    const fake = createFakeService({ clock: { frozen: true, startAt: START }, rateLimit: 2.5 });
    const partner = fake.addPartner();
    let admitted = 0;
    // One request every 100 ms of fake time for a minute.
    for (let step = 0; step < 600; step += 1) {
      const answer = await fake.handle(
        new Request(`http://fake.test${API}/profile/`, {
          headers: { authorization: basicAuthorization(partner.partnerId, partner.apiToken) },
        }),
      );
      if (answer.status === 200) admitted += 1;
      await fake.clock.advance(100);
    }
    expect(admitted).toBeGreaterThanOrEqual(150);
    expect(admitted).toBeLessThanOrEqual(153);
    fake.dispose();
  });
});

describe('the control plane refuses what a web page could send it', () => {
  it('refuses a foreign Origin, a foreign Host (DNS rebinding), Origin null and cross-site fetch metadata', async () => {
    const { host, send, alive } = await start();
    const reset = (headers: Record<string, string>) => send('POST', '/_fake/reset', headers);
    for (const headers of <Record<string, string>[]>[
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { origin: 'http://127.0.0.1:1' },
      { host: `rebind.example:${server!.port}` },
      { 'sec-fetch-site': 'cross-site' },
    ]) {
      const answer = await reset(headers);
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(rawJson(answer).detail).toContain('--allow-remote-control');
    }
    // Its own pages (the same origin) and tools without an Origin pass.
    expect((await reset({ origin: `http://${host}` })).status).toBe(200);
    expect(
      (await reset({ origin: `http://localhost:${server!.port}`, host: `localhost:${server!.port}` })).status,
    ).toBe(200);
    expect((await reset({})).status).toBe(200);
    // The partner API is not guarded this way: it has credentials.
    expect(
      (await send('GET', `${API}/profile/`, { authorization: demoAuth, origin: 'http://evil.example' }))
        .status,
    ).toBe(200);
    await alive();
  });

  it('--allow-remote-control lifts the guards', async () => {
    const { send } = await start({ allowRemoteControl: true });
    expect(
      (await send('POST', '/_fake/reset', { origin: 'http://evil.example', host: 'rebind.example' })).status,
    ).toBe(200);
  });
});

/** Request pieces a fuzzer combines: real routes, broken ones, and values that once broke the fake. */
const targets = fc.oneof(
  fc.constantFrom(
    '/',
    '*',
    '/_fake',
    '/_fake/',
    '/_fake/clock',
    '/_fake/clock/advance',
    '/_fake/clock/set',
    '/_fake/faults',
    '/_fake/reset',
    '/_fake/snapshots',
    '/_fake/snapshots/a/restore',
    '/_fake/snapshots/%zz/restore',
    '/_fake/partners',
    '/_fake/restaurants',
    '/_fake/restaurants/1/reservations',
    '/_fake/restaurants/1/reservations/1/confirm',
    '/_fake/rate-limit',
    '/_fake/deliveries',
    '/_fake/deliveries/flush',
    '/_fake/links',
    '/_fake/requests',
    '/_fake/sandboxes',
    `${API}/profile/`,
    `${API}/profile`,
    `${API}/restaurants/`,
    `${API}/restaurants/1/reservations/`,
    `${API}/restaurants/1/reservations/1/`,
    `${API}/restaurants/1/reservations/1/?action=cancel`,
    `${API}/restaurants/99999999999999999999/reservations/`,
    `${API}/webhooks/`,
    `${API}/webhooks/1/`,
    `${API}/webhooks/1/test/`,
    `${API}/webhooks/1/auth-token/`,
    `${API}/restaurants/1/reservations/?page=0&page_size=-1`,
    '/sandboxes/',
    '/sandboxes/sbx_nope/_fake/clock',
    '/sandboxes/%zz/api/v1/partnership/profile/',
    '/_fake/sandboxes/sbx_nope',
    '/_fake/state',
    '/_fake/requests?token=x',
    'http://[::1/',
    'http://%zz/x',
    'http://a:99999/',
    'http://evil.example/api/v1/partnership/profile/',
    'https://x/',
    '//double/slash',
    '/%',
    '/%%30',
  ),
  fc.stringMatching(/^\/[!-~]{0,60}$/),
  fc
    .tuple(
      fc.constantFrom(`${API}/`, '/_fake/'),
      fc.array(
        fc.constantFrom(
          'restaurants',
          'reservations',
          '1',
          '0',
          '-1',
          '%00',
          '..',
          'x',
          'webhooks',
          'confirm',
        ),
        { maxLength: 5 },
      ),
    )
    .map(([root, segments]) => `${root}${segments.join('/')}`),
);
const methods = fc.constantFrom(
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'HEAD',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
  'PURGE',
  'MKCOL',
  'SEARCH',
  'LINK',
);
const jsonKeys = fc.constantFrom(
  'duration',
  'milliseconds',
  'now',
  'status',
  'headers',
  'operation',
  'times',
  'phase',
  'commitDelayMs',
  'latencyMs',
  'networkError',
  'body',
  'name',
  'requestsPerSecond',
  'start_time',
  'adults',
  'children',
  'url',
  'partnerId',
  'restaurantId',
  'timezone',
  'availability',
  'by',
  'description',
  'website_url',
  'subscribed_events',
  'is_enabled',
  'metadata',
  'language',
  'seed',
  'rateLimit',
  'dialect',
  'first_name',
  'arrived',
  'no_show',
);
const jsonValues = fc.oneof(
  fc.constantFrom(
    'P300000Y',
    'PT1H',
    '-PT1H',
    '+275760-09-13T00:00:00Z',
    '9999-12-31T23:59:59Z',
    'http://127.0.0.1:1/hook',
    'https://u:p@x.example/',
    'reservations.create',
    'after',
    'before',
    'Mars/Olympus',
    '2030-01-08T19:00:00',
    'en',
    'x'.repeat(300),
  ),
  fc.constantFrom(101, 199, 204, 205, 304, 429, 500, 503, 0, -1, 1e300, 2.5, Number.MAX_SAFE_INTEGER),
  fc.boolean(),
  fc.constant(null),
  fc.dictionary(
    fc.constantFrom(
      'retry-after',
      'bad name',
      'x\r\ny',
      'content-length',
      'RESERVATION_CONFIRMED',
      'fr',
      'capacityCovers',
    ),
    fc.oneof(fc.string(), fc.integer(), fc.boolean()),
    { maxKeys: 3 },
  ),
  fc.string({ maxLength: 20 }),
  fc.integer(),
);
const bodies = fc.oneof(
  fc.constant(''),
  fc.dictionary(jsonKeys, jsonValues, { maxKeys: 6 }).map((value) => JSON.stringify(value)),
  fc.json({ maxDepth: 3 }),
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
  fc.constant('['.repeat(5000)),
);
const headerSets = fc.record(
  {
    authorization: fc.constantFrom(
      demoAuth,
      'Basic !!!',
      basicAuthorization('a', 'b'),
      'Bearer x',
      `Basic ${'A'.repeat(4000)}`,
    ),
    'content-type': fc.constantFrom('application/json', 'text/plain', 'application/json; charset=latin1', ''),
    origin: fc.constantFrom(
      'http://evil.example',
      'null',
      'http://127.0.0.1',
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ),
    'idempotency-key': fc.constantFrom('k', '', 'x'.repeat(300)),
    'x-random': fc.stringMatching(/^[ -~]{0,40}$/),
    expect: fc.constant('100-continue'),
    'transfer-encoding': fc.constant('chunked'),
  },
  { requiredKeys: [] },
);

describe('fuzz over raw sockets', () => {
  it('random methods, targets, headers and bodies: every request is answered or its connection alone dropped; the server lives on with no 500', async () => {
    const { host, alive } = await start({ deliveries: { timeoutMs: 500 } });
    const statuses = new Map<number | undefined, number>();
    let thrown = 0;
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(
        methods,
        targets,
        headerSets,
        bodies,
        fc.boolean(),
        async (method, target, headers, body, lengthMatches) => {
          const { 'transfer-encoding': chunked, origin, ...others } = headers;
          const rest = origin === undefined ? others : { ...others, origin };
          const framing: Record<string, string> = chunked
            ? { 'transfer-encoding': 'chunked' }
            : { 'content-length': String(Buffer.byteLength(body, 'latin1') + (lengthMatches ? 0 : 7)) };
          const payload = chunked
            ? `${Buffer.byteLength(body, 'latin1').toString(16)}\r\n${body}\r\n${lengthMatches ? '0\r\n\r\n' : 'zz\r\n'}`
            : body;
          const head = [
            `${method} ${target} HTTP/1.1`,
            `host: ${host}`,
            'connection: close',
            ...Object.entries({ ...rest, ...framing }).map(([name, value]) => `${name}: ${value}`),
          ].join('\r\n');
          const answer = await rawRequest(server!.port, Buffer.from(`${head}\r\n\r\n${payload}`, 'latin1'), {
            timeoutMs: 1500,
          });
          thrown += 1;
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          expect(answer.status).not.toBe(500);
        },
      ),
      { numRuns: propertyRuns(3000), interruptAfterTimeLimit: 40_000, endOnFailure: true },
    );
    // Bounded: a run cut short by the time limit still threw a meaningful number of requests.
    expect(thrown).toBeGreaterThanOrEqual(100);
    await alive();
    noInternalErrors();
    console.info(
      `fuzz: ${thrown} requests in ${Math.round(performance.now() - started)} ms; statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
  }, 60_000);
});
