/**
 * The client end to end against the fake service (src/testing), in every dialect the spec allows:
 * the same flow must work whatever the service answers where the spec is silent.
 */
import { describe, expect, it } from 'vitest';
import { NoAvailabilityError, readDuration } from 'restaurant-partner-sdk';
import { fakeWithClient } from '../support/fake-client.js';

const dialects = [
  {},
  {
    list: 'array',
    profile: 'list',
    duration: 'hms',
    createStatus: 200,
    deleteStatus: 200,
    cancelBody: 'empty',
    pageLinks: 'relative',
  },
  { pageLinks: 'relative' },
] as const;

describe.each(dialects)('against the fake, dialect %o', (dialect) => {
  it('books, reads, cancels and manages webhooks', async () => {
    const { fake, partner, restaurant, client } = fakeWithClient({
      fake: { dialect: dialect as never },
      partner: { name: 'Tables Inc' },
    });
    try {
      expect((await client.profile.retrieve()).uuid).toBe(partner.partnerId);
      const restaurants = await client.restaurants.list().toArray();
      expect(restaurants.map((item) => item.id)).toContain(restaurant.id);

      const tomorrow = new Date(fake.clock.now() + 2 * 86_400_000).toISOString().slice(0, 10);
      const created = await client.reservations.create(restaurant.id, {
        start_time: { date: tomorrow, time: '19:30' },
        adults: 2,
      });
      expect(created.start_time.startsWith(`${tomorrow}T19:30:00`)).toBe(true);
      expect(readDuration(created)?.as('minutes')).toBeGreaterThan(0);

      const second = await client.reservations.create(restaurant.id, {
        start_time: { date: tomorrow, time: '20:00' },
        adults: 4,
      });
      // page_size 1 forces one page per reservation when the service pages.
      const listed = await client.reservations.list(restaurant.id, { page_size: 1 }).toArray();
      expect(listed.map((item) => item.id).sort()).toEqual([created.id, second.id].sort());
      expect((await client.reservations.retrieve(restaurant.id, created.id)).id).toBe(created.id);

      const cancelled = await client.reservations.cancel(restaurant.id, created.id);
      if (cancelled) expect(cancelled.cancelled).toBe(true);

      const webhook = await client.webhooks.create({ url: 'https://partner.example/hooks' });
      expect(typeof webhook.auth_token).toBe('string');
      expect(JSON.stringify(webhook)).not.toContain(webhook.auth_token!);
      await client.webhooks.delete(webhook.id);
    } finally {
      fake.dispose();
    }
  });
});

it('no availability from the fake is a NoAvailabilityError', async () => {
  const { fake, restaurant, client } = fakeWithClient();
  try {
    const tomorrow = new Date(fake.clock.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    // 04:00 is outside any plausible opening period.
    const error = await client.reservations
      .create(restaurant.id, { start_time: { date: tomorrow, time: '04:00' }, adults: 2 })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(NoAvailabilityError);
  } finally {
    fake.dispose();
  }
});
