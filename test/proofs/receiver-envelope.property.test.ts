/**
 * The receiver's hand-written envelope check (src/webhooks/envelope-check.ts) answers exactly as
 * the envelope's zod schemas (built from the client's `Reservation` schema) do: for any envelope
 * (valid, one to three fields off, unknown fields, junk), both accept and give the same event
 * (deep-equal), or both refuse with the same message and the same issues (field, code, message).
 */
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseWebhookEvent } from '../../src/webhooks/events.js';
import { parseWithSchemas } from './support/envelope-schemas.js';

import { deliveryEnvelope, hostileValue, jsonValue, reservationResponse } from './support/arbitraries.js';
import { propertyRuns } from '../support/property-runs.js';
import { reservation as sampleReservation } from '../support/reservation.js';

const FIELDS = [
  'id',
  'event',
  'type',
  'created_at',
  'restaurant_id',
  'reservation',
  'event_type',
  'data',
  'event_id',
];
const RESERVATION_FIELDS = [
  'id',
  'first_name',
  'last_name',
  'email',
  'phone',
  'start_time',
  'duration',
  'adults',
  'children',
  'comment',
  'cancelled',
  'cancelled_at',
  'confirmed',
  'confirmed_at',
  'confirmation_mode',
  'arrived',
  'arrived_at',
  'no_show',
  'no_show_at',
  'language',
  'metadata',
];
const oddValue = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      null,
      '',
      0,
      -0,
      1.5,
      2 ** 53,
      -1,
      true,
      'x',
      'PT2H',
      '2026-12-04T19:30:00+01:00',
      '2026-12-04',
      {},
      [],
      { __proto__: null },
    ),
    weight: 4,
  },
  { arbitrary: jsonValue(), weight: 1 },
  { arbitrary: hostileValue(), weight: 1 },
);
/** A reservation envelope as the bench and the fake send it: every field ours, exactly typed. */
const fullEnvelope = fc.record({
  id: fc.string({ minLength: 1, maxLength: 20 }),
  event: fc.constantFrom('RESERVATION_CONFIRMED', 'RESERVATION_MODIFIED', 'RESERVATION_CANCELLED', 'TEST'),
  created_at: fc.constant('2026-11-23T10:00:00.000Z'),
  restaurant_id: fc.option(fc.integer(), { nil: null }),
  reservation: reservationResponse().map((reservation) =>
    Object.fromEntries(Object.entries(reservation).filter(([key]) => RESERVATION_FIELDS.includes(key))),
  ),
});
const envelope = fc.oneof(fullEnvelope, deliveryEnvelope(), jsonValue(), hostileValue());
/** One to three fields of the envelope, or of its reservation, set to an odd value (or removed). */
const change = fc.tuple(
  fc.oneof({ arbitrary: fc.constant(true), weight: 2 }, { arbitrary: fc.constant(false), weight: 1 }),
  fc.constantFrom(...FIELDS, ...RESERVATION_FIELDS, '__proto__', 'extra'),
  oddValue,
  fc.boolean(),
);
const nearEnvelope = fc
  .tuple(fc.oneof(fullEnvelope, deliveryEnvelope()), fc.array(change, { minLength: 1, maxLength: 3 }))
  .map(([base, changes]) => {
    const copy = JSON.parse(JSON.stringify(base)) as Record<string, Record<string, unknown>>;
    for (const [inReservation, key, value, remove] of changes) {
      const target =
        inReservation && copy.reservation && typeof copy.reservation === 'object'
          ? copy.reservation
          : (copy as Record<string, unknown>);
      if (remove) delete target[key];
      else
        Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
    }
    return copy;
  });

/** A deep copy for each reading: both paths write into the envelope they are given. */
const copyOf = (value: unknown): unknown => {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
};
const outcome = (run: () => unknown) => {
  try {
    return { ok: true as const, value: run() };
  } catch (error) {
    return { ok: false as const, error: error as Error & { issues?: unknown } };
  }
};

describe('the receiver envelope check', () => {
  // 3,000 envelopes through both checks: seconds alone, longer beside a full run on two cores.
  it(
    'answers exactly as the schemas do, for valid, near-valid and junk envelopes',
    { timeout: 60_000 },
    () => {
      let accepted = 0;
      let refused = 0;
      fc.assert(
        fc.property(
          fc.oneof(envelope, nearEnvelope, nearEnvelope),
          fc.option(fc.constant('sha256:abc'), { nil: undefined }),
          (value, fallbackId) => {
            const fast = outcome(() => parseWebhookEvent(copyOf(value), fallbackId));
            const schemas = outcome(() => parseWithSchemas(copyOf(value), fallbackId));
            expect(fast.ok).toBe(schemas.ok);
            if (fast.ok && schemas.ok) {
              // Node's comparison: vitest's strict one also compares an own `constructor` key's identity.
              if (!isDeepStrictEqual(fast.value, schemas.value))
                expect(fast.value).toStrictEqual(schemas.value);
              accepted += 1;
            } else if (!fast.ok && !schemas.ok) {
              expect(fast.error.message).toBe(schemas.error.message);
              expect(fast.error.issues).toStrictEqual(schemas.error.issues);
              if ((fast.error.issues as unknown[] | undefined)?.length) refused += 1;
            }
          },
        ),
        { numRuns: propertyRuns(3000) },
      );
      expect(accepted).toBeGreaterThan(100);
      expect(refused).toBeGreaterThan(100);
    },
  );

  it('returns the delivery the fake and the bench send as it is', () => {
    const reservation = sampleReservation();
    const json = {
      id: 'evt_1',
      event: 'RESERVATION_CONFIRMED',
      created_at: '2026-11-23T10:00:00.000Z',
      restaurant_id: 1,
      reservation,
    };
    // A valid envelope is handed back as it was given: no copy.
    expect(parseWebhookEvent(json, undefined)).toBe(json);
    expect(json).toStrictEqual(parseWithSchemas(structuredClone(json), undefined));
  });

  it('drops an own __proto__ key of metadata, as the schemas do, without setting a prototype', () => {
    const text =
      '{"id":"evt_2","event":"TEST","reservation":{"id":1,"metadata":{"__proto__":{"polluted":true},"a":1}}}';
    const fast = parseWebhookEvent(JSON.parse(text), undefined);
    expect(fast).toStrictEqual(parseWithSchemas(JSON.parse(text), undefined));
    expect(Object.hasOwn((fast.reservation as { metadata: object }).metadata, '__proto__')).toBe(false);
  });
});
