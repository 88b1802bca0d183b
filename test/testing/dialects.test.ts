import { afterEach, describe, expect, it } from 'vitest';
import { type Dialect } from 'restaurant-partner-sdk/testing';
import { defaultDialect, resolveDialect } from '../../src/testing/backend/dialects.js';
import { parseDialectArguments } from '../../src/testing/backend/dialects.js';
import { DRIVERS, createDriver } from './helpers.js';

type Driver = Awaited<ReturnType<typeof createDriver>>;

describe.each(DRIVERS)('dialect switches through %s', (kind) => {
  let driver: Driver | undefined;
  afterEach(() => driver?.close());

  const setUp = async (dialect: Partial<Dialect>) => {
    driver = await createDriver(kind, { dialect });
    const restaurantId = driver.fake.addRestaurant({ partnerIds: [driver.partner.partnerId] }).id;
    return { driver, restaurantId };
  };

  it('defaults: envelope, object profile, PT durations, 201, 204, cancel with the reservation', async () => {
    const { driver, restaurantId } = await setUp({});
    const created = await driver.send('POST', `/restaurants/${restaurantId}/reservations/`, {
      body: { start_time: '2026-12-02T19:00:00', adults: 4 },
    });
    expect(created.status).toBe(201);
    expect(created.body.duration).toBe('PT2H');
    expect((await driver.send('GET', `/restaurants/${restaurantId}/reservations/`)).body).toMatchObject({
      count: 1,
      next: null,
      previous: null,
    });
    expect((await driver.send('GET', '/profile/')).body).toMatchObject({ uuid: driver.partner.partnerId });
    expect(
      (
        await driver.send(
          'PATCH',
          `/restaurants/${restaurantId}/reservations/${created.body.id}/?action=cancel`,
          { body: {} },
        )
      ).body,
    ).toMatchObject({ cancelled: true });
    const webhook = await driver.send('POST', '/webhooks/', {
      body: { url: 'https://partner.example/hook' },
    });
    expect(webhook.status).toBe(201);
    expect((await driver.send('DELETE', `/webhooks/${webhook.body.id}/`)).status).toBe(204);
  });

  it('the other answer of every open point', async () => {
    const { driver, restaurantId } = await setUp({
      list: 'array',
      profile: 'list',
      duration: 'hms',
      createStatus: 200,
      deleteStatus: 200,
      cancelBody: 'empty',
    });
    const created = await driver.send('POST', `/restaurants/${restaurantId}/reservations/`, {
      body: { start_time: '2026-12-02T19:00:00', adults: 2 },
    });
    expect(created.status).toBe(200);
    expect(created.body.duration).toBe('01:30:00');
    const listed = await driver.send('GET', `/restaurants/${restaurantId}/reservations/`);
    expect(listed.body).toEqual([expect.objectContaining({ id: created.body.id, duration: '01:30:00' })]);
    expect((await driver.send('GET', '/profile/')).body).toEqual([
      expect.objectContaining({ uuid: driver.partner.partnerId }),
    ]);
    const cancelled = await driver.send(
      'PATCH',
      `/restaurants/${restaurantId}/reservations/${created.body.id}/?action=cancel`,
      { body: {} },
    );
    expect(cancelled.status).toBe(204);
    expect(cancelled.text).toBe('');
    const webhook = await driver.send('POST', '/webhooks/', {
      body: { url: 'https://partner.example/hook' },
    });
    expect(webhook.status).toBe(200);
    const deleted = await driver.send('DELETE', `/webhooks/${webhook.body.id}/`);
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe('');
  });

  it('relative page links', async () => {
    const { driver, restaurantId } = await setUp({ pageLinks: 'relative' });
    for (const time of ['19:00', '20:00'])
      await driver.send('POST', `/restaurants/${restaurantId}/reservations/`, {
        body: { start_time: `2026-12-02T${time}:00`, adults: 2 },
      });
    const page = (await driver.send('GET', `/restaurants/${restaurantId}/reservations/?page_size=1`)).body;
    expect(page.next).toBe(
      `/api/v1/partnership/restaurants/${restaurantId}/reservations/?page_size=1&page=2`,
    );
  });

  it.each(['honoured', 'ignored'] as const)(
    'idempotencyKey %s: honoured (default) replays the first booking for a repeated key; ignored books every POST anew',
    async (idempotencyKey) => {
      {
        const { driver, restaurantId } = await setUp({ idempotencyKey });
        const create = () =>
          driver.send('POST', `/restaurants/${restaurantId}/reservations/`, {
            body: { start_time: '2026-12-02T19:00:00', adults: 2 },
            headers: { 'idempotency-key': 'order-42' },
          });
        const first = await create();
        const second = await create();
        expect([first.status, second.status]).toEqual([201, 201]);
        const listed = (await driver.send('GET', `/restaurants/${restaurantId}/reservations/`)).body;
        if (idempotencyKey === 'honoured') {
          expect(second.body.id).toBe(first.body.id);
          expect(second.headers.get('idempotent-replayed')).toBe('true');
          expect(listed.count).toBe(1);
        } else {
          expect(second.body.id).not.toBe(first.body.id);
          expect(second.headers.get('idempotent-replayed')).toBeNull();
          expect(listed.count).toBe(2);
        }
      }
    },
  );
});

describe('dialect parsing', () => {
  it('fills defaults, accepts command-line strings, and names the key and allowed values when wrong', () => {
    expect(resolveDialect()).toEqual(defaultDialect);
    expect(parseDialectArguments(['createStatus=200', 'list=array'])).toMatchObject({
      createStatus: 200,
      list: 'array',
      duration: 'iso',
    });
    expect(resolveDialect().idempotencyKey).toBe('honoured');
    expect(parseDialectArguments(['idempotencyKey=ignored']).idempotencyKey).toBe('ignored');
    expect(() => parseDialectArguments(['idempotencyKey=sometimes'])).toThrow(
      'dialect idempotencyKey must be one of honoured, ignored (got "sometimes")',
    );
    expect(() => resolveDialect({ list: 'csv' })).toThrow(
      'dialect list must be one of envelope, array (got "csv")',
    );
    expect(() => resolveDialect({ colour: 'blue' } as never)).toThrow(/unknown dialect key "colour"/);
    expect(() => parseDialectArguments(['list'])).toThrow(/key=value/);
  });
});
