/**
 * An adversarial review of `reservations.create` against real node:http servers that ignore
 * Idempotency-Key. Each test states an outcome the promise allows (one booking and success, no
 * booking and a typed error, or at most one booking and AmbiguousCreateError) against an attack
 * the client did not survive before: each failed on the code of its day.
 */
import { Settings } from 'luxon';
import { describe, expect, it } from 'vitest';
import {
  AmbiguousCreateError,
  IdempotencyKeyReuseError,
  InputValidationError,
  PartnerClient,
  silentLogger,
} from 'restaurant-partner-sdk';
import {
  HOSTILE_API,
  restaurantWire,
  slowCreate,
  wellBehaved,
  type HostileRequest,
} from '../support/hostile-server.js';
import { forgetfulLedger, hostileProofs, settle } from './support/balance.js';

const PARTNER_ID = '3c9e1f7a-2b4d-4e6f-8a1c-5d7e9f0a1b2c';
const API_TOKEN = 'review-attack-token-9z8y7x6w';
const input = { start_time: '2026-12-05T19:30:00', adults: 2, first_name: 'Ada' };

const { setUp, expectBalanced } = hostileProofs('review attacks', {
  partnerId: PARTNER_ID,
  apiToken: API_TOKEN,
});

const isList = (request: HostileRequest) =>
  request.method === 'GET' && /\/restaurants\/\d+\/reservations\/$/.test(request.path);
const isRetrieve = (request: HostileRequest) =>
  request.method === 'GET' && /\/restaurants\/\d+\/reservations\/\d+\/$/.test(request.path);

describe('a deadline shorter than the settle window', () => {
  it('deadlineMs 2500, a 429 whose origin commits 1.5 s later: reads cut short by the deadline never count as absent, nothing resent', async () => {
    const { server, client } = await setUp((request, tools) => {
      if (request.method === 'POST' && server.posts().length === 1) {
        tools.commitLater(request, 1_500);
        return tools.json(429, { detail: 'slow' });
      }
      return wellBehaved(request, tools);
    });
    const outcome = await settle(() =>
      client.reservations.create(1, input, { idempotencyKey: 'short-deadline', deadlineMs: 2_500 }),
    );
    server.commitDue();
    expectBalanced('429 with deadline 2.5 s, commit at 1.5 s', server, 'short-deadline', outcome);
  });
});

describe('a look-up refused once is taken for "nothing booked"', () => {
  it('409 after the gateway\'s first try committed, the first list read answered 403: not taken for "nothing booked"', async () => {
    let refusedOnce = false;
    const { server, client } = await setUp((request, tools) => {
      if (request.method === 'POST') {
        tools.commit(request);
        return tools.json(409, { code: 'no_availability', detail: 'No table.' });
      }
      if (isList(request) && server.posts().length > 0 && !refusedOnce) {
        refusedOnce = true;
        return tools.json(403, { detail: 'You do not have permission to perform this action.' });
      }
      return wellBehaved(request, tools);
    });
    const outcome = await settle(() => client.reservations.create(1, input));
    expectBalanced('409 after commit, list 403 once', server, server.bookings[0]!.key!, outcome);
  });
});

describe('idempotencyMetadata: false (the docs advise it for a service that drops metadata)', () => {
  it('504, origin commits 30 s later; a repeat with the key long after the hold: nothing sent again (no look-up can ever tell)', async () => {
    const { server, client, clock } = await setUp(
      (request, tools) => {
        if (request.method === 'POST' && server.posts().length === 1) {
          tools.commitLater(request, 30_000);
          return tools.json(504, { detail: 'gateway timeout' });
        }
        return wellBehaved(request, tools);
      },
      { idempotencyMetadata: false },
    );
    const first = await settle(() => client.reservations.create(1, input, { idempotencyKey: 'nometa-504' }));
    expect(first.error).toBeInstanceOf(AmbiguousCreateError);
    await clock.advance(30_000);
    server.commitDue();
    expect(server.bookings).toHaveLength(1);
    // Past the default 15-minute hold: with no look-up possible, the key stays held.
    await clock.advance(16 * 60_000);
    const repeat = await settle(() => client.reservations.create(1, input, { idempotencyKey: 'nometa-504' }));
    expect(server.bookings, `told ${repeat.value ? 'success' : (repeat.error as Error).name}`).toHaveLength(
      1,
    );
    expect(repeat.error).toBeInstanceOf(AmbiguousCreateError);
  });
});

describe('what AmbiguousCreateError tells', () => {
  it('holdUntil is a Date (the docs compute the backoff from it): a 504 with the origin committing later', async () => {
    const { server, client } = await setUp((request, tools) => {
      if (request.method === 'POST') {
        tools.commitLater(request, 60_000);
        return tools.json(504, { detail: 'gateway timeout' });
      }
      return wellBehaved(request, tools);
    });
    const outcome = await settle(() => client.reservations.create(1, input, { idempotencyKey: 'hold-date' }));
    expectBalanced('504, commit at 60 s', server, 'hold-date', outcome);
    const error = outcome.error as AmbiguousCreateError;
    expect(error).toBeInstanceOf(AmbiguousCreateError);
    expect(error.holdUntil, `holdUntil is ${JSON.stringify(error.holdUntil)}`).toBeInstanceOf(Date);
  });
});

describe('the ledger says booked, the read fails', () => {
  for (const [status, why] of [
    [404, 'a replica behind the primary'],
    [503, 'the read path down for a while'],
  ] as const) {
    it(`a repeat whose retrieve is answered ${status} (${why}): AmbiguousCreateError, nothing sent`, async () => {
      const { server, client } = await setUp((request, tools) => {
        if (isRetrieve(request)) return tools.json(status, { detail: 'Not found.' });
        return wellBehaved(request, tools);
      });
      const key = `booked-${status}`;
      const first = await settle(() => client.reservations.create(1, input, { idempotencyKey: key }));
      expectBalanced('first create', server, key, first);
      const repeat = await settle(() => client.reservations.create(1, input, { idempotencyKey: key }));
      expectBalanced(`repeat, retrieve ${status}`, server, key, repeat);
    });
  }
});

describe('findByIdempotencyKey', () => {
  it('a key that is not a string (an order id passed as a number): InputValidationError naming key', async () => {
    const { server, client } = await setUp(wellBehaved);
    await client.reservations.create(1, input, { idempotencyKey: '42' });
    const found = await client.reservations.findByIdempotencyKey(1, 42 as unknown as string).then(
      (value) => value,
      (error: unknown) => error,
    );
    expect(server.bookings).toHaveLength(1);
    expect(found, 'null says "no booking carries this key"').not.toBeNull();
    expect(found).toBeInstanceOf(InputValidationError);
  });
});

describe('one partner, two spellings', () => {
  it('the same partner id in upper and in lower case, one key, two creates at once: one ledger slot, one booking', async () => {
    const { server, client, clock } = await setUp(slowCreate(200));
    const upper = new PartnerClient({
      baseUrl: server.url,
      partnerId: PARTNER_ID.toUpperCase(),
      apiToken: API_TOKEN,
      rateLimit: false,
      clock,
      logger: silentLogger,
    });
    const [a, b] = await Promise.all([
      settle(() => client.reservations.create(1, input, { idempotencyKey: 'order-case' })),
      settle(() => upper.reservations.create(1, input, { idempotencyKey: 'order-case' })),
    ]);
    expectBalanced('lower-case partner id', server, 'order-case', a);
    expectBalanced('upper-case partner id', server, 'order-case', b);
  });
});

describe('idempotencyKeyHonoured: true skips the fingerprint check', () => {
  it('a key that booked other input in another process, answered by an honouring service with that booking: IdempotencyKeyReuseError', async () => {
    const byKey = new Map<string, Record<string, unknown>>();
    const { server, client } = await setUp(
      (request, tools) => {
        if (request.method === 'POST') {
          const key = String(request.headers['idempotency-key']);
          const earlier = byKey.get(key);
          if (earlier) return tools.json(201, earlier);
          const booked = tools.commit(request);
          byKey.set(key, booked);
          return tools.json(201, booked);
        }
        return wellBehaved(request, tools);
      },
      { idempotencyKeyHonoured: true },
    );
    const three = await client.reservations.create(1, { ...input, adults: 3 }, { idempotencyKey: 'order-h' });
    expect(three.adults).toBe(3);
    const elsewhere = client.withOptions({ bookingLedger: forgetfulLedger });
    const two = await settle(() => elsewhere.reservations.create(1, input, { idempotencyKey: 'order-h' }));
    expect(server.bookings).toHaveLength(1);
    expect(
      two.error,
      `told ${two.value ? `success with a party of ${two.value.adults}` : (two.error as Error).name}`,
    ).toBeInstanceOf(IdempotencyKeyReuseError);
  });
});

describe('a restaurant without a timezone, workers on hosts in different zones', () => {
  it('a 504 in a UTC worker, the repeat in a New York worker sharing the ledger: the same fingerprint, never IdempotencyKeyReuseError', async () => {
    const { server, client, clock } = await setUp((request, tools) => {
      if (request.path === `${HOSTILE_API}/restaurants/`)
        return tools.json(200, [restaurantWire(1, { timezone: null })]);
      if (request.method === 'POST') {
        tools.commitLater(request, 20_000);
        return tools.json(504, { detail: 'gateway timeout' });
      }
      return wellBehaved(request, tools);
    });
    const zone = Settings.defaultZone;
    try {
      Settings.defaultZone = 'UTC';
      const first = await settle(() => client.reservations.create(1, input, { idempotencyKey: 'zones' }));
      expect(first.error).toBeInstanceOf(AmbiguousCreateError);
      await clock.advance(30_000);
      server.commitDue();
      // Another worker, its host in New York (luxon reads a zone-less time in the host's zone).
      Settings.defaultZone = 'America/New_York';
      const repeat = await settle(() => client.reservations.create(1, input, { idempotencyKey: 'zones' }));
      expectBalanced('504, repeat from another zone', server, 'zones', repeat);
    } finally {
      Settings.defaultZone = zone;
    }
  });
});

describe('a list that leaves metadata out (a slimmer list serializer; the 201 and the retrieve carry it)', () => {
  it('a 429 after the commit: reads that show no metadata at all are "cannot tell", never "absent"; nothing resent', async () => {
    const { server, client } = await setUp((request, tools) => {
      if (request.method === 'POST' && server.posts().length === 1) {
        tools.commit(request);
        return tools.json(429, { detail: 'slow' }, { 'retry-after': '1' });
      }
      if (isList(request))
        return tools.json(
          200,
          tools.list().map((booking) => ({ ...booking, metadata: null })),
        );
      return wellBehaved(request, tools);
    });
    const outcome = await settle(() => client.reservations.create(1, input, { idempotencyKey: 'slim-list' }));
    expectBalanced('429 after commit, list without metadata', server, 'slim-list', outcome);
  });
});
