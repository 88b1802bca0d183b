/**
 * fast-check arbitraries shared by the property suites: values the spec allows (so a property can
 * say "every valid X is accepted and kept as is") and hostile values (so a property can say
 * "nothing, however odd, makes us throw anything but our typed errors").
 */
import fc from 'fast-check';
import { DateTime, FixedOffsetZone } from 'luxon';

/** Any JavaScript value fast-check can build, including the odd ones (null prototype, boxed, sparse, bigint). */
export const hostileValue = (): fc.Arbitrary<unknown> =>
  fc.anything({
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withObjectString: true,
    withSparseArray: true,
    withTypedArray: true,
    stringUnit: 'binary',
  });

/** Any value that survives JSON (what a server can answer). */
export const jsonValue = (): fc.Arbitrary<unknown> => fc.jsonValue({ maxDepth: 4 });

/**
 * An object with the given keys, each absent or holding a hostile value, plus unknown keys: far
 * likelier than `anything()` to reach the checks behind each field.
 */
export const objectNear = (
  keys: readonly string[],
  value: fc.Arbitrary<unknown> = hostileValue(),
): fc.Arbitrary<Record<string, unknown>> =>
  fc
    .tuple(
      fc.record(
        Object.fromEntries(keys.map((key) => [key, value])) as Record<string, fc.Arbitrary<unknown>>,
        { requiredKeys: [] },
      ),
      fc.dictionary(fc.string({ maxLength: 12 }), value, { maxKeys: 3 }),
    )
    .map(([known, extra]) => ({ ...extra, ...known }));

const instant = () =>
  fc.date({
    min: new Date('2000-01-01T00:00:00Z'),
    max: new Date('2099-12-31T23:59:59Z'),
    noInvalidDate: true,
  });
/** Offsets that exist in practice, in minutes. */
const offsetMinutes = () => fc.integer({ min: -12 * 4, max: 14 * 4 }).map((quarters) => quarters * 15);

/** An ISO 8601 date-time in one of the forms a server may send: UTC `Z`, with an offset, or local (no offset). */
export const isoDateTime = (): fc.Arbitrary<string> =>
  fc
    .tuple(instant(), offsetMinutes(), fc.constantFrom('utc', 'offset', 'local'), fc.boolean())
    .map(([date, offset, form, suppressMilliseconds]) => {
      if (form === 'utc')
        return suppressMilliseconds ? date.toISOString().replace(/\.\d{3}Z$/, 'Z') : date.toISOString();
      const local = DateTime.fromJSDate(date, { zone: FixedOffsetZone.instance(offset) });
      return local.toISO({ includeOffset: form === 'offset', suppressMilliseconds })!;
    });

/** A duration as the spec describes it (`PT2H`) or as its example shows it (`02:00:00`). */
export const duration = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.integer({ min: 1, max: 12 }).map((hours) => `PT${hours}H`),
    fc
      .tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 1, max: 59 }))
      .map(([hours, minutes]) => `PT${hours}H${minutes}M`),
    fc
      .tuple(
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 0, max: 59 }),
      )
      .map(([h, m, s]) => [h, m, s].map((part) => String(part).padStart(2, '0')).join(':')),
  );

const nullable = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });
const unknownFields = (known: readonly string[]) =>
  fc.dictionary(
    fc.string({ minLength: 1, maxLength: 16 }).filter((key) => !known.includes(key) && key !== '__proto__'),
    jsonValue(),
    { maxKeys: 3 },
  );
const withUnknownFields = <T extends Record<string, unknown>>(
  known: readonly string[],
  record: fc.Arbitrary<T>,
) => fc.tuple(record, unknownFields(known)).map(([value, extra]) => ({ ...extra, ...value }));

const reservationFields = {
  id: fc.integer({ min: 1, max: 2 ** 31 }),
  first_name: nullable(fc.string({ maxLength: 40 })),
  last_name: nullable(fc.string({ maxLength: 40 })),
  email: nullable(fc.emailAddress()),
  phone: nullable(fc.string({ maxLength: 20 })),
  start_time: isoDateTime(),
  duration: nullable(duration()),
  adults: fc.integer({ min: 1, max: 50 }),
  children: nullable(fc.integer({ min: 0, max: 50 })),
  comment: nullable(fc.string({ maxLength: 80 })),
  cancelled: fc.boolean(),
  cancelled_at: nullable(isoDateTime()),
  confirmed: fc.boolean(),
  confirmed_at: nullable(isoDateTime()),
  confirmation_mode: fc.constantFrom(
    'CONFIRMATION_MODE_SYNCHRONOUS',
    'CONFIRMATION_MODE_ASYNCHRONOUS',
    'CONFIRMATION_MODE_FUTURE',
  ),
  arrived: fc.boolean(),
  arrived_at: nullable(isoDateTime()),
  no_show: fc.boolean(),
  no_show_at: nullable(isoDateTime()),
  language: nullable(fc.constantFrom('en', 'fr', 'nl', 'de', 'pt-BR')),
  metadata: nullable(
    fc.dictionary(
      fc.string({ maxLength: 10 }).filter((key) => key !== '__proto__'),
      jsonValue(),
      { maxKeys: 4 },
    ),
  ),
};

/** A reservation as the service may answer it: every documented field optional but `id` and `start_time`, plus unknown fields. */
export const reservationResponse = () =>
  withUnknownFields(
    Object.keys(reservationFields),
    fc.record(reservationFields, { requiredKeys: ['id', 'start_time'] }),
  );

const restaurantFields = {
  id: fc.integer({ min: 1, max: 2 ** 31 }),
  display_name: fc.string({ maxLength: 40 }),
  schema_name: fc.string({ minLength: 1, maxLength: 63 }),
  address: fc.string({ maxLength: 60 }),
  website: fc.webUrl(),
  latitude: fc.double({ min: -90, max: 90, noNaN: true }),
  longitude: fc.double({ min: -180, max: 180, noNaN: true }),
  timezone: fc.constantFrom('Europe/Brussels', 'Europe/Paris', 'America/New_York', 'Asia/Tokyo', 'UTC'),
};
/** A restaurant as the service may answer it: `id` and `schema_name` present, the rest optional, plus unknown fields. */
export const restaurantResponse = () =>
  withUnknownFields(
    Object.keys(restaurantFields),
    fc.record(restaurantFields, { requiredKeys: ['id', 'schema_name'] }),
  );

const localized = fc.record(
  {
    fr: fc.string({ maxLength: 30 }),
    nl: fc.string({ maxLength: 30 }),
    en: fc.string({ maxLength: 30 }),
    de: fc.string({ maxLength: 30 }),
  },
  { requiredKeys: [] },
);
const profileFields = {
  uuid: fc.uuid(),
  name: fc.string({ maxLength: 40 }),
  description: nullable(localized),
  website_url: nullable(fc.webUrl()),
};
/** The partner profile as the service may answer it (`description` may be null, as in the spec's example). */
export const profileResponse = () =>
  withUnknownFields(Object.keys(profileFields), fc.record(profileFields, { requiredKeys: ['uuid'] }));

const eventKeys = fc.dictionary(
  fc.constantFrom('RESERVATION_CONFIRMED', 'RESERVATION_MODIFIED', 'RESERVATION_CANCELLED'),
  fc.boolean(),
);
const webhookFields = {
  id: fc.integer({ min: 1, max: 2 ** 31 }),
  created_at: isoDateTime(),
  updated_at: isoDateTime(),
  url: fc.webUrl({ validSchemes: ['http', 'https'] }),
  name: nullable(fc.string({ maxLength: 125 })),
  is_enabled: fc.boolean(),
  last_use_at: nullable(isoDateTime()),
  last_response_status_code: nullable(fc.integer({ min: 100, max: 32767 })),
  last_response: nullable(
    fc.dictionary(
      fc.string({ maxLength: 8 }).filter((key) => key !== '__proto__'),
      jsonValue(),
      { maxKeys: 3 },
    ),
  ),
  subscribed_events: eventKeys,
  auth_token: fc.string({ minLength: 16, maxLength: 40 }),
};
/** A webhook as the service may answer it. */
export const webhookResponse = () =>
  withUnknownFields(Object.keys(webhookFields), fc.record(webhookFields, { requiredKeys: ['id', 'url'] }));

/** A delivery envelope as the fake sends it (`reservation` null for test deliveries). */
export const deliveryEnvelope = () =>
  fc.record({
    id: fc.oneof(
      fc.uuid().map((uuid) => `evt_${uuid}`),
      fc.integer({ min: 1 }),
    ),
    event: fc.constantFrom(
      'RESERVATION_CONFIRMED',
      'RESERVATION_MODIFIED',
      'RESERVATION_CANCELLED',
      'TEST',
      'SOMETHING_NEW',
    ),
    created_at: isoDateTime(),
    restaurant_id: nullable(fc.integer({ min: 1, max: 2 ** 31 })),
    reservation: nullable(reservationResponse()),
  });

/** Strings of exactly `length` UTF-16 units (what zod's `.max` counts). */
export const stringOfLength = (length: number) =>
  fc.string({ minLength: length, maxLength: length, unit: 'grapheme-ascii' });
export const stringUpTo = (maxLength: number) => fc.string({ maxLength, unit: 'grapheme-ascii' });
export const stringLongerThan = (maxLength: number) =>
  fc.integer({ min: maxLength + 1, max: maxLength + 300 }).chain((length) => stringOfLength(length));

/** A valid `start_time` in every accepted form: luxon DateTime, Date, ISO string (offset or local), local `{ date, time }`. */
export const startTimeInput = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    instant().map((date) => DateTime.fromJSDate(date, { zone: 'Europe/Brussels' })),
    instant(),
    isoDateTime(),
    instant().map((date) => {
      const local = DateTime.fromJSDate(date, { zone: 'UTC' });
      return { date: local.toISODate()!, time: local.toFormat('HH:mm') };
    }),
  );

/** A reservation create input the spec allows. */
export const validCreateInput = () =>
  fc.record(
    {
      start_time: startTimeInput(),
      adults: fc.integer({ min: 1, max: 50 }),
      children: fc.integer({ min: 0, max: 50 }),
      first_name: stringUpTo(255),
      last_name: stringUpTo(255),
      email: nullable(fc.string({ maxLength: 60 })),
      phone: nullable(stringUpTo(128)),
      comment: nullable(fc.string({ maxLength: 200 })),
      language: fc.constantFrom('en', 'fr', 'nl', 'de'),
      metadata: nullable(
        fc.dictionary(
          fc.string({ maxLength: 10 }).filter((key) => key !== '__proto__'),
          jsonValue(),
          { maxKeys: 3 },
        ),
      ),
    },
    { requiredKeys: ['start_time', 'adults'] },
  );

/** A webhook url the spec allows: http or https, at most 500 characters. */
export const webhookUrl = () =>
  fc
    .webUrl({ validSchemes: ['http', 'https'], withQueryParameters: true, withFragments: true })
    .filter((url) => url.length <= 500);
