/**
 * The reservation's fields are written once (RESERVATION_FIELDS); every other list derives from
 * it. These tests fail the day a derived list drifts from its source: a create field the fake
 * does not store or return, a field the receiver's fast path refuses although the schema reads
 * it, a field a restaurant may modify that the fake refuses, or a control route that documents
 * another body.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Reservation, ReservationCreateInput } from 'restaurant-partner-sdk';
import { CONTROL_ROUTES } from 'restaurant-partner-sdk/testing';
import { realSchema } from '../../src/lazy-schema.js';
import {
  CREATE_FIELDS,
  type FieldSpec,
  GUEST_FIELDS,
  isPlainReservationField,
  MODIFIABLE_FIELDS,
  PERSONAL_FIELDS,
  RESERVATION_FIELDS,
  type ReservationFieldName,
} from '../../src/resources/reservation-fields.js';
import { GUEST_DATA_FIELDS } from '../../src/otel/attributes.js';
import { createDriver } from '../testing/helpers.js';

const FIELD_NAMES = Object.keys(RESERVATION_FIELDS) as ReservationFieldName[];

/** A value the spec and the fake accept for a field sent on create or modify. */
function sample(field: ReservationFieldName): unknown {
  switch (field) {
    case 'start_time':
      return '2026-12-02T19:00:00';
    case 'adults':
      return 2;
    case 'children':
      return 1;
    case 'metadata':
      return { booking_ref: 'drift-1' };
    case 'email':
      return 'ada@example.com';
    case 'language':
      return 'nl-BE';
    default: {
      const spec: { wire: string } = RESERVATION_FIELDS[field];
      if (spec.wire !== 'text') throw new Error(`no sample for ${field} (${spec.wire}): add one here`);
      return `sample ${field}`;
    }
  }
}

describe('the schemas are the table', () => {
  it('the Reservation schema reads exactly the fields of the table', () => {
    const shape = (realSchema(Reservation) as unknown as { shape: Record<string, unknown> }).shape;
    expect(Object.keys(shape)).toEqual(FIELD_NAMES);
  });

  it('the create schema takes exactly the create fields, and requires exactly the required ones', () => {
    const shape = (
      realSchema(ReservationCreateInput) as unknown as {
        shape: Record<string, unknown>;
      }
    ).shape;
    expect(Object.keys(shape).sort()).toEqual([...CREATE_FIELDS].sort());
    const body = Object.fromEntries(CREATE_FIELDS.map((field) => [field, sample(field)]));
    const required = CREATE_FIELDS.filter((field) => {
      const { [field]: _left, ...rest } = body;
      return !ReservationCreateInput.safeParse(rest).success;
    });
    expect(required).toEqual(
      FIELD_NAMES.filter((name) => (RESERVATION_FIELDS[name] as FieldSpec).create === 'required'),
    );
    // Every create field sampled here passes the client's own check.
    expect(ReservationCreateInput.safeParse(body).success).toBe(true);
  });

  it('guest fields are personal data, and the otel opt-in list is the personal fields', () => {
    for (const field of GUEST_FIELDS) expect(PERSONAL_FIELDS).toContain(field);
    expect([...GUEST_DATA_FIELDS]).toEqual([...PERSONAL_FIELDS]);
  });
});

describe('the fake and the receiver follow the table', () => {
  let driver: Awaited<ReturnType<typeof createDriver>>;
  let restaurantId: number;
  beforeEach(async () => {
    driver = await createDriver('handle');
    restaurantId = driver.fake.addRestaurant({
      timezone: 'Europe/Brussels',
      partnerIds: [driver.partner.partnerId],
    }).id;
  });
  afterEach(() => driver.close());

  const control = (path: string, body?: unknown) =>
    driver.send('POST', `/_fake${path}`, { body, auth: null });

  it('stores and returns every create field, and shows every field of the table', async () => {
    const body = Object.fromEntries(CREATE_FIELDS.map((field) => [field, sample(field)]));
    const answer = await driver.send('POST', `/restaurants/${restaurantId}/reservations/`, { body });
    expect(answer.status).toBe(201);
    expect(Object.keys(answer.body)).toEqual(FIELD_NAMES);
    for (const field of CREATE_FIELDS) {
      if (field === 'start_time') expect(answer.body.start_time).toBe('2026-12-02T19:00:00+01:00');
      else expect(answer.body[field], field).toEqual(sample(field));
    }
    // What the fake sends (in answers and in its events' reservation) takes the receiver's fast path.
    for (const [key, value] of Object.entries(answer.body))
      expect(isPlainReservationField(key, value), `${key}: ${JSON.stringify(value)}`).toBe(true);
    expect(Reservation.parse(answer.body)).toEqual(answer.body);
  });

  it('lets a restaurant modify exactly the modifiable fields', async () => {
    const booked = await driver.send('POST', `/restaurants/${restaurantId}/reservations/`, {
      body: { start_time: '2026-12-02T18:00:00', adults: 1 },
    });
    const modify = (changes: Record<string, unknown>) =>
      control(`/restaurants/${restaurantId}/reservations/${booked.body.id}/modify`, changes);
    const changes = Object.fromEntries(MODIFIABLE_FIELDS.map((field) => [field, sample(field)]));
    const modified = await modify(changes);
    expect(modified.status).toBe(200);
    for (const field of MODIFIABLE_FIELDS)
      if (field !== 'start_time') expect(modified.body[field], field).toEqual(sample(field));
    for (const field of FIELD_NAMES.filter((name) => !MODIFIABLE_FIELDS.includes(name))) {
      const refused = await modify({ [field]: field === 'id' ? 7 : null });
      expect(refused.status, field).toBe(400);
      // Refused by the route (its keys are its documented body) or by the rule itself, naming the field.
      expect(refused.body[field], field).toEqual([expect.stringMatching(/cannot be modified|Unknown key/)]);
    }
  });

  it('documents the bodies its control routes read', () => {
    const bodyOf = (suffix: string) =>
      CONTROL_ROUTES.find((route) => route.method === 'POST' && route.path.endsWith(suffix))!.body!;
    const fields = (body: string) => body.replace(/[{}?]/g, '').split(', ').sort();
    expect(fields(bodyOf('/:restaurantId/reservations'))).toEqual([...CREATE_FIELDS, 'channel'].sort());
    expect(fields(bodyOf('/modify'))).toEqual([...MODIFIABLE_FIELDS, 'by'].sort());
  });
});
