/**
 * Exactly once, against real node:http servers that ignore Idempotency-Key: a 429 after the
 * booking was committed, a list that changes between two pages, a 2xx carrying another
 * reservation, a key reused for another booking, two clients spelling the service's host
 * differently, two copies of the package in one process. Each case counts the bookings on the
 * server against what the client reported (printed at the end).
 */
import { mkdir, rm } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AmbiguousCreateError,
  IdempotencyKeyReuseError,
  isIdempotencyKeyReuseError,
  PartnerClient,
  PartnerSdkError,
} from 'restaurant-partner-sdk';
import {
  HOSTILE_API,
  bookingWire,
  slowCreate,
  wellBehaved,
  type Booking,
  type HostileHandler,
  type HostileRequest,
} from '../support/hostile-server.js';
import { forgetfulLedger, hostileProofs, settle } from './support/balance.js';

const PARTNER_ID = '5b0c9e2a-3d4f-4a1b-8c7d-6e5f4a3b2c1d';
const API_TOKEN = 'exactly-once-token-7f6e5d4c3b2a';
const input = { start_time: '2026-12-05T19:30:00', adults: 2, first_name: 'Ada' };

const { setUp, expectBalanced, counts } = hostileProofs(
  'exactly once',
  { partnerId: PARTNER_ID, apiToken: API_TOKEN },
  { alone: true },
);

const isList = (request: HostileRequest) =>
  request.method === 'GET' && request.path.endsWith('/reservations/');

describe('a 429 answered after the booking was committed (a gateway throttling after forwarding)', () => {
  it('every POST answered 429 after committing: the first booking is found by its key, one POST, one booking, success', async () => {
    const { server, client } = await setUp((request, tools) => {
      if (request.method === 'POST') {
        tools.commit(request);
        return tools.json(429, { detail: 'Request was throttled.' }, { 'retry-after': '1' });
      }
      return wellBehaved(request, tools);
    });
    const outcome = await settle(() => client.reservations.create(1, input, { idempotencyKey: '429-every' }));
    expectBalanced('429 after commit, every attempt', server, '429-every', outcome);
    expect(outcome.value).toBeDefined();
    expect(server.posts()).toHaveLength(1);
  });

  it('only the first POST answered 429 after committing: one booking, success', async () => {
    let posts = 0;
    const { server, client } = await setUp((request, tools) => {
      if (request.method === 'POST' && ++posts === 1) {
        tools.commit(request);
        return tools.json(429, { detail: 'Request was throttled.' });
      }
      return wellBehaved(request, tools);
    });
    const outcome = await settle(() => client.reservations.create(1, input));
    expectBalanced(
      '429 after commit, first attempt only',
      server,
      (outcome.value?.metadata?.['restaurant_partner_sdk.idempotency_key'] as string) ?? '',
      outcome,
    );
    expect(outcome.value).toBeDefined();
    expect(server.posts()).toHaveLength(1);
  });

  it('a 429 before committing, the whole list read without the key: sent again, one booking', async () => {
    let posts = 0;
    const { server, client } = await setUp((request, tools) =>
      request.method === 'POST' && ++posts === 1
        ? tools.json(429, { detail: 'Request was throttled.' })
        : wellBehaved(request, tools),
    );
    const outcome = await settle(() =>
      client.reservations.create(1, input, { idempotencyKey: '429-before' }),
    );
    expectBalanced('429 before commit', server, '429-before', outcome);
    expect(server.posts()).toHaveLength(2);
  });

  it('every POST answered 429 after committing, and the look-up cannot read the list: AmbiguousCreateError, one POST', async () => {
    const { server, client } = await setUp(
      (request, tools) => {
        if (request.method === 'POST') {
          tools.commit(request);
          return tools.json(429, { detail: 'Request was throttled.' });
        }
        if (isList(request)) return tools.json(500, { detail: 'boom' });
        return wellBehaved(request, tools);
      },
      { createLookupWindowMs: 0, maxRetries: 1 },
    );
    // A random key: no look-up before sending, so the one after the 429 is the one that fails.
    const outcome = await settle(() => client.reservations.create(1, input));
    expect(outcome.error).toBeInstanceOf(AmbiguousCreateError);
    expectBalanced(
      '429 after commit, list failing',
      server,
      (outcome.error as AmbiguousCreateError).idempotencyKey,
      outcome,
    );
    expect(server.posts()).toHaveLength(1);
  });
});

/**
 * 100 reservations, 50 a page, in an envelope with `count`; ours is the first of page 2. Between
 * the first read of page 1 and the read of page 2, the restaurant removes one reservation of page 1:
 * ours moves to page 1, which was already read, and `count` becomes 99, what the pages add up to.
 */
function shiftingList(
  ours: string | undefined,
  server: () => { bookings: Booking[] },
): { handler: HostileHandler; removed: () => boolean; seed(): void } {
  let removed = false;
  let firstPageReads = 0;
  return {
    removed: () => removed,
    seed() {
      for (let index = 0; index < 100; index += 1) {
        const key = index === 50 ? ours : `other-${index}`;
        server().bookings.push({
          id: 1000 + index,
          key,
          body: {
            start_time: '2026-12-05T19:30:00+01:00',
            adults: 2,
            first_name: 'Ada',
            metadata: key === undefined ? null : { 'restaurant_partner_sdk.idempotency_key': key },
          },
        });
      }
    },
    handler: (request, tools) => {
      if (isList(request)) {
        const page = Number(request.url.searchParams.get('page') ?? '1');
        if (page === 1) firstPageReads += 1;
        if (page === 2 && firstPageReads === 1 && !removed) {
          removed = true;
          server().bookings.splice(0, 1);
        }
        const all = tools.list();
        const next =
          page * 50 < all.length ? `${request.url.origin}${request.url.pathname}?page=${page + 1}` : null;
        return tools.json(200, {
          count: all.length,
          next,
          previous: null,
          results: all.slice((page - 1) * 50, page * 50),
        });
      }
      return wellBehaved(request, tools);
    },
  };
}

describe('a look-up says "absent" only after a complete and consistent read', () => {
  it('the list changes between pages (count 100 then 99): findByIdempotencyKey reads again and finds it', async () => {
    // Read only once requests arrive, after setUp has answered.
    const list = shiftingList('moving-key', () => setup.server);
    const setup = await setUp((request, tools) => list.handler(request, tools));
    const server = setup.server;
    list.seed();
    const found = await setup.client.reservations.findByIdempotencyKey(1, 'moving-key');
    expect(list.removed()).toBe(true);
    expect(found?.id).toBe(1050);
    // Page 1, page 2 (count changed), then a second pass that finds it on page 1.
    expect(server.requests.filter(isList).length).toBe(3);
  });

  it('the same change under a repeated create with the caller key: the booking is returned, nothing sent', async () => {
    // Read only once requests arrive, after setUp has answered.
    const list = shiftingList('moving-create', () => setup.server);
    const setup = await setUp((request, tools) => list.handler(request, tools), {
      bookingLedger: forgetfulLedger,
    });
    const server = setup.server;
    list.seed();
    const outcome = await settle(() =>
      setup.client.reservations.create(
        1,
        { ...input, start_time: '2026-12-05T19:30:00+01:00' },
        { idempotencyKey: 'moving-create' },
      ),
    );
    expect(list.removed()).toBe(true);
    expect(outcome.value?.id).toBe(1050);
    expect(server.posts()).toHaveLength(0);
    counts.push(
      `  list changing between pages, repeat with the key: ${server.bookings.length} booked (1 with the key), 0 POST, told success #${outcome.value?.id}`,
    );
  });

  it('pages without count that disagree between two reads: "cannot tell", never absent', async () => {
    let reads = 0;
    const { client, server } = await setUp((request, tools) => {
      if (isList(request)) {
        const page = Number(request.url.searchParams.get('page') ?? '1');
        if (page === 1) reads += 1;
        // Every read of page 2 shows another reservation: the list keeps changing.
        const results =
          page === 1
            ? [
                {
                  ...bookingWire({
                    id: 1,
                    key: 'a',
                    body: { start_time: '2026-12-05T19:30:00+01:00', adults: 2 },
                  }),
                },
              ]
            : [
                {
                  ...bookingWire({
                    id: 10 + reads,
                    key: 'b',
                    body: { start_time: '2026-12-05T19:30:00+01:00', adults: 2 },
                  }),
                },
              ];
        return tools.json(200, { next: page === 1 ? `${request.url.pathname}?page=2` : null, results });
      }
      return wellBehaved(request, tools);
    });
    const error = await client.reservations
      .findByIdempotencyKey(1, 'nobody')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PartnerSdkError);
    // Three whole reads of two pages, none agreeing with the one before.
    expect(server.requests.filter(isList)).toHaveLength(6);
  });

  it('pages without count that agree between two reads: absent (null)', async () => {
    const { client, server } = await setUp((request, tools) => {
      if (isList(request)) {
        const page = Number(request.url.searchParams.get('page') ?? '1');
        // Two on the first page, one on the last: a last page that is not full ends the list.
        const results = (page === 1 ? [1, 2] : [3]).map((id) =>
          bookingWire({
            id,
            key: `k${id}`,
            body: { start_time: '2026-12-05T19:30:00+01:00', adults: 2 },
          }),
        );
        return tools.json(200, { next: page === 1 ? `${request.url.pathname}?page=2` : null, results });
      }
      return wellBehaved(request, tools);
    });
    expect(await client.reservations.findByIdempotencyKey(1, 'nobody')).toBeNull();
    expect(server.requests.filter(isList)).toHaveLength(4);
  });

  for (const [name, pages] of [
    ['one page of 50 and no next', [50]],
    ['a last page as full as the first', [20, 20]],
  ] as const) {
    it(`a list without count cut short by the server (${name}): "cannot tell", and a create with the key sends nothing`, async () => {
      // The server holds 60 of the partner's bookings, the key's among the last, and stops early.
      const { client, server } = await setUp((request, tools) => {
        if (isList(request)) {
          const page = Number(request.url.searchParams.get('page') ?? '1');
          const start = pages.slice(0, page - 1).reduce((sum, size) => sum + size, 0);
          const results = Array.from({ length: pages[page - 1] ?? 0 }, (_, index) =>
            bookingWire({
              id: start + index + 1,
              key: `other-${start + index + 1}`,
              body: { start_time: '2026-12-05T19:30:00+01:00', adults: 2 },
            }),
          );
          const next = page < pages.length ? `${request.url.pathname}?page=${page + 1}` : null;
          return tools.json(200, { next, results });
        }
        return wellBehaved(request, tools);
      });
      const error = await client.reservations
        .create(1, input, { idempotencyKey: `cut-short-${pages.length}` })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(AmbiguousCreateError);
      expect((error as AmbiguousCreateError).sent).toBe('no');
      expect(server.requests.filter((request) => request.method === 'POST')).toHaveLength(0);
    });
  }
});

describe("a 2xx is this create's only when it carries its key", () => {
  for (const [name, metadata] of [
    ['no metadata', undefined],
    ['metadata null', null],
    ['another key', { 'restaurant_partner_sdk.idempotency_key': 'someone-else' }],
  ] as const) {
    it(`201 with another reservation (${name}) and nothing booked: AmbiguousCreateError, not success`, async () => {
      const { server, client } = await setUp(
        (request, tools) => {
          if (request.method === 'POST') {
            const foreign: Record<string, unknown> = {
              ...bookingWire({
                id: 777,
                key: undefined,
                body: { start_time: '2026-12-05T19:30:00+01:00', adults: 4 },
              }),
            };
            if (metadata === undefined) delete foreign.metadata;
            else foreign.metadata = metadata;
            return tools.json(201, foreign);
          }
          return wellBehaved(request, tools);
        },
        { createLookupWindowMs: 0 },
      );
      const outcome = await settle(() =>
        client.reservations.create(1, input, { idempotencyKey: `foreign-${name}` }),
      );
      expect(outcome.error).toBeInstanceOf(AmbiguousCreateError);
      expectBalanced(`foreign 2xx (${name}), nothing booked`, server, `foreign-${name}`, outcome);
      expect(server.posts()).toHaveLength(1);
    });

    it(`201 with another reservation (${name}) while ours was booked: ours is found and returned, never the foreign id`, async () => {
      const { server, client } = await setUp((request, tools) => {
        if (request.method === 'POST') {
          tools.commit(request);
          const foreign: Record<string, unknown> = {
            ...bookingWire({
              id: 777,
              key: undefined,
              body: { start_time: '2026-12-05T19:30:00+01:00', adults: 4 },
            }),
          };
          if (metadata === undefined) delete foreign.metadata;
          else foreign.metadata = metadata;
          return tools.json(201, foreign);
        }
        return wellBehaved(request, tools);
      });
      const outcome = await settle(() =>
        client.reservations.create(1, input, { idempotencyKey: `foreign-booked-${name}` }),
      );
      expectBalanced(`foreign 2xx (${name}), ours booked`, server, `foreign-booked-${name}`, outcome);
      expect(outcome.value?.id).not.toBe(777);
      expect(server.posts()).toHaveLength(1);
    });
  }
});

describe('a key reused for another booking', () => {
  for (const [name, change, field] of [
    ['another date', { start_time: '2026-12-06T19:30:00' }, 'start_time'],
    ['another party size', { adults: 3 }, 'adults'],
    ['children given where none were', { children: 2 }, 'children'],
  ] as const) {
    it(`${name}: IdempotencyKeyReuseError naming ${field}, nothing sent, the first booking untouched`, async () => {
      const { server, client } = await setUp(wellBehaved);
      const key = `reused-${field}`;
      const first = await client.reservations.create(1, input, { idempotencyKey: key });
      const requestsBefore = server.requests.length;
      const error = await client.reservations
        .create(1, { ...input, ...change }, { idempotencyKey: key })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(IdempotencyKeyReuseError);
      expect(isIdempotencyKeyReuseError(error)).toBe(true);
      expect(error).toBeInstanceOf(PartnerSdkError);
      expect((error as IdempotencyKeyReuseError).fields).toEqual([field]);
      expect((error as Error).message).toContain(field);
      expect(server.requests.length, 'nothing sent at all').toBe(requestsBefore);
      expect(server.bookings.map((booking) => booking.id)).toEqual([first.id]);
      counts.push(
        `  key reused (${name}): ${server.bookings.length} booked, ${server.posts().length} POST, told ${(error as Error).name}`,
      );
    });
  }

  it('the same booking spelt differently (an offset instead of local time, children 0 given) is a repeat, not a reuse: one retrieve', async () => {
    const { server, client } = await setUp(wellBehaved);
    const first = await client.reservations.create(1, input, { idempotencyKey: 'same-booking' });
    const before = server.requests.length;
    const again = await client.reservations.create(
      1,
      { ...input, start_time: '2026-12-05T18:30:00Z', children: 0 },
      { idempotencyKey: 'same-booking' },
    );
    expect(again.id).toBe(first.id);
    expect(server.requests.slice(before).map((request) => request.method)).toEqual(['GET']);
    expect(server.bookings).toHaveLength(1);
  });

  it('with no ledger that knows the key (another process), the look-up finds the booking and compares it: IdempotencyKeyReuseError, nothing sent', async () => {
    const { server, client } = await setUp(wellBehaved, { bookingLedger: forgetfulLedger });
    await client.reservations.create(1, input, { idempotencyKey: 'reused-elsewhere' });
    const error = await client.reservations
      .create(1, { ...input, adults: 5 }, { idempotencyKey: 'reused-elsewhere' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(IdempotencyKeyReuseError);
    expect((error as IdempotencyKeyReuseError).fields).toEqual(['adults']);
    expect(server.posts()).toHaveLength(1);
    expect(server.bookings).toHaveLength(1);
  });
});

describe('one process, one ledger, however the service is reached', () => {
  it('localhost and 127.0.0.1 are one service: two clients creating with one key at once book once', async () => {
    const { server, client } = await setUp(slowCreate(300));
    const other = new PartnerClient({
      baseUrl: server.url.replace('127.0.0.1', 'localhost'),
      partnerId: PARTNER_ID,
      apiToken: API_TOKEN,
      rateLimit: false,
    });
    const [first, second] = await Promise.all([
      settle(() => client.reservations.create(1, input, { idempotencyKey: 'one-host' })),
      settle(() => other.reservations.create(1, input, { idempotencyKey: 'one-host' })),
    ]);
    expectBalanced('127.0.0.1 and localhost at once', server, 'one-host', first);
    expect(second.value?.id).toBe(first.value?.id);
    expect(server.posts()).toHaveLength(1);
    counts.push(
      `  127.0.0.1 and localhost at once: ${server.bookings.length} booked, ${server.posts().length} POST, told success #${first.value?.id} and #${second.value?.id}`,
    );
  });

  it('a repeat after success costs one retrieve (the ledger knows key -> reservation id)', async () => {
    const { server, client } = await setUp(wellBehaved);
    const first = await client.reservations.create(1, input, { idempotencyKey: 'known' });
    const before = server.requests.length;
    const again = await client.reservations.create(1, input, { idempotencyKey: 'known' });
    expect(again.id).toBe(first.id);
    expect(server.requests.slice(before).map((request) => `${request.method} ${request.path}`)).toEqual([
      `GET ${HOSTILE_API}/restaurants/1/reservations/${first.id}/`,
    ]);
  });
});

describe('two copies of the package in one process share the default ledger', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const copiesDir = `${root}test/.copies-${process.pid}`;
  type Sdk = typeof import('restaurant-partner-sdk');
  let copies: [Sdk, Sdk];
  beforeAll(async () => {
    await mkdir(copiesDir, { recursive: true });
    // Each copy is the whole package bundled on its own (as two versions in node_modules are):
    // its own classes and its own module state.
    const bundle = async (name: string) => {
      const outfile = `${copiesDir}/${name}.mjs`;
      await build({
        entryPoints: [`${root}src/index.ts`],
        bundle: true,
        format: 'esm',
        platform: 'node',
        outfile,
        packages: 'external',
        logLevel: 'silent',
      });
      return (await import(/* @vite-ignore */ `${pathToFileURL(outfile).href}?copy=${name}`)) as Sdk;
    };
    copies = [await bundle('a'), await bundle('b')];
  });
  afterAll(async () => {
    await rm(copiesDir, { recursive: true, force: true });
  });

  it('the copies are distinct (their own classes), yet one create books once across them', async () => {
    const [a, b] = copies;
    expect(a.PartnerClient).not.toBe(b.PartnerClient);
    expect(a.PartnerClient).not.toBe(PartnerClient);
    expect(a.createMemoryBookingLedger()).toBe(b.createMemoryBookingLedger());
    const { server } = await setUp(slowCreate(300));
    const options = {
      baseUrl: server.url,
      partnerId: PARTNER_ID,
      apiToken: API_TOKEN,
      rateLimit: false as const,
    };
    const [first, second] = await Promise.all([
      settle(() =>
        new a.PartnerClient(options).reservations.create(1, input, { idempotencyKey: 'two-copies' }),
      ),
      settle(() =>
        new b.PartnerClient(options).reservations.create(1, input, { idempotencyKey: 'two-copies' }),
      ),
    ]);
    expectBalanced('two module copies at once', server, 'two-copies', first);
    expect(second.value?.id).toBe(first.value?.id);
    expect(server.posts()).toHaveLength(1);
    counts.push(
      `  two module copies at once: ${server.bookings.length} booked, ${server.posts().length} POST, told success #${first.value?.id} and #${second.value?.id}`,
    );
  });
});
