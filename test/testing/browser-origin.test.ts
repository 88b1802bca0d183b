/**
 * What a real browser can do to the standalone fake's control API (it has no credentials): a page
 * of another site posting a form or a no-cors fetch to it, and a DNS-rebinding page reaching it
 * under the page's own host name. Headless Chromium (Debian's `chromium`, via playwright-core).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type RunningFakeServer } from 'restaurant-partner-sdk/testing/node';
// @ts-expect-error: a plain .mjs script without types
import { ensureSystemPackages, findProgram } from '../../scripts/ensure-system-packages.mjs';

let fake: RunningFakeServer;
let attacker: Server;
let browser: Browser;
let attackerPort: number;

beforeAll(async () => {
  const problem = (ensureSystemPackages as (packages: string[]) => string | undefined)(['chromium']);
  if (problem) throw new Error(problem);
  fake = await startFakeServer({ seed: 'demo', rateLimit: false });
  // The other site: pages that attack the fake's control API as a visited web page would.
  attacker = createServer((request, response) => {
    const target = `http://127.0.0.1:${fake.port}`;
    const pages: Record<string, string> = {
      '/form': `<form id="f" method="POST" action="${target}/_fake/partners" enctype="text/plain"><input name='{"name": "evil", "x": "' value='"}'></form><script>document.getElementById('f').submit()</script>`,
      '/fetch': `<script>fetch('${target}/_fake/reset', { method: 'POST', mode: 'no-cors', body: '{}' }).then(() => (document.title = 'sent'), () => (document.title = 'failed'))</script>`,
    };
    response.writeHead(200, { 'content-type': 'text/html' }).end(pages[request.url ?? ''] ?? 'not here');
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerPort = (attacker.address() as AddressInfo).port;
  browser = await chromium.launch({
    executablePath: (findProgram as (name: string) => string)('chromium'),
    headless: true,
    // evil.test and rebind.test resolve to this machine, as an attacker's DNS makes them.
    args: ['--host-resolver-rules=MAP evil.test 127.0.0.1, MAP rebind.test 127.0.0.1'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => attacker?.close(resolve));
  await fake?.close();
});

const partnerNames = () => fake.fake.describeSeed().partners.map((partner) => partner.name);
const refusals = () => fake.fake.requests.filter((entry) => entry.face === 'control' && entry.status === 403);

describe('the control API against a real browser', () => {
  it('refuses a form POST and a no-cors fetch from a page of another site', async () => {
    fake.fake.addPartner({ name: 'Kept' });
    const page = await browser.newPage();
    for (const site of [`http://evil.test:${attackerPort}`, `http://127.0.0.1:${attackerPort}`]) {
      const before = refusals().length;
      await page.goto(`${site}/form`);
      await page.waitForLoadState('load');
      await expect.poll(() => refusals().length, { timeout: 10_000 }).toBe(before + 1);
      await page.goto(`${site}/fetch`);
      await expect.poll(() => page.title(), { timeout: 10_000 }).not.toBe('');
      await expect.poll(() => refusals().length, { timeout: 10_000 }).toBe(before + 2);
    }
    // Neither the form's partner was added nor the state reset.
    expect(partnerNames()).toEqual(['Demo Booking Partner', 'Kept']);
    await page.close();
  });

  it('refuses a DNS-rebinding page: same origin to the browser, a foreign Host to the fake', async () => {
    const page = await browser.newPage();
    const answer = await page.goto(`http://rebind.test:${fake.port}/_fake/state`);
    expect(answer?.status()).toBe(403);
    const status = await page.evaluate(
      async () => (await fetch('/_fake/reset', { method: 'POST', body: '{}' })).status,
    );
    expect(status).toBe(403);
    expect(partnerNames()).toContain('Kept');
    await page.close();
  });

  it('serves its own pages (same origin, its own host name), as the simulator page is served', async () => {
    const page = await browser.newPage();
    expect((await page.goto(`http://127.0.0.1:${fake.port}/_fake/state`))?.status()).toBe(200);
    const created = await page.evaluate(
      async () =>
        (
          await fetch('/_fake/partners', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"name": "From the page"}',
          })
        ).status,
    );
    expect(created).toBe(201);
    expect(partnerNames()).toContain('From the page');
    await page.close();
  });
});
