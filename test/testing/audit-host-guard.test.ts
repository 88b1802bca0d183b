/**
 * The audit's DNS-rebinding findings: every path that reaches the partner API checks `Host`,
 * whatever prefix it carries (`/_fake/...`, `/sandboxes/<id>/_fake/...`), so a page that rebinds
 * its own name to this machine can neither read data with the public demo credentials nor aim a
 * webhook at a local service and read its answer back; and the simulator page opened under an
 * allowed host name may use its own buttons.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { API } from './helpers.js';
import { rawJson } from './raw-http.js';
import { demoAuth, startAudit, type AuditServer } from './audit-support.js';

let audit: AuditServer | undefined;
afterEach(async () => {
  await audit?.server.close();
  audit = undefined;
});

describe('the partner API checks Host under every prefix that reaches it', () => {
  it('refuses a foreign Host on /_fake/api/v1/partnership/... and /sandboxes/<id>/_fake/api/...', async () => {
    audit = await startAudit();
    const sandbox = await audit.control('POST', 'sandboxes', { rateLimit: false });
    expect(sandbox.status).toBe(201);
    const prefixes = ['/_fake', `/sandboxes/${sandbox.body.id}/_fake`, `/sandboxes/${sandbox.body.id}`, ''];
    for (const prefix of prefixes) {
      const target = `${prefix}${API}/restaurants/`;
      const foreign = await audit.send('GET', target, { host: 'attacker.example', authorization: demoAuth });
      expect(foreign.status, target).toBe(403);
      expect(rawJson(foreign).detail).toContain('--allowed-host');
      expect(foreign.text).not.toContain('Le Petit Sablon');
      // The server's own name still reaches the same route.
      const own = await audit.send('GET', target, { authorization: demoAuth });
      expect(own.status, target).toBe(200);
    }
  });

  it('a rebinding page cannot create a webhook at a loopback service under the prefix, nor read last_response', async () => {
    audit = await startAudit();
    const sandbox = await audit.control('POST', 'sandboxes', { rateLimit: false });
    for (const prefix of ['/_fake', `/sandboxes/${sandbox.body.id}/_fake`]) {
      const created = await audit.send(
        'POST',
        `${prefix}${API}/webhooks/`,
        { host: 'attacker.example:80', authorization: demoAuth },
        JSON.stringify({ url: `http://127.0.0.1:${audit.server.port}/_fake/state` }),
      );
      expect(created.status, prefix).toBe(403);
      const listed = await audit.send('GET', `${prefix}${API}/webhooks/`, {
        host: 'attacker.example',
        authorization: demoAuth,
      });
      expect(listed.status, prefix).toBe(403);
      expect(listed.text).not.toContain('last_response');
    }
    // Nothing was created in either world.
    expect((await audit.control('GET', 'state')).body.webhooks).toEqual([]);
    expect(
      (await audit.control('GET', 'state', undefined, `/sandboxes/${sandbox.body.id}`)).body.webhooks,
    ).toEqual([]);
  });
});

describe('the simulator page under an --allowed-host name', () => {
  it("answers the page's own same-origin calls, and still refuses other origins", async () => {
    audit = await startAudit({ allowedHosts: ['fake'] });
    const host = `fake:${audit.server.port}`;
    const page = await audit.send('GET', '/_fake/ui', { host });
    expect(page.status).toBe(200);
    // What the page's button sends: a same-origin POST, Origin naming the page's own host.
    const own = await audit.send(
      'POST',
      '/_fake/clock/advance',
      { host, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' },
      JSON.stringify({ duration: 'PT5M' }),
    );
    expect(own.status).toBe(200);
    expect(rawJson(own).now).toBe('2026-12-01T08:05:00.000Z');
    for (const origin of [`http://evil.example:${audit.server.port}`, 'http://fake:1', 'https://fake']) {
      const foreign = await audit.send('POST', '/_fake/reset', { host, origin });
      expect(foreign.status, origin).toBe(403);
    }
  });
});
