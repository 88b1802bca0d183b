/**
 * The standalone fake's surface as an auditor drives it over raw sockets: pipelined requests
 * answered one at a time, the partner API refusing host names a DNS-rebinding page would send,
 * origin-form targets that stay paths, misspelt control keys refused, the clock's range, a sane
 * Retry-After, tokens kept from remote viewers, and a state poll whose 304 ignores the world's size.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_PARTNER, createFakeService } from 'restaurant-partner-sdk/testing';
import { startFakeServer, type RunningFakeServer } from 'restaurant-partner-sdk/testing/node';
import { API, START } from './helpers.js';
import { basicAuthorization } from '../support/basic-auth.js';
import { httpText, rawJson, rawRequest } from './raw-http.js';

let server: RunningFakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const demoAuth = basicAuthorization(DEMO_PARTNER.partnerId, DEMO_PARTNER.apiToken);

async function start(options: Parameters<typeof startFakeServer>[0] = {}) {
  server = await startFakeServer({
    seed: 'demo',
    rateLimit: false,
    clock: { frozen: true, startAt: START },
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
          ...(body
            ? { 'content-length': String(Buffer.byteLength(body)), 'content-type': 'application/json' }
            : {}),
          ...headers,
        },
        body,
      ),
    );
  const control = (method: string, path: string, body?: unknown) =>
    send(method, `/_fake/${path}`, {}, body === undefined ? '' : JSON.stringify(body));
  return { server, host, send, control };
}

/** Writes `bytes` in one write on one connection and collects every answer until `count` arrived. */
function pipelined(port: number, bytes: string, count: number): Promise<{ status: number; body: string }[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`only part of the pipelined answers came back:\n${text}`));
    }, 10_000);
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
      const answers = parseAnswers(text);
      if (answers.length >= count) {
        clearTimeout(timer);
        socket.destroy();
        resolve(answers);
      }
    });
    socket.on('connect', () => socket.write(bytes));
  });
}

/** Splits a stream of HTTP/1.1 answers with content-length bodies. */
function parseAnswers(text: string): { status: number; body: string }[] {
  const answers = [];
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const head = rest.slice(0, end);
    const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
    if (Buffer.byteLength(rest.slice(end + 4)) < length) break;
    const body = Buffer.from(rest.slice(end + 4))
      .subarray(0, length)
      .toString('utf8');
    answers.push({ status: Number(head.slice(9, 12)), body });
    rest = Buffer.from(rest.slice(end + 4))
      .subarray(length)
      .toString('utf8');
  }
  return answers;
}

describe('one request per connection at a time', () => {
  it('a POST then a GET in one write: the GET sees the booking, ten runs out of ten, answers in order', async () => {
    const { host } = await start();
    for (let run = 0; run < 10; run += 1) {
      const booking = JSON.stringify({
        start_time: `2026-12-${String(3 + run).padStart(2, '0')}T19:00:00`,
        adults: 2,
      });
      const collection = `${API}/restaurants/1/reservations/`;
      const bytes =
        httpText(
          'POST',
          collection,
          {
            host,
            authorization: demoAuth,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(booking)),
          },
          booking,
        ) +
        httpText('GET', `${collection}?page_size=100`, { host, authorization: demoAuth }) +
        httpText('GET', '/_fake/clock', { host });
      const [created, list, clock] = await pipelined(server!.port, bytes, 3);
      expect(created!.status).toBe(201);
      const id = JSON.parse(created!.body).id;
      expect(list!.status).toBe(200);
      const listed = JSON.parse(list!.body);
      const ids = (Array.isArray(listed) ? listed : listed.results).map(
        (reservation: { id: number }) => reservation.id,
      );
      expect(ids).toContain(id);
      expect(JSON.parse(clock!.body).now).toBe(new Date(START).toISOString());
    }
  });

  it('a slow first request holds the ones behind it on its connection only', async () => {
    const { host, control, send } = await start();
    expect((await control('POST', 'faults', { operation: 'profile.retrieve', latencyMs: 400 })).status).toBe(
      201,
    );
    const bytes =
      httpText('GET', `${API}/profile/`, { host, authorization: demoAuth }) +
      httpText(
        'POST',
        '/_fake/partners',
        { host, 'content-type': 'application/json', 'content-length': '2' },
        '{}',
      );
    const answers = pipelined(server!.port, bytes, 2);
    // Another connection is served meanwhile, before the slow one answers.
    const other = await send('GET', '/_fake/clock');
    expect(other.status).toBe(200);
    expect(server!.fake.describeSeed().partners).toHaveLength(1);
    const [profile, partner] = await answers;
    expect([profile!.status, partner!.status]).toEqual([200, 201]);
    expect(server!.fake.describeSeed().partners).toHaveLength(2);
  });
});

describe('the partner API checks Host (DNS rebinding)', () => {
  it("refuses a host name that is not the server's own, with the credentials of the demo seed", async () => {
    const { send } = await start();
    const webhook = JSON.stringify({ url: 'http://127.0.0.1:6379/' });
    for (const host of [`rebind.example:${server!.port}`, 'rebind.example', `attacker.test:80`]) {
      const answer = await send('POST', `${API}/webhooks/`, { host, authorization: demoAuth }, webhook);
      expect(answer.status, host).toBe(403);
      expect(rawJson(answer).detail).toContain('--allowed-host');
    }
    expect(server!.fake.requests.filter((entry) => entry.operation === 'webhooks.create')).toEqual([]);
    // IP addresses and localhost (any port: a mapped container port) are the server itself.
    for (const host of [
      `127.0.0.1:${server!.port}`,
      `localhost:${server!.port}`,
      'localhost:8080',
      `[::1]:${server!.port}`,
      '10.0.0.5:4010',
    ]) {
      expect((await send('GET', `${API}/profile/`, { host, authorization: demoAuth })).status, host).toBe(
        200,
      );
    }
  });

  it("allowedHosts (--allowed-host) accepts a container's name, a domain with its subdomains, or any name", async () => {
    const { send } = await start({ allowedHosts: ['fake', '.ci.internal'] });
    for (const host of ['fake:4010', 'FAKE', 'ci.internal', 'shard-3.ci.internal:4010'])
      expect((await send('GET', `${API}/profile/`, { host, authorization: demoAuth })).status, host).toBe(
        200,
      );
    expect((await send('GET', `${API}/profile/`, { host: 'notfake', authorization: demoAuth })).status).toBe(
      403,
    );
    await server!.close();
    const any = await start({ allowedHosts: ['*'] });
    expect(
      (await any.send('GET', `${API}/profile/`, { host: 'whatever.example', authorization: demoAuth }))
        .status,
    ).toBe(200);
    // The control API keeps its own guard: any name for the partner API is not any name for control.
    expect((await any.send('POST', '/_fake/reset', { host: 'whatever.example' })).status).toBe(403);
  });
});

describe('smaller points an audit found', () => {
  it('an origin-form target starting with // is a path on this server, never another host', async () => {
    const { send, host } = await start();
    server!.fake.addOtherChannelBooking(1, { start_time: '2026-12-08T19:00:00', adults: 2 });
    await send(
      'POST',
      `${API}/restaurants/1/reservations/`,
      { authorization: demoAuth },
      JSON.stringify({ start_time: '2026-12-09T19:00:00', adults: 2 }),
    );
    await send(
      'POST',
      `${API}/restaurants/1/reservations/`,
      { authorization: demoAuth },
      JSON.stringify({ start_time: '2026-12-10T19:00:00', adults: 2 }),
    );
    const answer = await send('GET', `//evil.example${API}/restaurants/1/reservations/?page_size=1`, {
      authorization: demoAuth,
    });
    expect(answer.status).toBe(200);
    // The next link stays on this server: `//evil.example` is part of its path.
    expect(new URL(rawJson(answer).next).host).toBe(host);
    const sandbox = await send('POST', '//evil.example/_fake/sandboxes', {}, '{}');
    expect(sandbox.text).not.toContain('http://evil.example');
  });

  it('control bodies with a key no route takes are a 400 naming the key', async () => {
    const { control } = await start();
    const fault = await control('POST', 'faults', { operaton: 'reservations.create', status: 503 });
    expect(fault.status).toBe(400);
    expect(rawJson(fault).operaton).toEqual([expect.stringContaining('operation')]);
    expect(server!.fake.faults).toEqual([]);
    const sandbox = await control('POST', 'sandboxes', { sed: 'none' });
    expect(sandbox.status).toBe(400);
    expect(rawJson(sandbox).detail).toContain('"sed"');
    expect((await control('POST', 'restaurants/1/reservations/1/confirm', { force: true })).status).toBe(400);
    // Documented keys, and their snake_case spellings, still pass.
    expect(
      (await control('POST', 'faults', { operation: 'reservations.create', status: 503, latency_ms: 0 }))
        .status,
    ).toBe(201);
    expect((await control('POST', 'rate-limit', { requests_per_second: 5 })).status).toBe(200);
  });

  it('the clock refuses days its month does not have and stays within the year 9999', async () => {
    const { control } = await start();
    for (const now of [
      '2030-02-30T00:00:00Z',
      '2031-02-29T12:00:00Z',
      '2030-04-31',
      '2030-13-01T00:00:00Z',
    ]) {
      const answer = await control('POST', 'clock/set', { now });
      expect(answer.status, now).toBe(400);
      expect(rawJson(answer).now).toEqual([expect.any(String)]);
    }
    expect((await control('POST', 'clock/set', { now: '2032-02-29T12:00:00Z' })).status).toBe(200);
    const running = createFakeService({ clock: { startAt: '9999-12-31T23:59:59.990Z' } });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(new Date(running.clock.now()).toISOString()).toBe('9999-12-31T23:59:59.999Z');
    running.dispose();
  });

  it('a tiny rate limit answers 429 with a whole-number Retry-After of at most a day', async () => {
    const { send, control } = await start();
    expect((await control('POST', 'rate-limit', { requestsPerSecond: 1e-300 })).status).toBe(200);
    expect((await send('GET', `${API}/profile/`, { authorization: demoAuth })).status).toBe(200);
    const refused = await send('GET', `${API}/profile/`, { authorization: demoAuth });
    expect(refused.status).toBe(429);
    expect(/retry-after: (.*)\r\n/i.exec(refused.text)?.[1]).toBe('86400');
  });

  it('no control answer hands a partner token to a viewer not on loopback', async () => {
    const fake = createFakeService({ seed: 'demo' });
    const remote = { controlAllowed: true, remoteViewer: true };
    const post = (path: string, body: unknown) =>
      fake.handle(
        new Request(`http://fake.test/_fake/${path}`, { method: 'POST', body: JSON.stringify(body) }),
        remote,
      );
    for (const [path, body] of [
      ['reset', {}],
      ['sandboxes', {}],
      ['partners', {}],
    ] as const) {
      const text = await (await post(path, body)).text();
      expect(text, path).not.toContain(DEMO_PARTNER.apiToken);
      expect(text, path).toContain('"apiToken":null');
    }
    // A token the caller chose itself is shown back to it.
    const chosen = await (await post('partners', { apiToken: 'chosen-by-the-suite' })).json();
    expect(chosen.apiToken).toBe('chosen-by-the-suite');
    const local = await (
      await fake.handle(new Request('http://fake.test/_fake/reset', { method: 'POST' }))
    ).json();
    expect(local.partners[0].apiToken).toBe(DEMO_PARTNER.apiToken);
    fake.dispose();
  });
});

describe('GET /_fake/state for a page left open', () => {
  it('answers 304 while only reads happen, a new tag after any change, and caps the reservations it lists', async () => {
    const fake = createFakeService({
      seed: 'demo',
      rateLimit: false,
      clock: { frozen: true, startAt: START },
    });
    const state = (headers: Record<string, string> = {}, query = '') =>
      fake.handle(new Request(`http://fake.test/_fake/state${query}`, { headers }));
    for (let day = 0; day < 60; day += 1) {
      for (const time of [
        '12:00',
        '12:15',
        '12:30',
        '12:45',
        '13:00',
        '13:15',
        '13:30',
        '13:45',
        '18:00',
        '18:15',
      ]) {
        fake.addOtherChannelBooking(1 + (day % 3), {
          start_time: `${new Date(Date.parse(START) + (day + 1) * 86_400_000).toISOString().slice(0, 10)}T${time}:00`,
          adults: 1,
        });
      }
    }
    const first = await state();
    const tag = first.headers.get('etag')!;
    const body = await first.json();
    expect(body.reservationsTotal).toBe(600);
    expect(body.reservations).toHaveLength(500);
    expect((await (await state({}, '?reservations=10')).json()).reservations).toHaveLength(10);
    expect((await state({}, '?reservations=999999')).status).toBe(400);
    // Partner reads change nothing a viewer sees.
    await fake.handle(
      new Request(`http://fake.test${API}/restaurants/`, { headers: { authorization: demoAuth } }),
    );
    expect((await state({ 'if-none-match': tag })).status).toBe(304);
    // Any change, through HTTP or the JavaScript API, gives a new tag.
    fake.injectFault({ operation: 'restaurants.list', status: 503 });
    const afterFault = await state({ 'if-none-match': tag });
    expect(afterFault.status).toBe(200);
    const faultTag = afterFault.headers.get('etag')!;
    // The fault hitting a GET changes the pending list, so the tag moves again.
    expect(
      (
        await fake.handle(
          new Request(`http://fake.test${API}/restaurants/`, { headers: { authorization: demoAuth } }),
        )
      ).status,
    ).toBe(503);
    expect((await state({ 'if-none-match': faultTag })).status).toBe(200);
    fake.dispose();
  });
});
