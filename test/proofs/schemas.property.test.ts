/**
 * Property-based proofs over every schema the SDK checks with: whatever a caller passes or a
 * server answers, parsing yields a value or a ZodError naming the field, never anything else; and
 * the documented bounds hold exactly (nothing stricter than the spec, nothing looser).
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ZodMiniType } from 'zod/mini';
import { PartnerProfile, PartnerProfileUpdateInput } from '../../src/resources/profile.schemas.js';
import {
  Reservation,
  ReservationCreateInput,
  ReservationListFilters,
} from '../../src/resources/reservations.schemas.js';
import { Restaurant } from '../../src/resources/restaurants.schemas.js';
import { pageEnvelope } from '../../src/internal/page-envelope.js';
import {
  Webhook,
  WebhookCreateInput,
  WebhookDelivery,
  WebhookUpdateInput,
} from '../../src/resources/webhooks.schemas.js';
import { toFieldIssues } from '../../src/transport/validate.js';
import {
  deliveryEnvelope,
  hostileValue,
  jsonValue,
  objectNear,
  profileResponse,
  reservationResponse,
  restaurantResponse,
  startTimeInput,
  stringLongerThan,
  stringUpTo,
  validCreateInput,
  webhookResponse,
  webhookUrl,
} from './support/arbitraries.js';
import { propertyRuns } from '../support/property-runs.js';

const runs = { numRuns: propertyRuns(300) };

/** Parsing never throws anything but a ZodError, and safeParse never throws at all. */
function assertTotal(schema: ZodMiniType, value: unknown): void {
  const result = schema.safeParse(value);
  if (!result.success) expect(result.error).toBeInstanceOf(z.core.$ZodError);
  try {
    schema.parse(value);
  } catch (error) {
    expect(error).toBeInstanceOf(z.core.$ZodError);
  }
}

const fieldsOf = (error: z.core.$ZodError) => error.issues.map((issue) => issue.path.join('.'));
const refusedAt = (schema: ZodMiniType, value: unknown, field: string) => {
  const result = schema.safeParse(value);
  expect(result.success, `expected ${field} to be refused`).toBe(false);
  expect(
    fieldsOf(result.error!).some((path) => path === field || path.startsWith(`${field}.`)),
    fieldsOf(result.error!).join(),
  ).toBe(true);
};

const inputSchemas = {
  ReservationCreateInput: [
    ReservationCreateInput,
    [
      'start_time',
      'adults',
      'children',
      'first_name',
      'last_name',
      'email',
      'phone',
      'comment',
      'language',
      'metadata',
    ],
  ],
  WebhookCreateInput: [WebhookCreateInput, ['url', 'name', 'is_enabled', 'subscribed_events']],
  WebhookUpdateInput: [WebhookUpdateInput, ['url', 'name', 'is_enabled', 'subscribed_events']],
  PartnerProfileUpdateInput: [PartnerProfileUpdateInput, ['name', 'description', 'website_url']],
  ReservationListFilters: [ReservationListFilters, ['start_time_after', 'start_time_before', 'page_size']],
} as const;

const responseSchemas = {
  Reservation: [Reservation, reservationResponse],
  Restaurant: [Restaurant, restaurantResponse],
  PartnerProfile: [PartnerProfile, profileResponse],
  Webhook: [Webhook, webhookResponse],
  WebhookDelivery: [WebhookDelivery, deliveryEnvelope],
} as const;

describe('every input schema is total: a value or a ZodError, for any JavaScript value', () => {
  for (const [name, [schema, keys]] of Object.entries(inputSchemas)) {
    it(`${name} over arbitrary values`, () => {
      fc.assert(
        fc.property(hostileValue(), (value) => assertTotal(schema, value)),
        runs,
      );
    });
    it(`${name} over objects with its own keys holding arbitrary values`, () => {
      fc.assert(
        fc.property(objectNear(keys), (value) => assertTotal(schema, value)),
        runs,
      );
    });
  }
});

describe('every response schema is total over arbitrary JSON', () => {
  for (const [name, [schema, valid]] of Object.entries(responseSchemas)) {
    it(`${name} over arbitrary JSON values`, () => {
      fc.assert(
        fc.property(jsonValue(), (value) => assertTotal(schema, value)),
        runs,
      );
    });
    it(`${name} over arbitrary JSON text, parsed`, () => {
      fc.assert(
        fc.property(fc.json({ maxDepth: 3 }), (text) => assertTotal(schema, JSON.parse(text))),
        runs,
      );
    });
    it(`${name} over valid objects with one field replaced by arbitrary JSON`, () => {
      const mutated = (valid() as fc.Arbitrary<Record<string, unknown>>).chain((object) =>
        fc
          .tuple(fc.constantFrom(...Object.keys(object)), jsonValue())
          .map(([key, value]) => ({ ...object, [key]: value })),
      );
      fc.assert(
        fc.property(mutated, (value) => assertTotal(schema, value)),
        runs,
      );
    });
  }
});

describe('every answer the spec allows is accepted and kept exactly, unknown fields included', () => {
  for (const [name, [schema, valid]] of Object.entries(responseSchemas)) {
    it(name, () => {
      fc.assert(
        fc.property(valid() as fc.Arbitrary<Record<string, unknown>>, (value) => {
          const result = schema.safeParse(value);
          expect(result.error).toBeUndefined();
          expect(result.data).toEqual(value);
        }),
        runs,
      );
    });
  }

  it('lists are read as a bare array or a {count, next, previous, results} envelope', () => {
    const envelope = pageEnvelope(Reservation);
    const list = z.union([z.array(Reservation), envelope]);
    fc.assert(
      fc.property(
        fc.array(reservationResponse(), { maxLength: 5 }),
        fc.nat(),
        fc.option(fc.webUrl(), { nil: null }),
        (items, count, next) => {
          expect(list.parse(items)).toEqual(items);
          expect(envelope.parse({ count, next, previous: null, results: items }).results).toEqual(items);
        },
      ),
      { numRuns: propertyRuns(100) },
    );
  });
});

describe('a broken required field of an answer is named in the error', () => {
  const required = [
    ['Reservation', Reservation, reservationResponse, ['id', 'start_time']],
    ['Restaurant', Restaurant, restaurantResponse, ['id', 'schema_name']],
    ['PartnerProfile', PartnerProfile, profileResponse, ['uuid']],
    ['Webhook', Webhook, webhookResponse, ['id', 'url']],
  ] as const;
  const notAnInteger = fc.oneof(
    fc.string(),
    fc.double({ noInteger: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.integer(), { maxLength: 2 }),
  );
  for (const [name, schema, valid, fields] of required) {
    for (const field of fields) {
      it(`${name}.${field} missing or of the wrong type`, () => {
        const broken = fc.oneof(
          field === 'id' ? notAnInteger : fc.oneof(fc.integer(), fc.constant(null), fc.boolean()),
          fc.constant(undefined),
        );
        fc.assert(
          fc.property(valid() as fc.Arbitrary<Record<string, unknown>>, broken, (object, value) => {
            const copy = { ...object, [field]: value };
            if (value === undefined) delete copy[field];
            refusedAt(schema, copy, field);
          }),
          { numRuns: propertyRuns(100) },
        );
      });
    }
  }

  it('a reservation start_time that is not an ISO 8601 date-time is refused', () => {
    fc.assert(
      fc.property(
        reservationResponse(),
        fc.string().filter((text) => !/^\d{4}-\d{2}-\d{2}T/.test(text)),
        (object, text) => refusedAt(Reservation, { ...object, start_time: text }, 'start_time'),
      ),
      { numRuns: propertyRuns(100) },
    );
  });

  it('last_response_status_code above 32767 is refused', () => {
    fc.assert(
      fc.property(webhookResponse(), fc.integer({ min: 32768 }), (object, status) =>
        refusedAt(Webhook, { ...object, last_response_status_code: status }, 'last_response_status_code'),
      ),
      { numRuns: propertyRuns(50) },
    );
  });
});

describe('ReservationCreateInput enforces exactly the documented rules', () => {
  const base = { start_time: '2026-06-01T19:00:00+02:00', adults: 2 };

  it('accepts every input the spec allows, in every start_time form', () => {
    fc.assert(
      fc.property(validCreateInput(), (input) => {
        const result = ReservationCreateInput.safeParse(input);
        expect(result.error).toBeUndefined();
        expect(result.data!.adults).toBe(input.adults);
      }),
      runs,
    );
  });

  it('refuses every key the input does not define, naming it (a misspelt field must not book with it missing)', () => {
    fc.assert(
      fc.property(
        validCreateInput(),
        fc.constantFrom('frist_name', 'source', 'table_hint', 'id', 'confirmed'),
        (input, extra) => {
          const result = ReservationCreateInput.safeParse({ ...input, [extra]: 'x' });
          expect(toFieldIssues(result.error!.issues).map((issue) => issue.field)).toEqual([extra]);
        },
      ),
      runs,
    );
  });

  it('adults: every integer in 1..50 accepted, every other integer refused', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), (adults) => {
        expect(ReservationCreateInput.safeParse({ ...base, adults }).success).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 51 })), (adults) =>
        refusedAt(ReservationCreateInput, { ...base, adults }, 'adults'),
      ),
      runs,
    );
  });

  it('adults: non-integers, NaN, infinities, numeric strings and absence are refused', () => {
    const notAnInteger = fc.oneof(
      fc.double({ noInteger: true, min: -100, max: 100 }),
      fc.constantFrom(Number.NaN, Infinity, -Infinity, '2', null, true),
      fc.constant(undefined),
    );
    fc.assert(
      fc.property(notAnInteger, (adults) => {
        const input: Record<string, unknown> = { ...base, adults };
        if (adults === undefined) delete input.adults;
        refusedAt(ReservationCreateInput, input, 'adults');
      }),
      runs,
    );
  });

  it('children: 0..50 accepted, others refused, omitted means 0', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 50 }), (children) => {
        expect(ReservationCreateInput.parse({ ...base, children }).children).toBe(children);
      }),
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ max: -1 }), fc.integer({ min: 51 }), fc.double({ noInteger: true })),
        (children) => refusedAt(ReservationCreateInput, { ...base, children }, 'children'),
      ),
      runs,
    );
    expect(ReservationCreateInput.parse(base).children).toBe(0);
  });

  for (const [field, max] of [
    ['first_name', 255],
    ['last_name', 255],
    ['phone', 128],
  ] as const) {
    it(`${field}: up to ${max} characters accepted, longer refused`, () => {
      fc.assert(
        fc.property(stringUpTo(max), (text) => {
          expect(ReservationCreateInput.safeParse({ ...base, [field]: text }).success).toBe(true);
        }),
        runs,
      );
      fc.assert(
        fc.property(stringLongerThan(max), (text) =>
          refusedAt(ReservationCreateInput, { ...base, [field]: text }, field),
        ),
        { numRuns: propertyRuns(100) },
      );
    });
  }

  it('email and comment take any string (the spec shows no limit, so none is invented)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 2000, unit: 'binary' }),
        fc.string({ maxLength: 2000, unit: 'binary' }),
        (email, comment) => {
          expect(ReservationCreateInput.safeParse({ ...base, email, comment }).success).toBe(true);
        },
      ),
      { numRuns: propertyRuns(100) },
    );
  });

  it('start_time: required, and refused when it is no date-time form', () => {
    refusedAt(ReservationCreateInput, { adults: 2 }, 'start_time');
    const notATime = fc.oneof(
      fc.string().filter((text) => !/^\d{4}-\d{2}-\d{2}T/.test(text)),
      fc.constant(new Date(Number.NaN)),
      fc.constant(DateTime.invalid('test')),
      fc.integer(),
      fc.record({ date: fc.string({ maxLength: 12 }), time: fc.constantFrom('7pm', '25', '') }),
    );
    fc.assert(
      fc.property(notATime, (start_time) =>
        refusedAt(ReservationCreateInput, { ...base, start_time }, 'start_time'),
      ),
      runs,
    );
  });

  it('start_time: every accepted form parses', () => {
    fc.assert(
      fc.property(startTimeInput(), (start_time) => {
        expect(ReservationCreateInput.safeParse({ ...base, start_time }).success).toBe(true);
      }),
      runs,
    );
  });
});

describe('webhook inputs enforce exactly the documented rules', () => {
  it('url: any http or https URL up to 500 characters accepted', () => {
    fc.assert(
      fc.property(webhookUrl(), (url) => {
        expect(WebhookCreateInput.safeParse({ url }).error).toBeUndefined();
      }),
      runs,
    );
  });
  it('url: longer than 500 characters refused', () => {
    fc.assert(
      fc.property(fc.integer({ min: 501 - 'https://example.com/'.length, max: 2000 }), (length) =>
        refusedAt(WebhookCreateInput, { url: `https://example.com/${'a'.repeat(length)}` }, 'url'),
      ),
      { numRuns: propertyRuns(100) },
    );
    expect(
      WebhookCreateInput.safeParse({
        url: `https://example.com/${'a'.repeat(500 - 'https://example.com/'.length)}`,
      }).success,
    ).toBe(true);
  });
  it('url: other schemes and non-URLs refused, and url is required on create only', () => {
    const otherScheme = fc
      .tuple(fc.constantFrom('ftp', 'file', 'javascript', 'ws', 'data', 'mailto'), fc.webUrl())
      .map(([scheme, url]) => url.replace(/^https?/, scheme));
    fc.assert(
      fc.property(
        fc.oneof(
          otherScheme,
          fc.string().filter((text) => !/^https?:\/\//.test(text)),
        ),
        (url) => refusedAt(WebhookCreateInput, { url }, 'url'),
      ),
      runs,
    );
    refusedAt(WebhookCreateInput, {}, 'url');
    expect(WebhookUpdateInput.safeParse({}).success).toBe(true);
  });
  it('name: up to 125 characters or null accepted, longer refused (create and update)', () => {
    for (const schema of [WebhookCreateInput, WebhookUpdateInput]) {
      fc.assert(
        fc.property(fc.option(stringUpTo(125), { nil: null }), (name) => {
          expect(schema.safeParse({ url: 'https://example.com/hook', name }).success).toBe(true);
        }),
      );
      fc.assert(
        fc.property(stringLongerThan(125), (name) =>
          refusedAt(schema, { url: 'https://example.com/hook', name }, 'name'),
        ),
        { numRuns: propertyRuns(100) },
      );
    }
  });
});

describe('profile update and list filters', () => {
  it('profile update: only documented fields; description keys fr, nl, en, de; website_url a URL or null', () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            name: fc.string(),
            description: fc.record(
              { fr: fc.string(), nl: fc.string(), en: fc.string(), de: fc.string() },
              { requiredKeys: [] },
            ),
            website_url: fc.option(fc.webUrl(), { nil: null }),
          },
          { requiredKeys: [] },
        ),
        (patch) => {
          expect(PartnerProfileUpdateInput.parse(patch)).toEqual(patch);
        },
      ),
      runs,
    );
    fc.assert(
      fc.property(
        fc
          .string({ minLength: 1 })
          .filter((key) => !['name', 'description', 'website_url', '__proto__'].includes(key)),
        (key) => {
          expect(PartnerProfileUpdateInput.safeParse({ [key]: 'x' }).success).toBe(false);
        },
      ),
      { numRuns: propertyRuns(100) },
    );
    refusedAt(PartnerProfileUpdateInput, { description: { es: 'hola' } }, 'description');
    refusedAt(PartnerProfileUpdateInput, { website_url: 'not a url' }, 'website_url');
  });

  it('list filters: page_size 1..1000, times as ISO strings or Dates', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), (page_size) => {
        expect(ReservationListFilters.safeParse({ page_size }).success).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 1001 })), (page_size) =>
        refusedAt(ReservationListFilters, { page_size }, 'page_size'),
      ),
    );
    fc.assert(
      fc.property(
        startTimeInput().filter((value) => typeof value === 'string' || value instanceof Date),
        (start_time_after) => {
          expect(ReservationListFilters.safeParse({ start_time_after }).success).toBe(true);
        },
      ),
    );
  });
});
