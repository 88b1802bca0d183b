/**
 * The round trip: doctor against a fake speaking dialect X writes partner-dialect.json with X's
 * values; a fake started from that file answers every probe as the first did (same statuses,
 * headers and body shapes, probe by probe), and doctor learns the same file from it. For every
 * value of every switch, and combinations. Each run is also counted against the fake's journal.
 */
import { describe, expect, it } from 'vitest';
import { DIALECT_POINT_VALUES, type DialectPoint } from '../../src/dialect/points.js';
import { answers, world } from './support.js';

const values = (file: { points: Record<string, { value: unknown }> } | undefined) =>
  Object.fromEntries(Object.entries(file?.points ?? {}).map(([key, point]) => [key, point.value]));

async function roundTrip(dialect: Record<string, unknown>) {
  const spendFirst = 'retryAfter' in dialect;
  const live = await world(dialect);
  const first = await live.doctor({ spendFirst });
  expect(first.result.exitCode, first.output).toBe(0);
  expect(first.journalCount, 'requests doctor printed = requests the fake received').toBe(
    first.result.requests,
  );
  expect(first.output).toContain(`${first.result.requests} requests spent`);
  // Every switch given is settled, with its value.
  for (const [key, value] of Object.entries(dialect))
    expect(first.file?.points[key as DialectPoint]?.value, key).toBe(value);
  const replay = await world(first.file);
  const second = await replay.doctor({ spendFirst });
  expect(second.result.exitCode, second.output).toBe(0);
  expect(values(second.file)).toEqual(values(first.file));
  expect(answers(second.record)).toEqual(answers(first.record));
  live.fake.dispose();
  replay.fake.dispose();
  return first;
}

describe('doctor round trip: fake in dialect X -> file -> fake from the file answers as X', () => {
  it('the default dialect settles every point a run can see; only what it cannot see is unknown', async () => {
    const first = await roundTrip({});
    expect(first.file!.unknown).toEqual(['retryAfter']);
    expect(first.file!.version).toBe(1);
    expect(first.file!.points.createStatus).toEqual({
      value: 201,
      evidence: {
        request: expect.stringMatching(/^POST \/api\/v1\/partnership\//),
        status: 201,
        excerpt: expect.any(String),
      },
      at: expect.any(String),
    });
  });

  const single = Object.entries(DIALECT_POINT_VALUES).flatMap(([key, all]) =>
    (all as readonly unknown[]).slice(1).map((value) => ({ [key]: value })),
  );
  it.each(single.map((dialect) => [JSON.stringify(dialect), dialect]))('%s', async (_, dialect) => {
    await roundTrip(dialect);
  });

  it('the default Retry-After form, seen on a 429 another process caused', async () => {
    await roundTrip({ retryAfter: 'seconds' });
  });

  const combinations = [
    {
      list: 'array',
      profile: 'list',
      duration: 'hms',
      createStatus: 200,
      deleteStatus: 200,
      cancelBody: 'empty',
    },
    {
      errorBody: 'message',
      badInputStatus: 422,
      noAvailabilityStatus: 422,
      webhookTokenField: 'secret',
      dateTimeForm: 'space',
    },
    {
      errorBody: 'empty',
      noAvailabilityStatus: 400,
      badInputStatus: 422,
      idempotencyKey: 'ignored',
      pageLinks: 'relative',
      retryAfter: 'date',
    },
    {
      errorBody: 'error',
      dateTimeForm: 'fraction',
      duration: 'hms',
      webhookTokenField: 'token',
      retryAfter: 'none',
      list: 'envelope',
    },
  ];
  it.each(combinations.map((dialect) => [JSON.stringify(dialect), dialect]))(
    'combined: %s',
    async (_, dialect) => {
      await roundTrip(dialect);
    },
  );
});
