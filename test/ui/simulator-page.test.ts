/**
 * The simulator page (`GET /_fake/ui`) in headless Chromium against a running standalone fake:
 * a PartnerClient books over real HTTP, the page shows the booking without a reload, its
 * accessible "Confirm" button confirms it, a real webhook receiver gets RESERVATION_CONFIRMED, and
 * the page's delivery log shows the receiver's answer. Then every other action of the page, from
 * the keyboard where it matters, checked through the control API it drives.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PartnerClient } from 'restaurant-partner-sdk';
import { DEMO_PARTNER } from 'restaurant-partner-sdk/testing';
import { startFakeServer, type RunningFakeServer } from 'restaurant-partner-sdk/testing/node';
import { createWebhookReceiver, type WebhookEvent } from 'restaurant-partner-sdk/webhooks';
import { launchChromium } from './browser.js';
import { basicAuthorization } from '../support/basic-auth.js';
import { isSimulatorPath, serveSimulatorPage } from '../../src/testing/ui/serve.js';

const ASYNC_RESTAURANT = 2; // Bistro des Vosges in the demo seed: Europe/Paris, confirmed by hand.
const SYNC_RESTAURANT = 1; // Le Petit Sablon: Europe/Brussels, confirmed when booked.

let browser: Browser;
let receiverServer: Server;
let receiverUrl: string;
const acceptedTokens: string[] = [];
const received: WebhookEvent[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  const receiver = createWebhookReceiver({ tokens: async () => [...acceptedTokens] })
    .on('RESERVATION_CONFIRMED', (event) => void received.push(event))
    .on('RESERVATION_MODIFIED', (event) => void received.push(event))
    .on('RESERVATION_CANCELLED', (event) => void received.push(event));
  receiverServer = createServer(receiver.nodeHandler()).listen(0, '127.0.0.1');
  await once(receiverServer, 'listening');
  receiverUrl = `http://127.0.0.1:${(receiverServer.address() as AddressInfo).port}/webhooks/reservations`;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  receiverServer?.closeAllConnections();
  await new Promise((resolve) => receiverServer?.close(resolve));
});

let server: RunningFakeServer;
let context: BrowserContext;
let page: Page;
const pageProblems: string[] = [];

beforeEach(async () => {
  server = await startFakeServer({ seed: 'demo', port: 0 });
  acceptedTokens.length = 0;
  received.length = 0;
  pageProblems.length = 0;
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  // A CSP violation or a script error shows up as one of these.
  page.on('pageerror', (error) => pageProblems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // A refusal the test provokes (409) is logged by Chromium too; anything else is a problem.
    if (message.type() === 'error' && !/status of 4\d\d/.test(message.text()))
      pageProblems.push(`console: ${message.text()}`);
  });
  await page.goto(`${server.url}/_fake/ui`);
  await page.locator('body[data-ready]').waitFor();
});

afterEach(async () => {
  await context?.close();
  await server?.close();
});

const control = async (method: string, route: string, body?: unknown) => {
  const response = await fetch(`${server.url}/_fake/${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return response.status === 204 ? null : await response.json();
};

/** Every reservation of every channel, as the control API shows them. */
const allReservations = async () => (await control('GET', 'state')).reservations;

/** A reservation's entry on the page: the list item headed `#<id>`. */
const entryOf = (id: number): Locator =>
  page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: new RegExp(`^#${id}\\b`) }) });

/** 19:00 local, `days` ahead of the fake's clock, in the restaurant's zone. */
const evening = (days: number, zone: string) => ({
  date: DateTime.fromMillis(server.fake.clock.now(), { zone }).plus({ days }).toISODate()!,
  time: '19:00',
});

describe('the simulator page in headless Chromium', { timeout: 60_000 }, () => {
  it('shows a booking made through the API without a reload; its Confirm button confirms it, the receiver gets RESERVATION_CONFIRMED, and the delivery log shows the answer', async () => {
    const client = new PartnerClient({
      baseUrl: server.url,
      partnerId: DEMO_PARTNER.partnerId,
      apiToken: DEMO_PARTNER.apiToken,
    });
    const webhook = await client.webhooks.create({ url: receiverUrl, name: 'simulator test' });
    acceptedTokens.push(webhook.auth_token!);
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

    const booking = await client.reservations.create(ASYNC_RESTAURANT, {
      start_time: evening(2, 'Europe/Paris'),
      adults: 2,
      first_name: 'Ada',
      last_name: 'Lovelace',
    });
    expect(booking.confirmed).toBe(false);

    const entry = entryOf(booking.id);
    await entry.getByText('created', { exact: true }).waitFor();
    await expect(entry.textContent()).resolves.toContain('Ada Lovelace');
    await expect(entry.textContent()).resolves.toContain('19:00 (UTC+01:00)');
    await expect(entry.textContent()).resolves.toContain('partner Demo Booking Partner');

    // The id appears as text once on the whole page: in its entry's heading.
    expect(await page.getByText(`#${booking.id}`).count()).toBe(1);
    await entry.getByRole('button', { name: 'Confirm', exact: true }).click();

    await expect
      .poll(
        () =>
          received.map(
            (event) => `${event.type} ${event.type === 'RESERVATION_CONFIRMED' ? event.reservation.id : ''}`,
          ),
        { timeout: 10_000 },
      )
      .toEqual([`RESERVATION_CONFIRMED ${booking.id}`]);
    await entry.getByText('confirmed', { exact: true }).waitFor();
    expect(await entry.getByRole('button', { name: 'Confirm', exact: true }).count()).toBe(0);
    // Focus moved from the vanished Confirm to the entry's next action, not to the top of the page.
    await expect
      .poll(() =>
        entry
          .getByRole('button', { name: 'Cancel as restaurant' })
          .evaluate((element) => element === document.activeElement),
      )
      .toBe(true);
    expect((await client.reservations.retrieve(ASYNC_RESTAURANT, booking.id)).confirmed).toBe(true);

    const deliveries = page.getByRole('list', { name: 'Delivery attempts, newest first' });
    const delivery = deliveries.getByRole('listitem').filter({ hasText: 'RESERVATION_CONFIRMED' });
    await delivery.filter({ hasText: 'status 200' }).waitFor();
    await expect(delivery.textContent()).resolves.toContain(receiverUrl);
    await expect(delivery.textContent()).resolves.toContain(
      `Reservation${booking.id} at restaurant ${ASYNC_RESTAURANT}`,
    );
    await delivery.getByText('Body sent').click();
    await expect(delivery.locator('pre').textContent()).resolves.toContain(
      '"event": "RESERVATION_CONFIRMED"',
    );

    // The registered webhook is listed, with its partner, events, state and last answer.
    const webhooks = page.getByRole('list', { name: 'Registered webhooks' });
    const listed = webhooks.getByRole('listitem').filter({ hasText: receiverUrl });
    await listed.filter({ hasText: 'Demo Booking Partner' }).filter({ hasText: 'enabled' }).waitFor();
    await expect(listed.textContent()).resolves.toMatch(/RESERVATION_CONFIRMED.*Last answer200 at/);

    // A cancellation through the partner API says so too.
    await client.reservations.cancel(ASYNC_RESTAURANT, booking.id);
    await entry.getByText('cancelled by the partner', { exact: true }).waitFor();

    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(
      true,
    );
    expect(pageProblems).toEqual([]);
  });

  it('books from another channel, modifies and cancels from the keyboard, moves the clock, adds and removes a fault, sets the rate limit', async () => {
    // A booking from another channel, through the restaurant's form.
    const restaurant = page.getByRole('region', { name: /Le Petit Sablon/ });
    await restaurant.getByRole('button', { name: 'New booking from another channel' }).click();
    const form = restaurant.getByRole('form', { name: /from another channel/ });
    await form.getByLabel('Channel').fill('phone');
    const start = DateTime.fromMillis(server.fake.clock.now(), { zone: 'Europe/Brussels' })
      .plus({ days: 3 })
      .toISODate();
    await form.getByLabel('Start').fill(`${start}T12:30`);
    await form.getByLabel('Adults').fill('3');
    await form.getByLabel('First name').fill('Grace');
    await form.getByLabel('Last name').fill('Hopper');
    await form.getByRole('button', { name: 'Book' }).click();
    await page.getByRole('status').filter({ hasText: 'Booked at Le Petit Sablon from phone.' }).waitFor();
    const [other] = await allReservations();
    expect(other).toMatchObject({
      restaurantId: SYNC_RESTAURANT,
      channel: 'phone',
      adults: 3,
      first_name: 'Grace',
      confirmed: true,
      start_time: expect.stringContaining(`${start}T12:30:00`),
    });
    const entry = entryOf(other.id);
    await entry.getByText('another channel: phone').waitFor();

    // Modify as the customer, from the keyboard only.
    await entry.getByRole('button', { name: 'Modify', exact: true }).focus();
    await page.keyboard.press('Enter');
    const startField = entry.getByLabel('Start');
    await expect.poll(() => startField.evaluate((element) => element === document.activeElement)).toBe(true);
    await startField.fill(`${start}T13:00`);
    await entry.getByLabel('Adults').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('4');
    await entry.getByRole('button', { name: 'Save as customer' }).focus();
    await page.keyboard.press('Enter');
    await page
      .getByRole('status')
      .filter({ hasText: `Reservation ${other.id} modified by the customer.` })
      .waitFor();
    // The form closes and focus returns to its Modify button.
    await expect
      .poll(() =>
        entry
          .getByRole('button', { name: 'Modify', exact: true })
          .evaluate((element) => element === document.activeElement),
      )
      .toBe(true);
    expect((await allReservations())[0]).toMatchObject({
      adults: 4,
      start_time: expect.stringContaining(`${start}T13:00:00`),
    });

    // Cancel as the customer, from the keyboard.
    await entry.getByRole('button', { name: 'Cancel as customer' }).focus();
    await page.keyboard.press('Enter');
    // The page says who cancelled.
    await entry.getByText('cancelled by the customer', { exact: true }).waitFor();
    // Its buttons are gone; the keyboard user stays on the entry, not thrown back to the top.
    await expect.poll(() => entry.evaluate((element) => element === document.activeElement)).toBe(true);
    expect((await allReservations())[0].cancelled).toBe(true);

    // A refusal of the fake is shown next to the action: no capacity for 60 covers.
    const refused = await control('POST', `restaurants/${SYNC_RESTAURANT}/reservations`, {
      start_time: `${start}T19:00:00`,
      adults: 2,
    });
    const refusedEntry = entryOf(refused.id);
    await refusedEntry.getByRole('button', { name: 'Modify', exact: true }).click();
    await refusedEntry.getByLabel('Adults').fill('50');
    await refusedEntry.getByLabel('Children').fill('50');
    await refusedEntry.getByRole('button', { name: 'Save as restaurant' }).click();
    await expect.poll(() => refusedEntry.getByRole('alert').textContent()).toMatch(/fully booked/i);

    // The clock.
    const before = Date.parse((await control('GET', 'clock')).now);
    await page.getByRole('button', { name: '+1 day' }).click();
    await page.getByRole('status').filter({ hasText: 'Clock advanced by 1 day.' }).waitFor();
    expect(Date.parse((await control('GET', 'clock')).now) - before).toBeGreaterThanOrEqual(86_400_000);
    await page.getByLabel('Duration').fill('PT2H');
    await page.getByRole('button', { name: 'Advance', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Clock advanced by PT2H.' }).waitFor();
    expect(Date.parse((await control('GET', 'clock')).now) - before).toBeGreaterThanOrEqual(
      86_400_000 + 7_200_000,
    );

    // Faults: add one, see it listed, remove it.
    const faultForm = page.getByRole('form', { name: 'Add a fault' });
    await faultForm.getByLabel('Operation').selectOption('reservations.create');
    await faultForm.getByLabel('Status').fill('503');
    await faultForm.getByLabel('Times').fill('2');
    await faultForm.getByLabel('Phase').selectOption('after');
    await faultForm.getByRole('button', { name: 'Add fault' }).click();
    const faults = page.getByRole('list', { name: 'Pending faults' });
    await faults.getByText('reservations.create: answer 503, after it takes effect, 2 more times').waitFor();
    const [fault] = await control('GET', 'faults');
    expect(fault).toMatchObject({
      operation: 'reservations.create',
      status: 503,
      remaining: 2,
      phase: 'after',
    });
    await faults.getByRole('button', { name: `Remove fault ${fault.id}` }).click();
    await page.getByText('No faults pending: every request is served.').waitFor();
    expect(await control('GET', 'faults')).toEqual([]);

    // The rate limit.
    await page.getByLabel('Requests per second').fill('5');
    await page.getByRole('button', { name: 'Set rate limit' }).click();
    await page.getByText('5 requests per second per partner', { exact: true }).waitFor();
    expect(await control('GET', 'rate-limit')).toEqual({ requestsPerSecond: 5 });
    await page.getByRole('button', { name: 'Turn rate limit off' }).click();
    await page.getByText('off', { exact: true }).waitFor();
    expect(await control('GET', 'rate-limit')).toEqual({ requestsPerSecond: false });

    expect(pageProblems).toEqual([]);
  });

  it('shows partners with their credentials and a curl line that works, restaurants with zone, mode and hours', async () => {
    const partner = page
      .getByRole('list', { name: 'Partners' })
      .getByRole('listitem')
      .filter({ hasText: DEMO_PARTNER.name });
    await expect(partner.textContent()).resolves.toContain(DEMO_PARTNER.apiToken);
    const curl = (await partner.locator('code.curl').textContent())!;
    expect(curl).toBe(
      `curl -u '${DEMO_PARTNER.partnerId}:${DEMO_PARTNER.apiToken}' '${server.url}/api/v1/partnership/restaurants/'`,
    );
    // The line's credentials and URL really list the partner's restaurants.
    const [, partnerId, apiToken, url] = /-u '([^':]+):([^']+)' '([^']+)'/.exec(curl)!;
    const listed = await fetch(url!, {
      headers: { authorization: basicAuthorization(partnerId!, apiToken!) },
    });
    expect(listed.status).toBe(200);
    await expect(
      partner.getByRole('button', { name: `Copy curl line for ${DEMO_PARTNER.name}` }).isVisible(),
    ).resolves.toBe(true);
    // A token a shell would split or expand comes out of the line unchanged.
    const awkward = await control('POST', 'partners', {
      name: 'Awkward partner',
      apiToken: "it's-$HOME-`id`-token",
    });
    const awkwardCurl = page
      .getByRole('list', { name: 'Partners' })
      .getByRole('listitem')
      .filter({ hasText: 'Awkward partner' })
      .locator('code.curl');
    await awkwardCurl.filter({ hasText: 'curl' }).waitFor();
    const words = execFileSync(
      'sh',
      ['-c', (await awkwardCurl.textContent())!.replace(/^curl /, "printf '%s\\n' ")],
      { encoding: 'utf8' },
    ).split('\n');
    expect(words.slice(0, 3)).toEqual([
      '-u',
      `${awkward.partnerId}:it's-$HOME-\`id\`-token`,
      `${server.url}/api/v1/partnership/restaurants/`,
    ]);
    const bistro = page.getByRole('region', { name: /Bistro des Vosges/ });
    const text = await bistro.textContent();
    expect(text).toContain('Europe/Paris');
    expect(text).toContain('asynchronous (the restaurant confirms)');
    expect(text).toContain('Mon-Sun 12:00-14:30; Mon-Sun 18:00-22:30');
  });

  it('serves each sandbox its own page at <controlUrl>/ui, acting on that sandbox alone', async () => {
    const sandbox = await control('POST', 'sandboxes', { seed: 'demo' });
    await page.goto(`${sandbox.controlUrl}/ui`);
    await page.locator('body[data-ready]').waitFor();
    const booked = await (
      await fetch(`${sandbox.controlUrl}/restaurants/2/reservations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          start_time: `${evening(2, 'Europe/Paris').date}T19:00:00`,
          adults: 2,
          first_name: 'Only',
          last_name: 'Sandboxed',
        }),
      })
    ).json();
    const entry = entryOf(booked.id);
    await entry.getByRole('button', { name: 'Confirm', exact: true }).click();
    await entry.getByText('confirmed', { exact: true }).waitFor();
    const curl = await page.locator('code.curl').first().textContent();
    expect(curl).toContain(`'${sandbox.url}/api/v1/partnership/restaurants/'`);
    // The server's own world saw none of it.
    expect(await allReservations()).toEqual([]);
    expect(pageProblems).toEqual([]);
  });

  it('shows a viewer that is not on loopback (--allow-remote-control) no API token, and a curl line with $API_TOKEN', async () => {
    // Tests send traffic to loopback only, so no socket here can come from another machine. The
    // page's requests are answered in-process exactly as the node adapter answers a caller whose
    // socket address is not loopback (remoteViewer); the adapter's own test checks that decision.
    await page.route(`${server.url}/**`, async (route) => {
      const sent = route.request();
      const body = sent.postDataBuffer();
      const request = new Request(sent.url(), {
        method: sent.method(),
        headers: sent.headers(),
        body: body && body.length > 0 ? new Uint8Array(body) : undefined,
      });
      const answer = isSimulatorPath(new URL(sent.url()).pathname)
        ? await serveSimulatorPage(request)
        : await server.fake.handle(request, { controlAllowed: true, remoteViewer: true });
      await route.fulfill({
        status: answer.status,
        headers: Object.fromEntries(answer.headers),
        body: Buffer.from(await answer.arrayBuffer()),
      });
    });
    await page.goto(`${server.url}/_fake/ui`);
    await page.locator('body[data-ready]').waitFor();
    const partners = page.getByRole('region', { name: 'Partners' });
    await partners.getByText('withheld (not on loopback)').waitFor();
    expect(await page.content()).not.toContain(DEMO_PARTNER.apiToken);
    await expect(partners.locator('code.curl').textContent()).resolves.toBe(
      `curl -u '${DEMO_PARTNER.partnerId}:'"$API_TOKEN" '${server.url}/api/v1/partnership/restaurants/'`,
    );
  });

  it('gives every button, field and region an accessible name, with every form open', async () => {
    const booking = await control('POST', `restaurants/${ASYNC_RESTAURANT}/reservations`, {
      start_time: `${evening(2, 'Europe/Paris').date}T19:00:00`,
      adults: 2,
    });
    await entryOf(booking.id).getByRole('button', { name: 'Modify', exact: true }).click();
    for (const toggle of await page.getByRole('button', { name: 'New booking from another channel' }).all())
      await toggle.click();
    const unnamed = await page.evaluate(() => {
      const visible = (element: Element) => !element.closest('[hidden]');
      const problems: string[] = [];
      for (const button of document.querySelectorAll('button')) {
        if (visible(button) && !(button.getAttribute('aria-label') ?? button.textContent ?? '').trim())
          problems.push(`button ${button.outerHTML}`);
      }
      for (const field of document.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input, select')) {
        if (visible(field) && field.labels?.length === 0 && !field.getAttribute('aria-label'))
          problems.push(`field ${field.outerHTML}`);
      }
      for (const region of document.querySelectorAll('section, form')) {
        if (
          visible(region) &&
          !region.getAttribute('aria-label') &&
          !document.getElementById(region.getAttribute('aria-labelledby') ?? '')?.textContent?.trim()
        )
          problems.push(`region ${region.outerHTML.slice(0, 80)}`);
      }
      return problems;
    });
    expect(unnamed).toEqual([]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Restaurant simulator');
  });

  it('reads at 390 px: nothing wider than the screen, every action of an entry within it', async () => {
    const booking = await control('POST', `restaurants/${ASYNC_RESTAURANT}/reservations`, {
      start_time: `${evening(2, 'Europe/Paris').date}T19:00:00`,
      adults: 2,
      first_name: 'Narrow',
      last_name: 'Screen',
    });
    await page.setViewportSize({ width: 390, height: 844 });
    const entry = entryOf(booking.id);
    await entry.waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    for (const name of ['Confirm', 'Cancel as restaurant', 'Cancel as customer', 'Modify']) {
      const box = (await entry.getByRole('button', { name, exact: true }).boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
  });
});
