/**
 * Doctor against servers that are not the service, or misbehave: a name that does not resolve,
 * a port nobody listens on, TLS spoken to plain HTTP, a proxy's login page, a 407, a redirect, a
 * 401, a failing gateway, broken JSON, a dropped connection, and a server echoing the
 * credentials. Each ends in exit 1 with a clear line saying what to check, never a stack trace,
 * and never the token.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/cli/doctor.js';
import {
  API_TOKEN,
  BASIC_HEADER,
  HOSTILE_API,
  PARTNER_ID,
  startHostileServer,
  type HostileHandler,
  type HostileServer,
} from '../support/hostile-server.js';
import { dir } from './support.js';
import { createManualClock } from '../support/manual-clock.js';

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer(createManualClock({ autoAdvance: true }));
});
afterAll(() => server.close());

async function doctor(baseUrl: string, token = API_TOKEN, extra: object = {}) {
  const where = dir();
  const lines: string[] = [];
  const result = await runDoctor({
    baseUrl,
    partnerId: PARTNER_ID,
    token,
    out: join(where, 'partner-dialect.json'),
    record: join(where, 'record.json'),
    requestsPerSecond: 100,
    print: (text) => lines.push(text),
    ...extra,
  });
  const output = lines.join('\n');
  const written = [output, readFileSync(join(where, 'record.json'), 'utf8')].join('\n');
  for (const secret of [API_TOKEN, API_TOKEN.trim(), BASIC_HEADER.slice(6), `${PARTNER_ID}:${API_TOKEN}`])
    expect(written).not.toContain(secret);
  expect(output).not.toMatch(/\n\s+at .+:\d+:\d+/);
  return { result, output };
}

const cases: [string, HostileHandler, RegExp][] = [
  [
    "a proxy's login page",
    (_, tools) => {
      tools.response.writeHead(200, { 'content-type': 'text/html' });
      tools.response.end('<html><body>Corporate proxy login</body></html>');
    },
    /FAIL {2}reach: something other than the service answered at .*text\/html, "<html><body>Corporate proxy login/,
  ],
  // Node's fetch turns a 407 into a network error without the status: the line points at the proxy.
  [
    'a proxy asking for its credentials',
    (_, tools) => tools.json(407, { detail: 'proxy' }),
    /FAIL {2}reach: the connection to 127\.0\.0\.1:\d+ failed\n {6}-> check the URL, the network and any proxy/,
  ],
  [
    'a redirect to a login page',
    (_, tools) => {
      tools.response.writeHead(302, { location: 'https://login.example.com/sso' });
      tools.response.end();
    },
    /FAIL {2}reach: .* redirects the API \(302 to https:\/\/login\.example\.com\/sso\)/,
  ],
  [
    'a failing gateway',
    (_, tools) => tools.json(502, { detail: 'Bad gateway' }),
    /FAIL {2}reach: .* answered 502 \(the service or a gateway in front of it failed\)/,
  ],
  [
    'broken JSON',
    (_, tools) => {
      tools.response.writeHead(200, { 'content-type': 'application/json' });
      tools.response.end('{"uuid": ');
    },
    /FAIL {2}reach: something other than the service answered .*application\/json, "\{"uuid": "/,
  ],
  [
    'a dropped connection',
    (_, tools) => tools.reset(),
    /FAIL {2}reach: the connection to 127\.0\.0\.1:\d+ failed/,
  ],
  [
    'no partner API there',
    (_, tools) => tools.json(404, { detail: 'Not found.' }),
    /FAIL {2}reach: .* has no partner API at .*\(404\)/,
  ],
];

describe('doctor against hostile servers: a clear line, exit 1, no stack, no token', () => {
  it.each(cases)('%s', async (_, handler, line) => {
    server.setHandler(handler);
    const { result, output } = await doctor(server.url);
    expect(result.exitCode).toBe(1);
    expect(output).toMatch(line);
    expect(output).toMatch(/-> /);
    expect(output).toContain('partner-dialect.json not written: the service was not reached');
  });

  it('a 401: the credentials fail, and whitespace around the token is named as the likely cause', async () => {
    server.setHandler((_, tools) => tools.json(401, { detail: 'Invalid username/password.' }));
    const { result, output } = await doctor(server.url, ` ${API_TOKEN}\n`);
    expect(result.exitCode).toBe(1);
    expect(output).toMatch(/WARN {2}config: PARTNER_TOKEN has leading or trailing whitespace/);
    expect(output).toMatch(/pass {2}reach: reached/);
    expect(output).toMatch(
      /FAIL {2}credentials: the service refused PARTNER_ID and PARTNER_TOKEN \(401\) \(the token has whitespace/,
    );
  });

  it('a malformed partner id and a base URL ending in the API prefix are reported whatever the service answers', async () => {
    server.setHandler((_, tools) => tools.json(401, { detail: 'no' }));
    const lines: string[] = [];
    const result = await runDoctor({
      baseUrl: `${server.url}${HOSTILE_API}/`,
      partnerId: 'not-a-uuid',
      token: API_TOKEN,
      out: false,
      requestsPerSecond: 100,
      print: (text) => lines.push(text),
    });
    expect(result.exitCode).toBe(1);
    expect(lines.join('\n')).toMatch(/FAIL {2}config: PARTNER_ID "not-a-uuid" is not a UUID/);
    expect(lines.join('\n')).toMatch(/WARN {2}config: PARTNER_BASE_URL ends in \/api\/v1\/partnership/);
  });

  it('a server echoing the credentials and webhook tokens: nothing of them in the lines, the file, the record or --json', async () => {
    const webhookToken = 'whsec_EchoedWebhookToken_123456';
    server.setHandler((request, tools) => {
      const echo = `${String(request.headers.authorization)} ${API_TOKEN}`;
      if (request.path.endsWith('/profile/'))
        return tools.json(200, { uuid: PARTNER_ID, name: echo, description: null }, { 'x-echo': echo });
      if (request.path.endsWith('/restaurants/')) return tools.json(200, []);
      if (request.path.endsWith('/webhooks/'))
        return tools.json(200, [
          {
            id: 1,
            url: `https://hooks.example.com/in?token=${webhookToken}`,
            name: echo,
            is_enabled: true,
            last_response_status_code: 500,
            auth_token: webhookToken,
          },
        ]);
      tools.json(404, { detail: echo });
    });
    const lines: string[] = [];
    const where = dir();
    const result = await runDoctor({
      baseUrl: server.url,
      partnerId: PARTNER_ID,
      token: API_TOKEN,
      out: join(where, 'd.json'),
      record: join(where, 'r.json'),
      json: true,
      requestsPerSecond: 100,
      print: (text) => lines.push(text),
    });
    const everything = [
      lines.join('\n'),
      readFileSync(join(where, 'd.json'), 'utf8'),
      readFileSync(join(where, 'r.json'), 'utf8'),
    ].join('\n');
    expect(JSON.parse(lines.join('\n'))).toMatchObject({ ok: true, exitCode: 0, checks: expect.any(Array) });
    expect(
      result.checks.some(
        (line) => line.verdict === 'warn' && /last delivery answered 500/.test(line.message),
      ),
    ).toBe(true);
    for (const secret of [API_TOKEN, BASIC_HEADER.slice(6), webhookToken])
      expect(everything).not.toContain(secret);
    expect(everything).toContain('[REDACTED]');
  });

  it('a name that does not resolve, a port nobody listens on, TLS spoken to plain HTTP', async () => {
    const dns = await doctor('http://doctor-nowhere.invalid');
    expect(dns.output).toMatch(
      /FAIL {2}reach: (DNS: doctor-nowhere\.invalid does not resolve|the connection to doctor-nowhere\.invalid failed)/,
    );
    const closed = await startHostileServer(createManualClock({ autoAdvance: true }));
    const port = new URL(closed.url).port;
    await closed.close();
    const refused = await doctor(`http://127.0.0.1:${port}`);
    expect(refused.output).toMatch(/FAIL {2}reach: nothing listens at 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
    server.setHandler((_, tools) => tools.json(200, {}));
    const tls = await doctor(server.url.replace('http:', 'https:'));
    expect(tls.output).toMatch(
      /FAIL {2}reach: (127\.0\.0\.1:\d+ does not speak the expected protocol|TLS: |the connection to 127\.0\.0\.1:\d+ failed)/,
    );
    for (const run of [dns, refused, tls]) expect(run.result.exitCode).toBe(1);
  });
});
