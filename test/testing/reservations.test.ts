import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFakeService } from 'restaurant-partner-sdk/testing';
import { API, DRIVERS, createDriver, START } from './helpers.js';
import { basicAuthorization } from '../support/basic-auth.js';

type Driver = Awaited<ReturnType<typeof createDriver>>;

describe.each(DRIVERS)('reservations through %s', (kind) => {
  let driver: Driver;
  let brussels: number;
  let paris: number;

  beforeEach(async () => {
    driver = await createDriver(kind);
    brussels = driver.fake.addRestaurant({
      timezone: 'Europe/Brussels',
      partnerIds: [driver.partner.partnerId],
    }).id;
    paris = driver.fake.addRestaurant({
      timezone: 'Europe/Paris',
      confirmation_mode: 'CONFIRMATION_MODE_ASYNCHRONOUS',
      partnerIds: [driver.partner.partnerId],
    }).id;
  });
  afterEach(() => driver.close());

  const create = (restaurantId: number, body: unknown, headers?: Record<string, string>) =>
    driver.send('POST', `/restaurants/${restaurantId}/reservations/`, { body, headers });
  const list = async (restaurantId: number, query = '') =>
    (await driver.send('GET', `/restaurants/${restaurantId}/reservations/${query}`)).body;

  describe('create', () => {
    it('answers 201 and decides every server-set field itself', async () => {
      const answer = await create(brussels, {
        start_time: '2026-12-02T19:00:00',
        adults: 2,
        first_name: 'Ada',
        id: 999,
        duration: 'PT9H',
        confirmed: false,
        cancelled: true,
        cancelled_at: '2026-01-01T00:00:00Z',
        arrived: true,
        no_show: true,
        confirmation_mode: 'CONFIRMATION_MODE_ASYNCHRONOUS',
        metadata: { booking_ref: 'abc-1' },
      });
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({
        id: 1,
        first_name: 'Ada',
        start_time: '2026-12-02T19:00:00+01:00',
        duration: 'PT1H30M',
        adults: 2,
        children: 0,
        cancelled: false,
        cancelled_at: null,
        confirmed: true,
        confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS',
        arrived: false,
        no_show: false,
        metadata: { booking_ref: 'abc-1' },
      });
      expect(answer.body.confirmed_at).toBe('2026-12-01T09:00:00+01:00');
    });

    it('leaves an asynchronous restaurant’s booking unconfirmed until the restaurant confirms', async () => {
      const created = await create(paris, { start_time: '2026-12-02T20:00:00', adults: 2 });
      expect(created.body).toMatchObject({
        confirmed: false,
        confirmed_at: null,
        confirmation_mode: 'CONFIRMATION_MODE_ASYNCHRONOUS',
      });
      await driver.fake.clock.advance('PT10M');
      await driver.fake.asRestaurant.confirm(paris, created.body.id);
      const read = await driver.send('GET', `/restaurants/${paris}/reservations/${created.body.id}/`);
      expect(read.body).toMatchObject({ confirmed: true, confirmed_at: '2026-12-01T09:10:00+01:00' });
    });

    it('reads a naive time in the restaurant zone, converts an offset, and answers local time with offset', async () => {
      expect(
        (await create(brussels, { start_time: '2026-12-02T18:00:00Z', adults: 2 })).body.start_time,
      ).toBe('2026-12-02T19:00:00+01:00');
      expect(
        (await create(brussels, { start_time: '2026-12-02T14:00:00-05:00', adults: 2 })).body.start_time,
      ).toBe('2026-12-02T20:00:00+01:00');
      const newYork = driver.fake.addRestaurant({
        timezone: 'America/New_York',
        partnerIds: [driver.partner.partnerId],
      }).id;
      expect((await create(newYork, { start_time: '2026-12-02T19:00:00', adults: 2 })).body.start_time).toBe(
        '2026-12-02T19:00:00-05:00',
      );
    });

    it('refuses a local time in a DST gap with 400, and reads an ambiguous one as its first occurrence', async () => {
      const gap = await create(brussels, { start_time: '2027-03-28T02:30:00', adults: 2 });
      expect(gap.status).toBe(400);
      expect(gap.body.start_time[0]).toMatch(/does not exist in Europe\/Brussels/);

      const autumn = await createDriver(kind, { clock: { frozen: true, startAt: '2027-10-20T08:00:00Z' } });
      try {
        const allNight = autumn.fake.addRestaurant({
          partnerIds: [autumn.partner.partnerId],
          availability: { openingPeriods: [{ days: [1, 2, 3, 4, 5, 6, 7], start: '00:00', end: '24:00' }] },
        }).id;
        const ambiguous = await autumn.send('POST', `/restaurants/${allNight}/reservations/`, {
          body: { start_time: '2027-10-31T02:30:00', adults: 2 },
        });
        expect(ambiguous.status).toBe(201);
        expect(ambiguous.body.start_time).toBe('2027-10-31T02:30:00+02:00');
      } finally {
        await autumn.close();
      }
    });

    it('sets the duration by party size', async () => {
      expect((await create(brussels, { start_time: '2026-12-02T19:00:00', adults: 3 })).body.duration).toBe(
        'PT2H',
      );
      expect(
        (await create(brussels, { start_time: '2026-12-02T19:00:00', adults: 5, children: 2 })).body.duration,
      ).toBe('PT2H30M');
    });

    it('answers 409 no_availability outside opening periods, off the slot grid, inside the lead time and beyond the horizon', async () => {
      const strict = driver.fake.addRestaurant({
        partnerIds: [driver.partner.partnerId],
        availability: { minimumLeadTimeMinutes: 240, horizonDays: 30 },
      }).id;
      for (const start_time of [
        '2026-12-02T16:00:00',
        '2026-12-02T19:07:00',
        '2026-12-01T12:00:00',
        '2027-01-15T19:00:00',
        '2026-12-02T22:30:00',
      ]) {
        const answer = await create(strict, { start_time, adults: 2 });
        expect(answer.status, start_time).toBe(409);
        expect(answer.body.code).toBe('no_availability');
        expect(typeof answer.body.detail).toBe('string');
      }
      expect((await create(strict, { start_time: '2026-12-01T18:00:00', adults: 2 })).status).toBe(201);
      expect((await create(strict, { start_time: '2026-12-30T22:15:00', adults: 2 })).status).toBe(201);
    });

    it('counts covers of every channel, only where reservations overlap', async () => {
      const small = driver.fake.addRestaurant({
        partnerIds: [driver.partner.partnerId],
        availability: { capacityCovers: 4 },
      }).id;
      expect((await create(small, { start_time: '2026-12-02T19:00:00', adults: 2 })).status).toBe(201); // until 20:30
      driver.fake.addOtherChannelBooking(small, { start_time: '2026-12-02T19:30:00', adults: 2 }); // until 21:00
      const full = await create(small, { start_time: '2026-12-02T20:00:00', adults: 1 });
      expect(full.status).toBe(409);
      expect(full.body.code).toBe('no_availability');
      expect((await create(small, { start_time: '2026-12-02T21:00:00', adults: 2 })).status).toBe(201);
      expect((await create(small, { start_time: '2026-12-03T19:00:00', adults: 5 })).status).toBe(409);
      // The other-channel booking is invisible to the partner.
      expect((await list(small)).count).toBe(2);
    });

    it('frees capacity when a reservation is cancelled', async () => {
      const small = driver.fake.addRestaurant({
        partnerIds: [driver.partner.partnerId],
        availability: { capacityCovers: 2 },
      }).id;
      const first = await create(small, { start_time: '2026-12-02T19:00:00', adults: 2 });
      expect((await create(small, { start_time: '2026-12-02T19:00:00', adults: 2 })).status).toBe(409);
      await driver.send('PATCH', `/restaurants/${small}/reservations/${first.body.id}/?action=cancel`, {
        body: {},
      });
      expect((await create(small, { start_time: '2026-12-02T19:00:00', adults: 2 })).status).toBe(201);
    });

    it('answers 400 with a field map for every invalid field, and changes nothing', async () => {
      const cases: [unknown, string][] = [
        [{ adults: 2 }, 'start_time'],
        [{ start_time: 'tomorrow', adults: 2 }, 'start_time'],
        [{ start_time: '2026-12-02', adults: 2 }, 'start_time'],
        [{ start_time: 1733166000, adults: 2 }, 'start_time'],
        [{ start_time: '2026-12-02T19:00:00' }, 'adults'],
        [{ start_time: '2026-12-02T19:00:00', adults: 0 }, 'adults'],
        [{ start_time: '2026-12-02T19:00:00', adults: 51 }, 'adults'],
        [{ start_time: '2026-12-02T19:00:00', adults: '2' }, 'adults'],
        [{ start_time: '2026-12-02T19:00:00', adults: 2.5 }, 'adults'],
        [{ start_time: '2026-12-02T19:00:00', adults: 2, children: -1 }, 'children'],
        [{ start_time: '2026-12-02T19:00:00', adults: 2, children: 51 }, 'children'],
        [{ start_time: '2026-12-02T19:00:00', adults: 2, first_name: 'a'.repeat(256) }, 'first_name'],
        [{ start_time: '2026-12-02T19:00:00', adults: 2, last_name: 42 }, 'last_name'],
        [{ start_time: '2026-12-02T19:00:00', adults: 2, phone: '1'.repeat(129) }, 'phone'],
        [{ start_time: '2026-12-02T19:00:00', adults: 2, email: 'not-an-email' }, 'email'],
        [{ start_time: '2026-12-02T19:00:00', adults: 2, comment: 'x'.repeat(10_001) }, 'comment'],
        [{ start_time: '2026-12-02T19:00:00', adults: 2, metadata: ['a'] }, 'metadata'],
        [{ start_time: '2026-12-02T19:00:00', adults: 2, language: 'not a tag' }, 'language'],
        [[{ start_time: '2026-12-02T19:00:00', adults: 2 }], 'non_field_errors'],
        ['hello', 'non_field_errors'],
        [null, 'non_field_errors'],
      ];
      for (const [body, field] of cases) {
        const answer = await create(brussels, body);
        expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
        expect(answer.body[field], JSON.stringify(body).slice(0, 80)).toEqual([expect.any(String)]);
        expect(answer.body.detail).toEqual(expect.any(String));
      }
      const malformed = await driver.send('POST', `/restaurants/${brussels}/reservations/`, {
        raw: '{"start_time": "2026-12-02T19:00:00", adults: 2',
        headers: { 'content-type': 'application/json' },
      });
      expect(malformed.status).toBe(400);
      expect(malformed.body.non_field_errors[0]).toMatch(/JSON/);
      const empty = await driver.send('POST', `/restaurants/${brussels}/reservations/`, { raw: '' });
      expect(empty.status).toBe(400);
      expect((await list(brussels)).count).toBe(0);
      expect(driver.fake.allReservations(brussels)).toEqual([]);
    });

    it("counts the spec's maximum lengths in characters, not UTF-16 units, as the client does", async () => {
      // 255 emoji are 255 characters (510 UTF-16 units): within the spec's limit for names.
      const emoji = '\u{1F600}';
      const atLimit = await create(brussels, {
        start_time: '2026-12-02T19:00:00',
        adults: 2,
        first_name: emoji.repeat(255),
        last_name: emoji.repeat(255),
        phone: emoji.repeat(128),
      });
      expect(atLimit.status).toBe(201);
      expect(atLimit.body.first_name).toBe(emoji.repeat(255));
      const overLimit = await create(brussels, {
        start_time: '2026-12-02T19:00:00',
        adults: 2,
        first_name: emoji.repeat(256),
        phone: emoji.repeat(129),
      });
      expect(overLimit.status).toBe(400);
      expect(Object.keys(overLimit.body).sort()).toEqual(['detail', 'first_name', 'phone']);
    });

    it('refuses JSON nested deeper than the fake walks (400, never a 500), and keeps shallower metadata as given', async () => {
      const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      const deep = await driver.send('POST', `/restaurants/${brussels}/reservations/`, {
        raw: `{"start_time": "2026-12-02T19:00:00", "adults": 2, "metadata": ${nested(5000)}}`,
        headers: { 'content-type': 'application/json', 'idempotency-key': 'deep-1' },
      });
      expect(deep.status).toBe(400);
      expect(deep.body.non_field_errors).toEqual([expect.stringMatching(/nested/)]);
      expect((await list(brussels)).count).toBe(0);
      const shallow = await driver.send('POST', `/restaurants/${brussels}/reservations/`, {
        raw: `{"start_time": "2026-12-02T19:00:00", "adults": 2, "metadata": ${nested(50)}}`,
        headers: { 'content-type': 'application/json', 'idempotency-key': 'shallow-1' },
      });
      expect(shallow.status).toBe(201);
      expect(JSON.stringify(shallow.body.metadata)).toBe(nested(50));
    });

    it('refuses a huge body with 413 and a field map', async () => {
      const answer = await driver.send('POST', `/restaurants/${brussels}/reservations/`, {
        body: { start_time: '2026-12-02T19:00:00', adults: 2, comment: 'x'.repeat(2 * 1024 * 1024) },
      });
      expect(answer.status).toBe(413);
      expect(answer.body.non_field_errors).toEqual([expect.any(String)]);
      expect((await list(brussels)).count).toBe(0);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first answer for the same key and body, and refuses another body with 422', async () => {
      const body = {
        start_time: '2026-12-02T19:00:00',
        adults: 2,
        metadata: { 'restaurant_partner_sdk.idempotency_key': 'key-1' },
      };
      const first = await create(brussels, body, { 'idempotency-key': 'key-1' });
      const again = await create(
        brussels,
        { metadata: body.metadata, adults: 2, start_time: body.start_time },
        { 'idempotency-key': 'key-1' },
      );
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect((await list(brussels)).count).toBe(1);
      const other = await create(brussels, { ...body, adults: 3 }, { 'idempotency-key': 'key-1' });
      expect(other.status).toBe(422);
      expect(other.body.code).toBe('idempotency_key_reused');
      expect((await list(brussels)).count).toBe(1);
      // Keys are per partner: another partner using the same key books its own table.
      const stranger = driver.fake.addPartner();
      driver.fake.link(stranger.partnerId, brussels);
      const theirs = await driver.send('POST', `/restaurants/${brussels}/reservations/`, {
        body,
        auth: basicAuthorization(stranger.partnerId, stranger.apiToken),
        headers: { 'idempotency-key': 'key-1' },
      });
      expect(theirs.status).toBe(201);
      expect(theirs.body.id).not.toBe(first.body.id);
    });
  });

  describe('list', () => {
    it('shows only the partner’s own reservations of that restaurant, by start time then id, paged with absolute next links', async () => {
      for (const time of ['21:00', '19:00', '20:00', '19:00', '12:30'])
        await create(brussels, { start_time: `2026-12-02T${time}:00`, adults: 1 });
      await create(paris, { start_time: '2026-12-02T19:00:00', adults: 1 });
      driver.fake.addOtherChannelBooking(brussels, { start_time: '2026-12-02T19:00:00', adults: 2 });
      const stranger = driver.fake.addPartner();
      driver.fake.link(stranger.partnerId, brussels);
      await driver.send('POST', `/restaurants/${brussels}/reservations/`, {
        body: { start_time: '2026-12-02T19:00:00', adults: 1 },
        auth: basicAuthorization(stranger.partnerId, stranger.apiToken),
      });

      const first = await list(brussels, '?page_size=2');
      expect(first.count).toBe(5);
      expect(first.previous).toBeNull();
      expect(first.next).toBe(
        `${driver.baseUrl}${API}/restaurants/${brussels}/reservations/?page_size=2&page=2`,
      );
      const seen = [...first.results];
      let next: string | null = first.next;
      while (next) {
        const page = (await driver.send('GET', next.slice(next.indexOf(API) + API.length))).body;
        expect(page.previous).toEqual(expect.stringContaining('page='));
        seen.push(...page.results);
        next = page.next;
      }
      expect(
        seen.map((item: { start_time: string; id: number }) => [item.start_time.slice(11, 16), item.id]),
      ).toEqual([
        ['12:30', 5],
        ['19:00', 2],
        ['19:00', 4],
        ['20:00', 3],
        ['21:00', 1],
      ]);
      expect((await list(brussels)).results).toHaveLength(5);
    });

    it('answers 404 for a page past the end and 400 for a malformed page', async () => {
      expect((await driver.send('GET', `/restaurants/${brussels}/reservations/?page=2`)).status).toBe(404);
      const bad = await driver.send('GET', `/restaurants/${brussels}/reservations/?page=abc`);
      expect(bad.status).toBe(400);
      expect(bad.body.page).toEqual([expect.any(String)]);
    });
  });

  describe('scoping', () => {
    it('answers 404 for a restaurant not linked, another partner’s reservation, an other-channel booking and unknown ids', async () => {
      const unlinked = driver.fake.addRestaurant().id;
      expect((await list(unlinked)).detail).toBe('Not found.');
      expect((await create(unlinked, { start_time: '2026-12-02T19:00:00', adults: 2 })).status).toBe(404);
      expect((await driver.send('GET', '/restaurants/9999/reservations/')).status).toBe(404);
      expect((await driver.send('GET', '/restaurants/abc/reservations/')).status).toBe(404);

      const stranger = driver.fake.addPartner();
      driver.fake.link(stranger.partnerId, brussels);
      const theirs = await driver.send('POST', `/restaurants/${brussels}/reservations/`, {
        body: { start_time: '2026-12-02T19:00:00', adults: 1 },
        auth: basicAuthorization(stranger.partnerId, stranger.apiToken),
      });
      const other = driver.fake.addOtherChannelBooking(brussels, {
        start_time: '2026-12-02T19:00:00',
        adults: 1,
      });
      for (const id of [theirs.body.id, other.id, 777]) {
        expect((await driver.send('GET', `/restaurants/${brussels}/reservations/${id}/`)).status).toBe(404);
        expect(
          (
            await driver.send('PATCH', `/restaurants/${brussels}/reservations/${id}/?action=cancel`, {
              body: {},
            })
          ).status,
        ).toBe(404);
      }
      // Refused calls changed nothing.
      expect(driver.fake.allReservations(brussels).every((item) => item.cancelled === false)).toBe(true);
      // A reservation is only reachable under its own restaurant.
      const mine = await create(brussels, { start_time: '2026-12-02T19:00:00', adults: 1 });
      expect((await driver.send('GET', `/restaurants/${paris}/reservations/${mine.body.id}/`)).status).toBe(
        404,
      );
    });
  });

  describe('cancel, arrived and no-show', () => {
    const cancel = (restaurantId: number, id: number, query = '?action=cancel') =>
      driver.send('PATCH', `/restaurants/${restaurantId}/reservations/${id}/${query}`, { body: {} });
    const mark = (restaurantId: number, id: number, body: unknown) =>
      driver.send('PATCH', `/restaurants/${restaurantId}/reservations/${id}/`, { body });

    it('cancels with 200 and the reservation; a repeat is 200 again', async () => {
      const { body } = await create(brussels, { start_time: '2026-12-02T19:00:00', adults: 2 });
      await driver.fake.clock.advance('PT1M');
      const first = await cancel(brussels, body.id);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        id: body.id,
        cancelled: true,
        cancelled_at: '2026-12-01T09:01:00+01:00',
      });
      await driver.fake.clock.advance('PT1M');
      const again = await cancel(brussels, body.id);
      expect(again.status).toBe(200);
      expect(again.body.cancelled_at).toBe('2026-12-01T09:01:00+01:00');
    });

    it('answers 400 for a missing or unknown action, without changing anything', async () => {
      const { body } = await create(brussels, { start_time: '2026-12-02T19:00:00', adults: 2 });
      const unknown = await cancel(brussels, body.id, '?action=delete');
      expect(unknown.status).toBe(400);
      expect(unknown.body.action).toEqual([expect.stringContaining('delete')]);
      const missing = await cancel(brussels, body.id, '');
      expect(missing.status).toBe(400);
      expect(missing.body.action).toEqual([expect.any(String)]);
      expect(
        (await driver.send('GET', `/restaurants/${brussels}/reservations/${body.id}/`)).body.cancelled,
      ).toBe(false);
    });

    it('marks arrived only from confirmed, no-show from created or confirmed, and 409 otherwise', async () => {
      const confirmed = (await create(brussels, { start_time: '2026-12-02T19:00:00', adults: 2 })).body;
      const arrived = await mark(brussels, confirmed.id, { arrived: true });
      expect(arrived.status).toBe(200);
      expect(arrived.body).toMatchObject({
        arrived: true,
        arrived_at: '2026-12-01T09:00:00+01:00',
        no_show: false,
      });
      expect((await mark(brussels, confirmed.id, { arrived: true })).status).toBe(409);
      expect((await mark(brussels, confirmed.id, { no_show: true })).status).toBe(409);
      const cancelAfterArrival = await cancel(brussels, confirmed.id);
      expect(cancelAfterArrival.status).toBe(409);

      const unconfirmed = (await create(paris, { start_time: '2026-12-02T19:00:00', adults: 2 })).body;
      expect((await mark(paris, unconfirmed.id, { arrived: true })).status).toBe(409);
      const noShow = await mark(paris, unconfirmed.id, { no_show: true });
      expect(noShow.status).toBe(200);
      expect(noShow.body).toMatchObject({ no_show: true, no_show_at: expect.any(String), arrived: false });
      expect((await cancel(paris, unconfirmed.id)).status).toBe(409);

      const cancelled = (await create(brussels, { start_time: '2026-12-02T20:00:00', adults: 2 })).body;
      await cancel(brussels, cancelled.id);
      expect((await mark(brussels, cancelled.id, { arrived: true })).status).toBe(409);
      expect((await mark(brussels, cancelled.id, { no_show: true })).status).toBe(409);
    });

    it('answers 400 when the PATCH body carries anything else', async () => {
      const { body } = await create(brussels, { start_time: '2026-12-02T19:00:00', adults: 2 });
      for (const [patch, field] of [
        [{ arrived: true, first_name: 'Eve' }, 'first_name'],
        [{ arrived: false }, 'arrived'],
        [{ no_show: 'yes' }, 'no_show'],
        [{ arrived: true, no_show: true }, 'non_field_errors'],
        [{ adults: 4 }, 'adults'],
        [[true], 'non_field_errors'],
      ] as const) {
        const answer = await mark(brussels, body.id, patch);
        expect(answer.status, JSON.stringify(patch)).toBe(400);
        expect(answer.body[field], JSON.stringify(patch)).toEqual([expect.any(String)]);
      }
      expect(
        (await driver.send('GET', `/restaurants/${brussels}/reservations/${body.id}/`)).body,
      ).toMatchObject({ arrived: false, no_show: false, adults: 2, first_name: '' });
    });
  });

  it('answers 405 with Allow for a method the path does not serve, and 404 without the trailing slash', async () => {
    const put = await driver.send('PUT', `/restaurants/${brussels}/reservations/`, { body: {} });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST');
    expect((await driver.send('GET', `/restaurants/${brussels}/reservations`)).status).toBe(404);
  });
});

it('keeps two fakes side by side fully apart', async () => {
  const one = createFakeService({ rateLimit: false, clock: { frozen: true, startAt: START } });
  const two = createFakeService({ rateLimit: false, clock: { frozen: true, startAt: START } });
  const partner = one.addPartner();
  one.addRestaurant({ partnerIds: [partner.partnerId] });
  expect(two.describeSeed()).toEqual({ partners: [], restaurants: [] });
  const answer = await two.handle(
    new Request(`http://x${API}/restaurants/`, {
      headers: { authorization: basicAuthorization(partner.partnerId, partner.apiToken) },
    }),
  );
  expect(answer.status).toBe(401);
  await one.clock.advance('PT1H');
  expect(two.clock.now()).toBe(Date.parse(START));
});
