/**
 * Exactly once, without holes: each case is a way an adversarial review booked twice (or handed a
 * refusal while a booking existed), replayed against a real node:http server that ignores
 * Idempotency-Key and commits when the case says. Each counts the bookings on the server against
 * what the client reported (printed at the end): one booking and success, no booking and a typed
 * error, or at most one booking and an error that says it may exist.
 */
import { describe, expect, it } from 'vitest';
import {
  AbortError,
  AmbiguousCreateError,
  IdempotencyKeyReuseError,
  InputValidationError,
  PartnerSdkError,
} from 'restaurant-partner-sdk';
import {
  HOSTILE_API,
  KEY_FIELD,
  restaurantWire,
  wellBehaved,
  type HostileRequest,
} from '../support/hostile-server.js';
import { forgetfulLedger, hostileProofs, settle } from './support/balance.js';

const PARTNER_ID = '8d2f4b6a-1c3e-4a5b-9c7d-0e1f2a3b4c5d';
const API_TOKEN = 'no-holes-token-1a2b3c4d5e6f';
const input = { start_time: '2026-12-05T19:30:00', adults: 2, first_name: 'Ada' };

const { setUp, expectBalanced } = hostileProofs(
  'no holes',
  { partnerId: PARTNER_ID, apiToken: API_TOKEN },
  { alone: true },
);

const isList = (request: HostileRequest) =>
  request.method === 'GET' && /\/restaurants\/\d+\/reservations\/$/.test(request.path);
const posts = (requests: HostileRequest[]) => requests.filter((request) => request.method === 'POST');

describe("the README's recipe: a repeat with error.idempotencyKey", () => {
  it('a create without a key gets a 504 and commits 25 s later; the repeat 3 s after the error sends nothing until the booking shows, then returns it', async () => {
    const { server, client, clock } = await setUp((request, tools) => {
      if (request.method === 'POST') {
        tools.commitLater(request, 25_000);
        return tools.json(504, { detail: 'gateway timeout' });
      }
      return wellBehaved(request, tools);
    });
    const first = await settle(() => client.reservations.create(1, input));
    expect(first.error).toBeInstanceOf(AmbiguousCreateError);
    const key = (first.error as AmbiguousCreateError).idempotencyKey;

    await clock.advance(3_000);
    const repeat = await settle(() => client.reservations.create(1, input, { idempotencyKey: key }));
    expect(repeat.error, 'held: the first may still commit').toBeInstanceOf(AmbiguousCreateError);
    expect((repeat.error as AmbiguousCreateError).sent).toBe('no');
    expect(posts(server.requests)).toHaveLength(1);

    await clock.advance(25_000);
    const later = await settle(() => client.reservations.create(1, input, { idempotencyKey: key }));
    expectBalanced('504, commit after 25 s, repeated with error.idempotencyKey', server, key, later);
    expect(later.value).toBeDefined();
    expect(posts(server.requests)).toHaveLength(1);
  });
});

describe('no door around the protection', () => {
  for (const path of [
    'restaurants/1/reservations/',
    'restaurants/1/reservations',
    '/api/v1/partnership/restaurants/1/reservations/',
    'restaurants/1/Reservations/',
    'restaurants/1/%72eservations/',
    'restaurants//1/reservations/',
  ]) {
    it(`client.request POST ${path}: refused before any request, pointing to reservations.create`, async () => {
      const { server, client } = await setUp((request, tools) => {
        if (request.method === 'POST') {
          tools.commit(request);
          return tools.json(429, { detail: 'slow' }, { 'retry-after': '1' });
        }
        return wellBehaved(request, tools);
      });
      const error = await client
        .request({ method: 'POST', path, body: { start_time: '2026-12-05T19:30:00+01:00', adults: 2 } })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InputValidationError);
      expect((error as InputValidationError).message).toContain('reservations.create');
      expect(server.requests).toHaveLength(0);
    });
  }

  it('client.request still sends other POSTs (a cancel)', async () => {
    const { server, client } = await setUp((request, tools) => tools.json(200, { id: 1, cancelled: true }));
    await client.request({ method: 'POST', path: 'restaurants/1/reservations/1/cancel/' });
    expect(posts(server.requests)).toHaveLength(1);
  });
});

describe('"absent" needs reads that agree across time', () => {
  it('a 429 after the commit, with a list that shows new bookings 2 s late (a read replica): found, one booking', async () => {
    const committedAt = new Map<number, number>();
    const { server, client, clock } = await setUp((request, tools) => {
      if (request.method === 'POST') {
        const booked = tools.commit(request);
        committedAt.set(booked.id as number, clock.now());
        return tools.json(429, { detail: 'slow' }, { 'retry-after': '1' });
      }
      if (isList(request))
        return tools.json(
          200,
          tools
            .list()
            .filter((booking) => clock.now() - (committedAt.get(booking.id as number) ?? 0) >= 2_000),
        );
      return wellBehaved(request, tools);
    });
    const outcome = await settle(() =>
      client.reservations.create(1, input, { idempotencyKey: 'lagging-429' }),
    );
    expectBalanced('429 after commit, list 2 s behind', server, 'lagging-429', outcome);
    expect(outcome.value).toBeDefined();
    expect(posts(server.requests)).toHaveLength(1);
  });

  /**
   * Two servers, pages of two with a count. In the first the key's booking is third and the list
   * shifts while it is read: as page 2 is asked for, a booking leaves page 1 (an "upcoming only"
   * list) and another arrives, so the key's booking moves onto page 1 and the read skips it. In
   * the second the list never moves and the key was never booked. `shifts` picks the server.
   */
  async function pagedWorld(shifts: boolean) {
    let shifted = false;
    const answers: string[] = [];
    const { server, client } = await setUp((request, tools) => {
      if (isList(request)) {
        const page = Number(request.url.searchParams.get('page') ?? '1');
        if (shifts && page === 2 && !shifted) {
          shifted = true;
          server.bookings.shift();
          tools.commit({ ...request, body: { ...input, metadata: { [KEY_FIELD]: 'someone-else-new' } } });
        }
        const all = tools.list();
        const results = all.slice((page - 1) * 2, page * 2);
        const next = page * 2 < all.length ? `${request.url.pathname}?page=${page + 1}` : null;
        const answer = { count: all.length, next, previous: null, results };
        answers.push(JSON.stringify(answer));
        return tools.json(200, answer);
      }
      return wellBehaved(request, tools);
    });
    const seed = (key: string, id = server.bookings.length + 100) =>
      server.bookings.push({
        id,
        key,
        body: { ...input, start_time: '2026-12-05T19:30:00+01:00', metadata: { [KEY_FIELD]: key } },
      });
    seed('first');
    seed('second');
    if (shifts) {
      seed('shifting');
      seed('fourth');
    } else {
      seed('fourth', 103);
      // What the shifting server's arrival looks like: the hostile server's first id, its body as sent.
      server.bookings.push({
        id: 1,
        key: 'someone-else-new',
        body: { ...input, metadata: { [KEY_FIELD]: 'someone-else-new' } },
      });
    }
    const outcome = await settle(() => client.reservations.create(1, input, { idempotencyKey: 'shifting' }));
    return { server, outcome, answers };
  }

  it('a list that shifts between pages while its count holds (one leaves page 1 as another arrives): the key is found, nothing sent', async () => {
    const { server, outcome } = await pagedWorld(true);
    expect(outcome.value?.id).toBe(102);
    expect(posts(server.requests)).toHaveLength(0);
  });

  it('why a list of several pages is read twice before the first send: one read of the shifting list answers exactly as one of a list without the key', async () => {
    const shifting = await pagedWorld(true);
    const still = await pagedWorld(false);
    // The first read (pages 1 and 2) of both servers, answer for answer: no rule looking at one
    // read can tell them apart, so one that said "absent" after it would book the key twice on
    // the first. The second read tells: the shifting list shows the key, the still one agrees.
    expect(shifting.answers.slice(0, 2)).toEqual(still.answers.slice(0, 2));
    expect(shifting.outcome.value?.id).toBe(102);
    expect(posts(shifting.server.requests)).toHaveLength(0);
    expect(still.outcome.value).toBeDefined();
    expect(posts(still.server.requests)).toHaveLength(1);
    // Its cost: two reads of two pages, then the POST.
    expect(still.server.requests.filter(isList)).toHaveLength(4);
  });
});

describe('a refusal that may follow a commit is looked up before it is reported', () => {
  for (const [status, body] of [
    [409, { detail: 'Conflict.' }],
    [409, { code: 'no_availability', detail: 'No table.' }],
    [400, { detail: 'Invalid.' }],
    [404, { detail: 'Not found.' }],
    [401, { detail: 'Invalid credentials.' }],
  ] as const) {
    for (const own of [true, false]) {
      it(`${status} ${JSON.stringify(body)} after the gateway's first try committed, ${own ? "the caller's key" : 'a random key'}: the booking, once`, async () => {
        const { server, client } = await setUp((request, tools) => {
          if (request.method === 'POST') {
            tools.commit(request);
            return tools.json(status, body);
          }
          return wellBehaved(request, tools);
        });
        const outcome = await settle(() =>
          client.reservations.create(1, input, own ? { idempotencyKey: `refused-${status}` } : {}),
        );
        const key = server.bookings[0]!.key!;
        expectBalanced(`${status} after commit`, server, key, outcome);
        expect(outcome.value).toBeDefined();
      });
    }
  }

  it('a 409 with nothing booked: the NoAvailabilityError as thrown, after the reads agree', async () => {
    const { server, client } = await setUp((request, tools) => {
      if (request.method === 'POST') return tools.json(409, { code: 'no_availability', detail: 'No table.' });
      return wellBehaved(request, tools);
    });
    const outcome = await settle(() => client.reservations.create(1, input, { idempotencyKey: 'full' }));
    expect((outcome.error as Error).name).toBe('NoAvailabilityError');
    expect(server.bookings).toHaveLength(0);
    expect(server.requests.filter(isList).length).toBeGreaterThanOrEqual(2);
  });
});

describe('the fingerprint is the booking', () => {
  it('the same key at another restaurant: IdempotencyKeyReuseError, nothing sent', async () => {
    const { server, client } = await setUp((request, tools) => {
      if (request.path === `${HOSTILE_API}/restaurants/`)
        return tools.json(200, [restaurantWire(1), restaurantWire(2)]);
      return wellBehaved(request, tools);
    });
    await client.reservations.create(1, input, { idempotencyKey: 'order-9' });
    const error = await client.reservations
      .create(2, input, { idempotencyKey: 'order-9' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(IdempotencyKeyReuseError);
    expect((error as IdempotencyKeyReuseError).fields).toContain('restaurant');
    expect(posts(server.requests)).toHaveLength(1);
  });

  it('a redelivery after the restaurant changed the party size is accepted the same way in this process and in another; other input is refused in both', async () => {
    const { server, client } = await setUp(wellBehaved);
    const booked = await client.reservations.create(1, input, { idempotencyKey: 'order-10' });
    // The restaurant seats five instead of two.
    server.bookings[0]!.body = { ...server.bookings[0]!.body, adults: 5 };
    const elsewhere = client.withOptions({ bookingLedger: forgetfulLedger });

    for (const [name, each] of [
      ['this process', client],
      ['another process', elsewhere],
    ] as const) {
      const again = await each.reservations.create(1, input, { idempotencyKey: 'order-10' });
      expect(again.id, name).toBe(booked.id);
      expect(again.adults, name).toBe(5);
      const other = await each.reservations
        .create(1, { ...input, adults: 3 }, { idempotencyKey: 'order-10' })
        .catch((caught: unknown) => caught);
      expect(other, name).toBeInstanceOf(IdempotencyKeyReuseError);
    }
    expect(posts(server.requests)).toHaveLength(1);
  });
});

describe('an abort during the look-up before the first send', () => {
  it('surfaces as the abort, with nothing sent', async () => {
    const controller = new AbortController();
    const { server, client } = await setUp((request, tools) => {
      if (isList(request)) {
        // The caller gives up while the look-up is on its way.
        controller.abort();
        return undefined;
      }
      return wellBehaved(request, tools);
    });
    const error = await client.reservations
      .create(1, input, { idempotencyKey: 'aborted-early', signal: controller.signal })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AbortError);
    expect(error).not.toBeInstanceOf(AmbiguousCreateError);
    expect((error as PartnerSdkError).message).not.toContain(API_TOKEN);
    expect(posts(server.requests)).toHaveLength(0);
  });
});
