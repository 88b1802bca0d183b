import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeService } from 'restaurant-partner-sdk/testing';
import { startFakeServer, type RunningFakeServer } from 'restaurant-partner-sdk/testing/node';
import { API, START } from './helpers.js';
import { basicAuthorization } from '../support/basic-auth.js';

let server: RunningFakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A raw request with a chunked body of `size` bytes (no content-length), as a streaming client sends it. */
function postChunked(
  url: string,
  headers: Record<string, string>,
  size: number,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'transfer-encoding': 'chunked', 'content-type': 'application/json' },
      },
      (incoming) => {
        let body = '';
        incoming.on('data', (chunk) => (body += chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode!, body }));
      },
    );
    outgoing.on('error', reject);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        sent += chunk.byteLength;
        if (!outgoing.write(chunk)) return void outgoing.once('drain', pump);
      }
      outgoing.end();
    };
    pump();
  });
}

describe('startFakeServer (node:http adapter)', () => {
  it('binds to loopback on a free port and serves the same core', async () => {
    server = await startFakeServer({ seed: 'demo', rateLimit: false });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const partner = server.fake.describeSeed().partners[0]!;
    const answer = await fetch(`${server.url}${API}/restaurants/`, {
      headers: { authorization: basicAuthorization(partner.partnerId, partner.apiToken) },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(await answer.json()).toHaveLength(3);
  });

  it('refuses a streamed body over the limit with 413 without buffering it all', async () => {
    server = await startFakeServer({ rateLimit: false, clock: { frozen: true, startAt: START } });
    const partner = server.fake.addPartner();
    const restaurant = server.fake.addRestaurant({ partnerIds: [partner.partnerId] });
    const answer = await postChunked(
      `${server.url}${API}/restaurants/${restaurant.id}/reservations/`,
      { authorization: basicAuthorization(partner.partnerId, partner.apiToken) },
      3 * 1024 * 1024,
    );
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).non_field_errors).toEqual([expect.any(String)]);
  });

  it('serves the control API to loopback callers only', async () => {
    const fake = createFakeService();
    const refused = await fake.handle(
      new Request('http://fake/_fake/partners', { method: 'POST', body: '{}' }),
      { controlAllowed: false },
    );
    expect(refused.status).toBe(403);
    expect(fake.describeSeed().partners).toEqual([]);
    server = await startFakeServer({ fake });
    expect((await fetch(`${server.url}/_fake/partners`, { method: 'POST', body: '{}' })).status).toBe(201);
  });

  it("a body stream that breaks off is the caller's fault: 400 JSON, one log line without a stack", async () => {
    const lines: string[] = [];
    const fake = createFakeService({ rateLimit: false, logger: (line) => lines.push(line) });
    const partner = fake.addPartner();
    const broken = new ReadableStream({
      pull(controller) {
        controller.error(new Error('the body stream broke'));
      },
    });
    const answer = await fake.handle(
      new Request(`http://fake${API}/webhooks/`, {
        method: 'POST',
        headers: { authorization: basicAuthorization(partner.partnerId, partner.apiToken) },
        body: broken,
        duplex: 'half',
      } as RequestInit),
    );
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({
      detail: 'Malformed request body.',
      non_field_errors: ['The request body broke off before its end.'],
    });
    expect(lines).toEqual([expect.stringMatching(/^POST \/api\/v1\/partnership\/webhooks\/ -> 400$/)]);
    // The fake still serves the next request.
    expect(
      (
        await fake.handle(
          new Request(`http://fake${API}/webhooks/`, {
            headers: { authorization: basicAuthorization(partner.partnerId, partner.apiToken) },
          }),
        )
      ).status,
    ).toBe(200);
  });

  it('close() stops the server even with a keep-alive connection open', async () => {
    server = await startFakeServer({ rateLimit: false });
    const url = server.url;
    await fetch(`${url}/_fake/clock`);
    await server.close();
    server = undefined;
    await expect(fetch(`${url}/_fake/clock`)).rejects.toThrow(TypeError);
  });
});

describe('who counts as a caller on this machine', () => {
  it('is loopback only: 127.0.0.0/8, ::1 and 127.x mapped into IPv6, never a private or public address', async () => {
    const { isLoopbackAddress } = await import('../../src/testing/adapters/node-server.js');
    for (const local of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'])
      expect(isLoopbackAddress(local), local).toBe(true);
    for (const remote of [
      '10.0.0.5',
      '192.168.1.2',
      '172.16.0.1',
      '8.8.8.8',
      '::ffff:10.0.0.5',
      'fe80::1',
      '::2',
      '',
      undefined,
    ]) {
      expect(isLoopbackAddress(remote), String(remote)).toBe(false);
    }
  });
});
