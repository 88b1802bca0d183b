/**
 * Behaviour the README states where it once disagreed with the fake: profile `description`,
 * server-set times in whole seconds, what `reset` resets, test deliveries to a paused webhook,
 * and limits counted in characters.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeService, type FakeService } from 'restaurant-partner-sdk/testing';
import { API } from './helpers.js';
import { basicAuthorization } from '../support/basic-auth.js';

let fake: FakeService;
afterEach(() => fake.dispose());

async function send(
  method: string,
  path: string,
  partner: { partnerId: string; apiToken: string },
  body?: unknown,
) {
  const response = await fake.handle(
    new Request(`http://fake.test${path.startsWith('/_fake') ? path : `${API}${path}`}`, {
      method,
      headers: {
        authorization: basicAuthorization(partner.partnerId, partner.apiToken),
        'content-type': 'application/json',
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

describe('the README and the fake agree', () => {
  it('profile description: null until set, then an object with the four languages; limits in characters', async () => {
    fake = createFakeService({ rateLimit: false });
    const partner = fake.addPartner();
    expect((await send('GET', '/profile/', partner)).body.description).toBeNull();
    // 5000 emoji are 5000 characters (10 000 UTF-16 units): within the limit.
    const patched = await send('PATCH', '/profile/', partner, { description: { en: '🍽'.repeat(5000) } });
    expect(patched.status).toBe(200);
    expect(patched.body.description).toEqual({ fr: '', nl: '', en: '🍽'.repeat(5000), de: '' });
    expect(
      (await send('PATCH', '/profile/', partner, { description: { en: '🍽'.repeat(5001) } })).body[
        'description.en'
      ],
    ).toEqual([expect.stringContaining('5000 characters')]);
  });

  it('server-set times are whole seconds even on a clock that follows real time', async () => {
    fake = createFakeService({
      rateLimit: false,
      clock: { startAt: Date.parse('2026-12-01T08:00:00.123Z') },
    });
    const partner = fake.addPartner();
    const restaurant = fake.addRestaurant({ partnerIds: [partner.partnerId] });
    const created = await send('POST', `/restaurants/${restaurant.id}/reservations/`, partner, {
      start_time: '2026-12-02T19:00:00',
      adults: 2,
    });
    expect(created.body.confirmed_at).toMatch(/^2026-12-01T09:00:0\d\+01:00$/);
    const webhook = await send('POST', '/webhooks/', partner, { url: 'https://partner.example/hooks' });
    expect(webhook.body.created_at).toMatch(/^2026-12-01T08:00:0\dZ$/);
  });

  it('reset restores the rate limit given at creation and drops named snapshots', async () => {
    fake = createFakeService({ rateLimit: 3, seed: 'demo' });
    const partner = fake.describeSeed().partners[0]!;
    fake.setRateLimit(false);
    expect((await send('POST', '/_fake/snapshots', partner, { name: 'before' })).status).toBe(201);
    fake.reset();
    expect(fake.rateLimit).toBe(3);
    expect((await send('POST', '/_fake/snapshots/before/restore', partner)).status).toBe(404);
  });

  it('a test delivery reaches a paused webhook; events do not', async () => {
    fake = createFakeService({ rateLimit: false });
    const partner = fake.addPartner();
    const restaurant = fake.addRestaurant({ partnerIds: [partner.partnerId] });
    const received: string[] = [];
    fake.registerDeliveryHandler('https://partner.example/hooks', async (request) => {
      received.push((await request.json()).event);
      return Response.json({ ok: true });
    });
    const webhook = (
      await send('POST', '/webhooks/', partner, { url: 'https://partner.example/hooks', is_enabled: false })
    ).body;
    expect((await send('POST', `/webhooks/${webhook.id}/test/`, partner)).body).toMatchObject({
      last_response_status_code: 200,
    });
    const start = new Date(fake.clock.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const booking = (
      await send('POST', `/restaurants/${restaurant.id}/reservations/`, partner, {
        start_time: `${start}T19:00:00`,
        adults: 2,
      })
    ).body;
    await send('PATCH', `/restaurants/${restaurant.id}/reservations/${booking.id}/?action=cancel`, partner);
    expect(received).toEqual(['TEST']);
  });
});
