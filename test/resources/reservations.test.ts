import { describe, expect, it } from 'vitest';
import {
  AmbiguousCreateError,
  BadRequestError,
  ConflictError,
  IDEMPOTENCY_METADATA_KEY,
  InputValidationError,
  NoAvailabilityError,
  NotFoundError,
  ReservationCancelledError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
} from 'restaurant-partner-sdk';
import { FINGERPRINT_METADATA_KEY } from '../../src/resources/reservations.js';
import { HttpResponse } from 'msw';
import {
  BASIC_HEADER,
  empty,
  json,
  mockApi,
  restaurantBody,
  createdAnswer,
} from '../support/hostile-server.js';
import { reservationBody } from '../support/reservation.js';
import { createManualClock } from '../support/manual-clock.js';

const api = mockApi();
const RESTAURANTS = () => json([restaurantBody()]);
const base = { start_time: '2026-12-05T19:30:00', adults: 2 };

describe('reservations.list', () => {
  it('GETs /restaurants/:rid/reservations/ with Basic auth and accepts a bare array', async () => {
    api.reply(() => json([reservationBody({ id: 1 }), reservationBody({ id: 2 })]));
    const items = await api.client().reservations.list(7).toArray();
    expect(items.map((item) => item.id)).toEqual([1, 2]);
    expect(api.calls).toHaveLength(1);
    expect(api.calls[0]!.method).toBe('GET');
    expect(api.calls[0]!.route).toBe('/restaurants/7/reservations/');
    expect(api.calls[0]!.headers.get('authorization')).toBe(BASIC_HEADER);
  });

  it('follows the envelope `next` URL across pages and sends page_size', async () => {
    api.reply(
      (call) =>
        json({
          count: 3,
          next: `${call.url.origin}${call.url.pathname}?page=2&page_size=2`,
          previous: null,
          results: [reservationBody({ id: 1 }), reservationBody({ id: 2 })],
        }),
      () => json({ count: 3, next: null, previous: 'x', results: [reservationBody({ id: 3 })] }),
    );
    const ids: number[] = [];
    for await (const reservation of api.client().reservations.list(7, { page_size: 2 }))
      ids.push(reservation.id);
    expect(ids).toEqual([1, 2, 3]);
    expect(api.calls.map((call) => call.route)).toEqual([
      '/restaurants/7/reservations/?page_size=2',
      '/restaurants/7/reservations/?page=2&page_size=2',
    ]);
  });

  it('follows a page-number `next` and keeps a foreign-origin `next` on the service origin', async () => {
    api.reply(
      () => json({ next: 2, results: [reservationBody({ id: 1 })] }),
      () =>
        json({
          next: 'http://internal-host:8000/api/v1/partnership/restaurants/7/reservations/?page=3',
          results: [reservationBody({ id: 2 })],
        }),
      () => json({ next: null, results: [reservationBody({ id: 3 })] }),
    );
    const items = await api.client().reservations.list(7).toArray();
    expect(items.map((item) => item.id)).toEqual([1, 2, 3]);
    expect(api.calls.map((call) => call.url.toString())).toEqual([
      'https://api.partner.test/api/v1/partnership/restaurants/7/reservations/',
      'https://api.partner.test/api/v1/partnership/restaurants/7/reservations/?page=2',
      'https://api.partner.test/api/v1/partnership/restaurants/7/reservations/?page=3',
    ]);
  });

  it('awaiting the list gives the first page only', async () => {
    api.reply(() => json({ count: 2, next: '?page=2', results: [reservationBody({ id: 1 })] }));
    const page = await api.client().reservations.list(7);
    expect(page.items.map((item) => item.id)).toEqual([1]);
    expect(page.data).toBe(page.items);
    expect(page.count).toBe(2);
    expect(page.hasNextPage()).toBe(true);
    expect(api.calls).toHaveLength(1);
  });

  it('fails, rather than repeating items or cutting the list silently, when `next` points back to a page already read', async () => {
    api.always((call) =>
      json({ next: `${call.url.pathname}?page=2`, results: [reservationBody({ id: 1 })] }),
    );
    const error = await api
      .client()
      .reservations.list(7)
      .toArray()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues[0]).toMatchObject({
      field: 'next',
      code: 'pagination_loop',
    });
    expect(api.calls).toHaveLength(2);
  });

  it('detects a `next` leading back to the first page itself', async () => {
    api.always((call) => json({ next: call.url.pathname, results: [reservationBody({ id: 1 })] }));
    const error = await api
      .client()
      .reservations.list(7)
      .toArray()
      .catch((caught: unknown) => caught);
    expect((error as ResponseValidationError).issues[0]).toMatchObject({
      field: 'next',
      code: 'pagination_loop',
    });
    expect(api.calls).toHaveLength(1);
  });

  it('reads at most maxPages pages of a list whose `next` never ends', async () => {
    let page = 1;
    api.always((call) =>
      json({ next: `${call.url.pathname}?page=${++page}`, results: [reservationBody({ id: page })] }),
    );
    const error = await api
      .client({ maxPages: 5 })
      .reservations.list(7)
      .toArray()
      .catch((caught: unknown) => caught);
    expect((error as ResponseValidationError).issues[0]).toMatchObject({
      field: 'next',
      code: 'too_many_pages',
    });
    expect(api.calls).toHaveLength(5);
  });

  it('raises ResponseValidationError naming the field of a bad item', async () => {
    api.reply(() => json([reservationBody({ id: 1 }), reservationBody({ id: 'x' })]));
    const error = await api
      .client()
      .reservations.list(7)
      .toArray()
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.field).toBe('1.id');
  });

  it('applies time filters itself as well as sending them', async () => {
    api.reply(() =>
      json([
        reservationBody({ id: 1, start_time: '2026-12-05T18:00:00+01:00' }),
        reservationBody({ id: 2, start_time: '2026-12-05T21:00:00+01:00' }),
      ]),
    );
    const items = await api
      .client()
      .reservations.list(7, { start_time_after: '2026-12-05T20:00:00+01:00' })
      .toArray();
    expect(items.map((item) => item.id)).toEqual([2]);
    expect(api.calls[0]!.url.searchParams.get('start_time_after')).toBe('2026-12-05T20:00:00+01:00');
  });
});

describe('reservations.list filters', () => {
  it('reads offset-less values in the cached restaurant zone', async () => {
    api.reply(
      () => json([restaurantBody()]),
      () =>
        json([
          reservationBody({ id: 1, start_time: '2026-07-05T19:00:00' }),
          reservationBody({ id: 2, start_time: '2026-07-05T21:00:00' }),
        ]),
    );
    const client = api.client();
    await client.restaurants.list().toArray();
    // 18:30 UTC is 20:30 in Brussels (summer): only the 21:00 local reservation is after it.
    const items = await client.reservations
      .list(7, { start_time_after: new Date('2026-07-05T18:30:00Z') })
      .toArray();
    expect(items.map((item) => item.id)).toEqual([2]);
  });

  it('bad filters and ids reject without a request', async () => {
    const client = api.client();
    await expect(client.reservations.list(7, { page_size: 0 }).toArray()).rejects.toMatchObject({
      name: 'InputValidationError',
      field: 'page_size',
    });
    await expect(client.reservations.list(0)).rejects.toMatchObject({
      name: 'InputValidationError',
      field: 'restaurant_id',
    });
    await expect(client.reservations.list(7, { colour: 'red' } as never).toArray()).rejects.toBeInstanceOf(
      InputValidationError,
    );
    expect(api.calls).toHaveLength(0);
  });
});

describe('reservations.create', () => {
  it('POSTs the body in the restaurant zone with Idempotency-Key header and the same key in metadata', async () => {
    api.reply(
      RESTAURANTS,
      () => json([]),
      (call) => json(reservationBody({ ...(call.body as object), id: 9 }), 201),
    );
    const reservation = await api
      .client()
      .reservations.create(
        7,
        { ...base, first_name: 'Ada', metadata: { order: 'A-1' } },
        { idempotencyKey: 'order-A-1' },
      );
    expect(reservation.id).toBe(9);
    // The caller's own key is looked up before the first send, in pages of 100: a list answered
    // whole in one page is one snapshot, so one read tells.
    expect(api.calls.slice(1, 2).map((call) => `${call.method} ${call.route}`)).toEqual([
      'GET /restaurants/7/reservations/?page_size=100',
    ]);
    const post = api.calls[2]!;
    expect(post.method).toBe('POST');
    expect(post.route).toBe('/restaurants/7/reservations/');
    expect(post.headers.get('idempotency-key')).toBe('order-A-1');
    expect(post.headers.get('content-type')).toContain('application/json');
    expect(post.body).toEqual({
      start_time: '2026-12-05T19:30:00+01:00',
      adults: 2,
      children: 0,
      first_name: 'Ada',
      metadata: {
        order: 'A-1',
        [IDEMPOTENCY_METADATA_KEY]: 'order-A-1',
        [FINGERPRINT_METADATA_KEY]: expect.stringMatching(/^[0-9a-f]{32}$/),
      },
    });
  });

  it('generates a UUID key when none is given, and opts out of the metadata copy', async () => {
    api.reply(RESTAURANTS, (call) => json(reservationBody(call.body as object), 200));
    await api.client({ idempotencyMetadata: false }).reservations.create(7, base);
    const post = api.calls[1]!;
    expect(post.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect((post.body as Record<string, unknown>).metadata).toBeUndefined();
  });

  it('reads the restaurant timezone once per client (cached)', async () => {
    api.reply(
      RESTAURANTS,
      (call) => json(reservationBody(call.body as object), 201),
      (call) => json(reservationBody(call.body as object), 201),
    );
    const client = api.client();
    await client.reservations.create(7, base);
    await client.reservations.create(7, { ...base, start_time: '2026-07-05T19:30:00' });
    expect(api.calls.map((call) => call.method)).toEqual(['GET', 'POST', 'POST']);
    expect((api.calls[2]!.body as { start_time: string }).start_time).toBe('2026-07-05T19:30:00+02:00');
  });

  it('accepts create answered 200 or 201', async () => {
    for (const status of [200, 201]) {
      api.reply(RESTAURANTS, (call) =>
        json(reservationBody({ ...(call.body as object), id: status }), status),
      );
      expect((await api.client().reservations.create(7, base)).id).toBe(status);
    }
  });

  it('accepts duration as PT2H and as HH:MM:SS, and keeps unknown fields', async () => {
    for (const duration of ['PT2H', '02:00:00']) {
      api.reply(RESTAURANTS, createdAnswer({ duration, table_number: 12 }));
      const reservation = await api.client().reservations.create(7, base);
      expect(reservation.duration).toBe(duration);
      // Kept at run time, though not part of the exact type.
      expect((reservation as unknown as Record<string, unknown>).table_number).toBe(12);
    }
  });

  it('a 201 with an empty or unreadable body is read back by its key instead of failing', async () => {
    let key = '';
    api.reply(
      RESTAURANTS,
      (call) => {
        key = call.headers.get('idempotency-key')!;
        return empty(201);
      },
      () => json([reservationBody({ id: 12, metadata: { [IDEMPOTENCY_METADATA_KEY]: key } })]),
    );
    expect((await api.client().reservations.create(7, base)).id).toBe(12);
    expect(api.calls.filter((call) => call.method === 'POST')).toHaveLength(1);
  });

  it('a 201 with an unreadable body and nothing found after the settle window is ambiguous, never a plain failure', async () => {
    const clock = createManualClock({ autoAdvance: true });
    api.always((call) =>
      call.method === 'POST'
        ? json({ id: 'not-a-number' }, 201)
        : call.route === '/restaurants/'
          ? RESTAURANTS()
          : json([]),
    );
    const error = await api
      .client({ clock })
      .reservations.create(7, base)
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(AmbiguousCreateError);
    expect(error.cause).toBeInstanceOf(ResponseValidationError);
    // Look-ups at once, then spread over the 10 s settle window on the client's clock.
    expect(clock.sleeps).toEqual([1000, 2000, 3000, 4000]);
    expect(api.calls.filter((call) => call.method === 'POST')).toHaveLength(1);
  });

  describe('input rules at their boundaries, with no request sent', () => {
    const refused: [string, Record<string, unknown>, string][] = [
      ['adults 0', { adults: 0 }, 'adults'],
      ['adults 51', { adults: 51 }, 'adults'],
      ['adults missing', { adults: undefined }, 'adults'],
      ['adults 1.5', { adults: 1.5 }, 'adults'],
      ['children -1', { children: -1 }, 'children'],
      ['children 51', { children: 51 }, 'children'],
      ['first_name 256', { first_name: 'a'.repeat(256) }, 'first_name'],
      ['last_name 256', { last_name: 'a'.repeat(256) }, 'last_name'],
      ['phone 129', { phone: '1'.repeat(129) }, 'phone'],
      ['start_time missing', { start_time: undefined }, 'start_time'],
      ['start_time garbage', { start_time: 'tomorrow evening' }, 'start_time'],
    ];
    it.each(refused)('refuses %s', async (_label, change, field) => {
      const error = await api
        .client()
        .reservations.create(7, { ...base, ...change })
        .catch((caught) => caught);
      expect(error).toBeInstanceOf(InputValidationError);
      expect(error.field).toBe(field);
      expect(error.issues[0].code).toMatch(/too_big|too_small|invalid_type|invalid_union|invalid_format/);
      expect(error.message).toContain(field);
      expect(api.calls).toHaveLength(0);
    });

    const accepted: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ['adults 1', { adults: 1 }, { adults: 1 }],
      ['adults 50', { adults: 50 }, { adults: 50 }],
      ['children 0', { children: 0 }, { children: 0 }],
      ['children 50', { children: 50 }, { children: 50 }],
      ['children omitted -> 0', {}, { children: 0 }],
      [
        'names 255',
        { first_name: 'a'.repeat(255), last_name: 'b'.repeat(255) },
        { first_name: 'a'.repeat(255) },
      ],
      ['phone 128', { phone: '1'.repeat(128) }, { phone: '1'.repeat(128) }],
    ];
    it.each(accepted)('accepts %s', async (_label, change, expected) => {
      api.reply(RESTAURANTS, (call) => json(reservationBody(call.body as object), 201));
      await api.client().reservations.create(7, { ...base, ...change });
      expect(api.calls[1]!.body).toMatchObject(expected);
    });

    it('refuses a bad restaurant id and a "." id without a request', async () => {
      const client = api.client();
      await expect(client.reservations.create('..', base)).rejects.toMatchObject({
        name: 'InputValidationError',
        field: 'restaurant_id',
      });
      await expect(client.reservations.cancel(7, '../../webhooks')).rejects.toBeInstanceOf(
        InputValidationError,
      );
      expect(api.calls).toHaveLength(0);
    });
  });

  it('maps 409 no_availability (in code, error or detail) to NoAvailabilityError', async () => {
    for (const body of [
      { detail: 'No table', code: 'no_availability' },
      { error: 'no_availability' },
      { detail: 'no_availability' },
    ]) {
      api.reply(RESTAURANTS, () => json(body, 409));
      api.always(() => json([]));
      const error = await api
        .client()
        .reservations.create(7, base)
        .catch((caught) => caught);
      expect(error).toBeInstanceOf(NoAvailabilityError);
      expect(error.status).toBe(409);
      expect(api.calls.filter((call) => call.method === 'POST')).toHaveLength(1);
      // A refusal may answer a create a gateway forwarded twice: the key is looked up before it is reported.
      expect(api.calls.at(-1)!.route).toBe('/restaurants/7/reservations/?page_size=100');
      api.calls.length = 0;
    }
  });

  it('maps 400 and 422 to BadRequestError with field errors and never retries them', async () => {
    for (const status of [400, 422]) {
      api.reply(RESTAURANTS, () => json({ start_time: ['Outside opening hours.'] }, status));
      api.always(() => json([]));
      const error = await api
        .client()
        .reservations.create(7, base)
        .catch((caught) => caught);
      expect(error).toBeInstanceOf(BadRequestError);
      expect(error.fieldErrors).toEqual({ start_time: ['Outside opening hours.'] });
      expect(error.attempts).toBe(1);
      api.calls.length = 0;
    }
  });

  it('after a 500 looks the reservation up by key and returns it instead of sending again', async () => {
    let key = '';
    api.reply(
      RESTAURANTS,
      (call) => {
        key = call.headers.get('idempotency-key')!;
        return json({ detail: 'boom' }, 500);
      },
      () => json([reservationBody({ id: 77, metadata: { [IDEMPOTENCY_METADATA_KEY]: key } })]),
    );
    const reservation = await api.client().reservations.create(7, base);
    expect(reservation.id).toBe(77);
    expect(api.calls.map((call) => `${call.method} ${call.route}`)).toEqual([
      'GET /restaurants/',
      'POST /restaurants/7/reservations/',
      'GET /restaurants/7/reservations/?page_size=100',
    ]);
  });

  it('after a 500 with no reservation carrying the key, never sends again: AmbiguousCreateError with the key', async () => {
    api.always((call) =>
      call.method === 'POST'
        ? json({ detail: 'boom' }, 503)
        : call.route === '/restaurants/'
          ? RESTAURANTS()
          : json([reservationBody({ id: 1, metadata: { [IDEMPOTENCY_METADATA_KEY]: 'someone-else' } })]),
    );
    const error = await api
      .client()
      .reservations.create(7, base)
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(AmbiguousCreateError);
    expect(error.cause).toBeInstanceOf(ServerError);
    expect(api.calls.filter((call) => call.method === 'POST')).toHaveLength(1);
  });

  it('hands its per-call options to its sub-requests: maxRetries reaches the timezone look-up and the look-up by key', async () => {
    api.reply(() => json({ detail: 'busy' }, 503));
    const timezoneFailure = await api
      .client({ maxRetries: 5 })
      .reservations.create(7, base, { maxRetries: 0 })
      .catch((caught) => caught);
    expect(timezoneFailure).toBeInstanceOf(ServerError);
    expect(api.calls).toHaveLength(1);
    api.calls.length = 0;
    api.reply(RESTAURANTS, () => json({ detail: 'busy' }, 503));
    const lookupFailure = await api
      .client({ maxRetries: 5 })
      .reservations.create(7, base, { maxRetries: 0, idempotencyKey: 'order-7' })
      .catch((caught) => caught);
    expect(lookupFailure).toBeInstanceOf(AmbiguousCreateError);
    expect(api.calls.map((call) => `${call.method} ${call.route}`)).toEqual([
      'GET /restaurants/',
      'GET /restaurants/7/reservations/?page_size=100',
    ]);
  });

  it('with idempotencyKeyHonoured, a 5xx is retried with the same key', async () => {
    api.reply(
      RESTAURANTS,
      () => json({ detail: 'boom' }, 503),
      (call) =>
        json(reservationBody({ id: 2, metadata: (call.body as { metadata: unknown }).metadata }), 201),
    );
    const reservation = await api.client({ idempotencyKeyHonoured: true }).reservations.create(7, base);
    expect(reservation.id).toBe(2);
    const posts = api.calls.filter((call) => call.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts[0]!.headers.get('idempotency-key')).toBe(posts[1]!.headers.get('idempotency-key'));
  });

  it('after a dropped connection, looks the key up and never sends again', async () => {
    api.reply(RESTAURANTS, () => HttpResponse.error());
    api.always(() => json([]));
    const error = await api
      .client()
      .reservations.create(7, base)
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(AmbiguousCreateError);
    expect(api.calls.map((call) => call.method)).toEqual(['GET', 'POST', 'GET', 'GET', 'GET', 'GET', 'GET']);
  });

  it('after a timeout with no reservation found, throws AmbiguousCreateError carrying the key and never resends', async () => {
    api.reply(
      RESTAURANTS,
      () => json([]),
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        return json(reservationBody(), 201);
      },
    );
    api.always(() => json([]));
    // 250 ms: long enough for the POST to reach the server on a busy machine, well short of its answer.
    const error = await api
      .client({ timeoutMs: 250 })
      .reservations.create(7, base, { idempotencyKey: 'k-1' })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(AmbiguousCreateError);
    expect(error.idempotencyKey).toBe('k-1');
    expect(error.restaurantId).toBe(7);
    expect(error.cause).toBeInstanceOf(TimeoutError);
    expect(api.calls.filter((call) => call.method === 'POST')).toHaveLength(1);
  });

  it('after a timeout, returns the reservation when the lookup finds it', async () => {
    api.reply(
      RESTAURANTS,
      () => json([]),
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        return json(reservationBody(), 201);
      },
      () => json([reservationBody({ id: 88, metadata: { [IDEMPOTENCY_METADATA_KEY]: 'k-2' } })]),
    );
    const reservation = await api
      .client({ timeoutMs: 250 })
      .reservations.create(7, base, { idempotencyKey: 'k-2' });
    expect(reservation.id).toBe(88);
  });

  it('when the lookup itself fails, throws AmbiguousCreateError', async () => {
    api.reply(
      RESTAURANTS,
      () => json({ detail: 'boom' }, 500),
      () => json({ detail: 'denied' }, 403),
    );
    const error = await api
      .client()
      .reservations.create(7, base)
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(AmbiguousCreateError);
    expect(api.calls.filter((call) => call.method === 'POST')).toHaveLength(1);
  });

  it('with idempotencyMetadata off, a 500 is ambiguous at once (nothing to look up)', async () => {
    api.reply(RESTAURANTS, () => json({ detail: 'boom' }, 500));
    const error = await api
      .client({ idempotencyMetadata: false })
      .reservations.create(7, base)
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(AmbiguousCreateError);
    expect(api.calls).toHaveLength(2);
  });

  it('after a 429 on create, looks the key up over the settle window and, every read agreeing it is absent, retries with the same key', async () => {
    const clock = createManualClock({ autoAdvance: true });
    api.reply(RESTAURANTS, () => json({ detail: 'slow down' }, 429, { 'retry-after': '3' }));
    api.always((call) =>
      call.method === 'POST'
        ? json(reservationBody(call.body as object), 201)
        : json({ count: 0, next: null, results: [] }),
    );
    await api.client({ clock }).reservations.create(7, base);
    // A gateway may have forwarded the create before answering 429, and a replica may show it late:
    // five reads spread over the 10 s window, then the same create again.
    expect(api.calls.map((call) => call.method)).toEqual([
      'GET',
      'POST',
      'GET',
      'GET',
      'GET',
      'GET',
      'GET',
      'POST',
    ]);
    const posts = api.calls.filter((call) => call.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts[0]!.headers.get('idempotency-key')).toBe(posts[1]!.headers.get('idempotency-key'));
    expect(clock.sleeps.reduce((sum, ms) => sum + ms, 0)).toBeGreaterThanOrEqual(10_000);
  });

  it('with idempotencyKeyHonoured, gives up after maxRetries 500s and, nothing found, is ambiguous', async () => {
    api.always((call) =>
      call.method === 'POST'
        ? json({ detail: 'boom' }, 500)
        : call.route.startsWith('/restaurants/7')
          ? json([])
          : RESTAURANTS(),
    );
    const error = await api
      .client({ maxRetries: 1, idempotencyKeyHonoured: true })
      .reservations.create(7, base)
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(AmbiguousCreateError);
    expect(error.attempts).toBe(2);
    expect(api.calls.filter((call) => call.method === 'POST')).toHaveLength(2);
  });
});

describe('reservations.findByIdempotencyKey', () => {
  it('finds the reservation across pages, or null', async () => {
    api.reply(
      () => json({ next: '?page=2', results: [reservationBody({ id: 1 })] }),
      () =>
        json({
          next: null,
          results: [reservationBody({ id: 2, metadata: { [IDEMPOTENCY_METADATA_KEY]: 'abc' } })],
        }),
      () => json([]),
      () => json([]),
    );
    const client = api.client();
    expect((await client.reservations.findByIdempotencyKey(7, 'abc'))?.id).toBe(2);
    expect(await client.reservations.findByIdempotencyKey(7, 'abc')).toBeNull();
  });
});

describe('reservations.retrieve', () => {
  it('GETs the detail route', async () => {
    api.reply(() => json(reservationBody({ id: 41 })));
    expect((await api.client().reservations.retrieve(7, 41)).id).toBe(41);
    expect(api.calls[0]!.route).toBe('/restaurants/7/reservations/41/');
  });

  it('falls back to the list when the service has no detail route (405, or 404 without JSON)', async () => {
    for (const answer of [
      () => json({ detail: 'Method "GET" not allowed.' }, 405),
      () => new HttpResponse('<h1>Not Found</h1>', { status: 404, headers: { 'content-type': 'text/html' } }),
    ]) {
      api.reply(answer, () => json([reservationBody({ id: 40 }), reservationBody({ id: 41 })]));
      const { data, response } = await api.client().reservations.retrieve(7, 41).withResponse();
      expect(data.id).toBe(41);
      expect(response).toBeNull();
      api.calls.length = 0;
    }
  });

  it('a JSON 404 is a NotFoundError without fallback', async () => {
    api.reply(() => json({ detail: 'Not found.' }, 404));
    await expect(api.client().reservations.retrieve(7, 41)).rejects.toBeInstanceOf(NotFoundError);
    expect(api.calls).toHaveLength(1);
  });
});

describe('cancel, markArrived, markNoShow', () => {
  it('cancel PATCHes ?action=cancel with {} and returns the reservation, or null without a body', async () => {
    api.reply(
      () => json(reservationBody({ cancelled: true })),
      () => empty(204),
      () => json({ detail: 'cancelled' }),
    );
    const client = api.client();
    expect((await client.reservations.cancel(7, 41))?.cancelled).toBe(true);
    expect(await client.reservations.cancel(7, 41)).toBeNull();
    expect(await client.reservations.cancel(7, 41)).toBeNull();
    expect(api.calls[0]!.method).toBe('PATCH');
    expect(api.calls[0]!.route).toBe('/restaurants/7/reservations/41/?action=cancel');
    expect(api.calls[0]!.body).toEqual({});
  });

  it('markArrived and markNoShow PATCH the flag', async () => {
    api.reply(
      () => json(reservationBody({ arrived: true })),
      () => json(reservationBody({ no_show: true })),
    );
    const client = api.client();
    expect((await client.reservations.markArrived(7, 41))?.arrived).toBe(true);
    expect((await client.reservations.markNoShow('7', '41'))?.no_show).toBe(true);
    expect(api.calls.map((call) => [call.method, call.route, call.body])).toEqual([
      ['PATCH', '/restaurants/7/reservations/41/', { arrived: true }],
      ['PATCH', '/restaurants/7/reservations/41/', { no_show: true }],
    ]);
  });

  it('cancel is retried after a 502 (repeating it does no harm)', async () => {
    api.reply(
      () => json({ detail: 'bad gateway' }, 502),
      () => json(reservationBody({ cancelled: true })),
    );
    expect((await api.client().reservations.cancel(7, 41))?.cancelled).toBe(true);
    expect(api.calls).toHaveLength(2);
  });

  it('a retry refused with 409 after a 502 reads the reservation: done already resolves with it', async () => {
    api.reply(
      () => json({ detail: 'bad gateway' }, 502),
      () =>
        json(
          {
            detail: 'Only a confirmed reservation can be marked as arrived (this one is arrived).',
            code: 'invalid_transition',
          },
          409,
        ),
      () => json(reservationBody({ arrived: true })),
    );
    expect((await api.client().reservations.markArrived(7, 41))?.arrived).toBe(true);
    expect(api.calls.map((call) => [call.method, call.route])).toEqual([
      ['PATCH', '/restaurants/7/reservations/41/'],
      ['PATCH', '/restaurants/7/reservations/41/'],
      ['GET', '/restaurants/7/reservations/41/'],
    ]);
  });

  it('a 409 stays a ConflictError when no earlier attempt could have applied it, or when the reservation shows it was not', async () => {
    api.reply(
      () => json({ detail: 'cannot', code: 'invalid_transition' }, 409),
      () => json({ detail: 'bad gateway' }, 502),
      () => json({ detail: 'cannot', code: 'invalid_transition' }, 409),
      () => json(reservationBody({ no_show: false, cancelled: true })),
    );
    const client = api.client();
    await expect(client.reservations.markNoShow(7, 41)).rejects.toBeInstanceOf(ConflictError);
    await expect(client.reservations.markNoShow(7, 41)).rejects.toBeInstanceOf(ConflictError);
    expect(api.calls.map((call) => call.method)).toEqual(['PATCH', 'PATCH', 'PATCH', 'GET']);
  });
});

describe('waitForConfirmation', () => {
  it('refuses a negative or non-finite intervalMs before any request', async () => {
    const client = api.client();
    for (const intervalMs of [-1, Number.POSITIVE_INFINITY, Number.NaN]) {
      await expect(
        client.reservations.waitForConfirmation(7, 41, { timeoutMs: 1000, intervalMs }),
      ).rejects.toMatchObject({ name: 'InputValidationError', field: 'intervalMs' });
    }
    expect(api.calls).toHaveLength(0);
  });

  it('polls through the clock until confirmed', async () => {
    const clock = createManualClock({ autoAdvance: true });
    api.reply(
      () => json(reservationBody({ confirmed: false })),
      () => json(reservationBody({ confirmed: false })),
      () => json(reservationBody({ confirmed: true })),
    );
    const reservation = await api
      .client({ clock })
      .reservations.waitForConfirmation(7, 41, { timeoutMs: 60_000, intervalMs: 5000 });
    expect(reservation.confirmed).toBe(true);
    expect(clock.sleeps).toEqual([5000, 5000]);
  });

  it('throws ReservationCancelledError when cancelled first', async () => {
    api.reply(() => json(reservationBody({ confirmed: false, cancelled: true })));
    await expect(
      api.client().reservations.waitForConfirmation(7, 41, { timeoutMs: 10_000 }),
    ).rejects.toBeInstanceOf(ReservationCancelledError);
  });

  it('throws TimeoutError at the deadline', async () => {
    api.always(() => json(reservationBody({ confirmed: false })));
    const error = await api
      .client()
      .reservations.waitForConfirmation(7, 41, { deadlineMs: 5000, intervalMs: 2000 })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    // Reads at 0, 2 and 4 s; none is sent once the wait's deadline has passed.
    expect(api.calls).toHaveLength(3);
  });

  it('still accepts timeoutMs, the deprecated name of deadlineMs, and refuses neither given', async () => {
    api.always(() => json(reservationBody({ confirmed: false })));
    const error = await api
      .client()
      .reservations.waitForConfirmation(7, 41, { timeoutMs: 3000, intervalMs: 2000 })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(api.calls).toHaveLength(2);
    await expect(api.client().reservations.waitForConfirmation(7, 41, {})).rejects.toMatchObject({
      name: 'InputValidationError',
      field: 'timeoutMs',
    });
  });

  it('hands its signal, per-read timeout and retries to every read', async () => {
    api.reply(
      () => json({ detail: 'busy' }, 503),
      () => json({ detail: 'busy' }, 503),
    );
    const error = await api
      .client({ maxRetries: 5 })
      .reservations.waitForConfirmation(7, 41, { deadlineMs: 60_000, maxRetries: 1 })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(ServerError);
    expect(api.calls).toHaveLength(2);
  });
});
