import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import {
  InputValidationError,
  readDuration,
  readStartTime,
  readTimestamp,
  Reservation,
} from 'restaurant-partner-sdk';
import { toServiceStartTime } from '../../src/start-time.js';
import { json, mockApi, restaurantBody } from '../support/hostile-server.js';
import { reservationBody } from '../support/reservation.js';

const api = mockApi();
const zone = 'Europe/Brussels';

describe('toServiceStartTime', () => {
  it.each([
    ['local ISO string (winter)', '2026-12-05T19:30:00', '2026-12-05T19:30:00+01:00'],
    ['local ISO string (summer)', '2026-07-05T19:30', '2026-07-05T19:30:00+02:00'],
    [
      'ISO with offset, converted to the restaurant zone',
      '2026-12-05T18:30:00Z',
      '2026-12-05T19:30:00+01:00',
    ],
    [
      'ISO with another offset and milliseconds',
      '2026-12-05T13:30:00.123-05:00',
      '2026-12-05T19:30:00+01:00',
    ],
    ['{ date, time }', { date: '2026-12-05', time: '19:30' }, '2026-12-05T19:30:00+01:00'],
    ['Date', new Date('2026-12-05T18:30:00.000Z'), '2026-12-05T19:30:00+01:00'],
    [
      'luxon DateTime in another zone',
      DateTime.fromISO('2026-12-05T13:30:00', { zone: 'America/New_York' }),
      '2026-12-05T19:30:00+01:00',
    ],
    ['offset without a colon (+0100)', '2026-12-05T19:30:00+0100', '2026-12-05T19:30:00+01:00'],
    ['offset in hours only (+01)', '2026-12-05T18:30:00+00', '2026-12-05T19:30:00+01:00'],
    ['comma fraction', '2026-12-05T19:30:00,250+01:00', '2026-12-05T19:30:00+01:00'],
    ['a space for T, with offset', '2026-12-05 19:30:00+01:00', '2026-12-05T19:30:00+01:00'],
    ['a space for T, local, comma fraction', '2026-12-05 19:30:00,5', '2026-12-05T19:30:00+01:00'],
  ] as const)('%s', (_label, input, expected) => {
    expect(toServiceStartTime(input as never, zone)).toBe(expected);
  });

  it('create accepts every ISO 8601 form a response is read in, and refuses an impossible one naming start_time', async () => {
    for (const start_time of [
      '2026-12-05T19:30:00+0100',
      '2026-12-05T19:30:00+01',
      '2026-12-05T19:30:00,5+01:00',
      '2026-12-05 19:30:00',
    ]) {
      api.reply(
        () => json([restaurantBody({ id: 7, timezone: zone })]),
        (call) => json(reservationBody(call.body as object), 201),
      );
      await api.client().reservations.create(7, { start_time, adults: 2 });
      expect((api.calls.at(-1)!.body as { start_time: string }).start_time).toBe('2026-12-05T19:30:00+01:00');
      api.calls.length = 0;
    }
    api.reply(() => json([restaurantBody({ id: 7, timezone: zone })]));
    const error = await api
      .client()
      .reservations.create(7, { start_time: '2026-13-05T19:30:00+01', adults: 2 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputValidationError);
    expect((error as InputValidationError).field).toBe('start_time');
    expect(api.calls.filter((call) => call.method === 'POST')).toHaveLength(0);
  });

  it('refuses a local time inside the spring-forward gap, naming start_time and saying why', () => {
    let caught: unknown;
    try {
      toServiceStartTime({ date: '2026-03-29', time: '02:30' }, zone);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InputValidationError);
    expect((caught as InputValidationError).field).toBe('start_time');
    expect((caught as InputValidationError).message).toMatch(/does not exist.*daylight saving/);
  });

  it('reads an ambiguous fall-back time as its first occurrence (the earlier instant)', () => {
    expect(toServiceStartTime('2026-10-25T02:30:00', zone)).toBe('2026-10-25T02:30:00+02:00');
  });

  it('writes +00:00 rather than Z for a UTC restaurant', () => {
    expect(toServiceStartTime('2026-12-05T19:30:00', 'UTC')).toBe('2026-12-05T19:30:00+00:00');
  });

  it('without a known timezone, sends a local time unchanged and an instant with its own offset', () => {
    expect(toServiceStartTime({ date: '2026-12-05', time: '19:30' }, null)).toBe('2026-12-05T19:30:00');
    expect(toServiceStartTime('2026-12-05T19:30:00+03:00', null)).toBe('2026-12-05T19:30:00+03:00');
  });
});

describe('create with time conversion', () => {
  it('refuses a DST-gap time before the create is sent', async () => {
    api.reply(() => json([restaurantBody()]));
    const error = await api
      .client()
      .reservations.create(7, { start_time: { date: '2026-03-29', time: '02:15' }, adults: 2 })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(InputValidationError);
    expect(api.calls.map((call) => call.method)).toEqual(['GET']);
  });

  it('a restaurant missing from the cache refreshes the list once', async () => {
    api.reply(
      () => json([restaurantBody()]),
      () =>
        json([restaurantBody(), restaurantBody({ id: 8, schema_name: 'ny', timezone: 'America/New_York' })]),
      (call) => json(reservationBody(call.body as object), 201),
    );
    const client = api.client();
    await client.restaurants.list().toArray();
    await client.reservations.create(8, { start_time: '2026-12-05T19:30:00', adults: 2 });
    expect((api.calls[2]!.body as { start_time: string }).start_time).toBe('2026-12-05T19:30:00-05:00');
  });
});

describe('read helpers', () => {
  it('readStartTime keeps the offset, or shows it in the given zone, and reads naive values in that zone', () => {
    expect(readStartTime(reservationBody() as never).toISO()).toBe('2026-12-05T19:30:00.000+01:00');
    expect(readStartTime(reservationBody() as never, 'UTC').toISO()).toBe('2026-12-05T18:30:00.000Z');
    expect(readStartTime({ start_time: '2026-07-05T19:30:00' }, zone).toISO()).toBe(
      '2026-07-05T19:30:00.000+02:00',
    );
  });

  it('readDuration reads PT2H, HH:MM:SS and days, and null', () => {
    expect(readDuration({ duration: 'PT2H' })!.as('minutes')).toBe(120);
    expect(readDuration({ duration: '02:00:00' })!.as('minutes')).toBe(120);
    expect(readDuration({ duration: '01:30:00' })!.as('minutes')).toBe(90);
    expect(readDuration({ duration: '1 02:00:00' })!.as('hours')).toBe(26);
    expect(readDuration({ duration: null })).toBeNull();
    expect(readDuration({})).toBeNull();
    expect(readDuration({ duration: 'soon' })!.isValid).toBe(false);
  });

  it('readTimestamp reads *_at fields', () => {
    expect(readTimestamp('2026-11-23T12:00:00+01:00')!.toUTC().hour).toBe(11);
    expect(readTimestamp(null)).toBeNull();
  });
});

describe('response date-times in every common ISO 8601 form', () => {
  it.each([
    ['2026-12-05T19:30:00+01:00'],
    ['2026-12-05T19:30:00+0100'],
    ['2026-12-05T19:30:00+01'],
    ['2026-12-05 19:30:00+01:00'],
    ['2026-12-05T19:30:00.123456+01:00'],
    ['2026-12-05T18:30Z'],
  ])('reads %s as the same instant', (startTime) => {
    const reservation = Reservation.parse({ id: 1, start_time: startTime, confirmed_at: startTime });
    expect(readStartTime(reservation).toUTC().toFormat("yyyy-MM-dd'T'HH:mm")).toBe('2026-12-05T18:30');
    expect(readTimestamp(reservation.confirmed_at)!.toUTC().toFormat('HH:mm')).toBe('18:30');
  });

  it('still refuses what is not a date-time', () => {
    expect(Reservation.safeParse({ id: 1, start_time: 'tomorrow at 8' }).success).toBe(false);
  });
});
