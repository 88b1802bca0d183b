/**
 * `PartnerClient({ dialect })`: where the file settles a point, an answer that departs from it is
 * reported once per client and point (a warning naming the point), or fails the call with
 * `DialectDriftError` under `strictDialect`; points the file lists as unknown are not watched; a
 * file that is not a dialect is refused before any request, naming the field.
 */
import { describe, expect, it } from 'vitest';
import {
  DialectDriftError,
  InputValidationError,
  isDialectDriftError,
  PartnerClient,
  type DialectFile,
  type Logger,
} from 'restaurant-partner-sdk';
import { createFakeService } from 'restaurant-partner-sdk/testing';

const learned = (points: Record<string, string | number>, unknown: string[] = []): DialectFile => ({
  version: 1,
  learnedAt: '2026-11-28T12:00:00.000Z',
  points: Object.fromEntries(
    Object.entries(points).map(([key, value]) => [
      key,
      {
        value,
        evidence: { request: 'GET /api/v1/partnership/profile/', status: 200, excerpt: 'x' },
        at: '2026-11-28T12:00:00.000Z',
      },
    ]),
  ),
  unknown,
});

function setUp(fakeDialect: object) {
  const fake = createFakeService({ rateLimit: false, dialect: fakeDialect as never });
  const partner = fake.addPartner();
  const restaurant = fake.addRestaurant({
    partnerIds: [partner.partnerId],
    availability: { minimumLeadTimeMinutes: 0 },
  });
  const warnings: string[] = [];
  const logger: Logger = { warn: (message) => warnings.push(message), error: () => undefined };
  const client = (options: object) =>
    new PartnerClient({ ...fake.clientOptions(partner), logger, ...options });
  const date = new Date(fake.clock.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  const dinner = { start_time: { date, time: '19:00' }, adults: 2 };
  return { fake, partner, restaurant, warnings, client, dinner };
}

describe('PartnerClient({ dialect })', () => {
  it('warns once per client and point, naming the point, and returns the answer all the same', async () => {
    const { client, warnings, restaurant } = setUp({ list: 'array', profile: 'list' });
    const watched = client({ dialect: learned({ list: 'envelope', profile: 'object' }) });
    await watched.profile.retrieve();
    await watched.profile.retrieve();
    expect(await watched.reservations.list(restaurant.id).toArray()).toEqual([]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/dialect drift at point "profile": expected object, received list/);
    expect(warnings[1]).toMatch(/point "list": expected envelope, received array/);
    // Another client warns for itself.
    await client({ dialect: learned({ profile: 'object' }) }).profile.retrieve();
    expect(warnings).toHaveLength(3);
  });

  it('fails the call with DialectDriftError under strictDialect, with point, expected and received', async () => {
    const { client, restaurant, dinner } = setUp({ createStatus: 200 });
    const strict = client({ dialect: learned({ createStatus: 201 }), strictDialect: true });
    const error = await strict.reservations.create(restaurant.id, dinner).catch((caught: unknown) => caught);
    expect(isDialectDriftError(error)).toBe(true);
    expect(error).toBeInstanceOf(DialectDriftError);
    expect(error).toMatchObject({
      point: 'createStatus',
      expected: 201,
      received: 200,
      status: 200,
      method: 'POST',
      retryable: false,
      sent: 'yes',
    });
    expect((error as Error).message).toContain('"createStatus"');
  });

  it('watches refusals too: the error body form and the status of no availability', async () => {
    const { client, warnings } = setUp({ errorBody: 'message' });
    const watched = client({ dialect: learned({ errorBody: 'detail' }), strictDialect: true });
    const error = await watched.webhooks.retrieve(999).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      name: 'DialectDriftError',
      point: 'errorBody',
      expected: 'detail',
      received: 'message',
      status: 404,
    });
    expect(warnings).toEqual([]);
  });

  it('does not watch points the file lists as unknown, nor answers in the dialect', async () => {
    const { client, warnings, restaurant, dinner } = setUp({ list: 'array', duration: 'hms' });
    const watched = client({
      dialect: learned({ list: 'array', duration: 'hms' }, ['profile']),
      strictDialect: true,
    });
    await watched.reservations.create(restaurant.id, dinner);
    expect(await watched.reservations.list(restaurant.id).toArray()).toHaveLength(1);
    await watched.profile.retrieve();
    expect(warnings).toEqual([]);
  });

  it('takes plain switches as well as the file', async () => {
    const { client } = setUp({ profile: 'list' });
    await expect(
      client({ dialect: { profile: 'object' }, strictDialect: true }).profile.retrieve(),
    ).rejects.toMatchObject({
      point: 'profile',
    });
  });

  it('refuses a dialect that is not one before any request, naming the field and the rule', () => {
    const { client, fake } = setUp({});
    const before = fake.requests.length;
    for (const [dialect, field] of [
      [learned({ createStatus: 202 }), 'dialect.points.createStatus.value'],
      [{ version: 9, points: {} }, 'dialect.version'],
      [{ lists: 'array' }, 'dialect.lists'],
      ['partner-dialect.json', 'dialect'],
    ] as const) {
      const error = (() => {
        try {
          client({ dialect });
        } catch (caught) {
          return caught;
        }
      })();
      expect(error, JSON.stringify(dialect)).toBeInstanceOf(InputValidationError);
      expect((error as InputValidationError).issues[0]!.field).toBe(field);
    }
    expect(() => client({ dialect: learned({}), strictDialect: 'yes' })).toThrow(InputValidationError);
    // Keys a newer doctor may write are ignored.
    expect(() =>
      client({ dialect: { ...learned({}), points: { someFuturePoint: { value: 1 } } } }),
    ).not.toThrow();
    expect(fake.requests.length).toBe(before);
  });
});
