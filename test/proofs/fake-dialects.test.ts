/**
 * The create invariant against the fake service in both `idempotencyKey` dialects: `honoured`
 * (a repeat with the same key replays the first booking) and `ignored` (every POST books anew, as
 * a service that does not know the header). Faults: a gateway error answered at once while the
 * booking commits later on the fake's clock (`commitDelayMs`), errors and drops before and after
 * the commit, a malformed 2xx, and a repeat with the caller's own key after a crash. Each case
 * counts the bookings the fake holds against what the client reported. The client runs on the
 * fake's clock, so its settle window passes without real sleeps.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  AmbiguousCreateError,
  IDEMPOTENCY_METADATA_KEY,
  PartnerClient,
  PartnerSdkError,
  silentLogger,
  type Reservation,
} from 'restaurant-partner-sdk';
import { createFakeService, type FaultSpec } from 'restaurant-partner-sdk/testing';

const counts: string[] = [];
afterAll(() => {
  console.info(`fake, bookings held vs what the client reported:\n${counts.join('\n')}`);
});

type Outcome = { value?: Reservation; error?: unknown };

function setUp(
  idempotencyKey: 'honoured' | 'ignored',
  clientOptions: Partial<ConstructorParameters<typeof PartnerClient>[0]> = {},
) {
  const fake = createFakeService({ dialect: { idempotencyKey } });
  const partner = fake.addPartner({ name: 'Dialect proofs' });
  const restaurant = fake.addRestaurant({
    partnerIds: [partner.partnerId],
    availability: { capacityCovers: 10_000, minimumLeadTimeMinutes: 0 },
  });
  const client = new PartnerClient({
    ...fake.clientOptions(partner),
    logger: silentLogger,
    ...clientOptions,
  });
  const start = new Date(fake.clock.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  const input = { start_time: { date: start, time: '19:30' }, adults: 2 };
  const withKey = (key: unknown) =>
    fake
      .allReservations(restaurant.id)
      .filter((row) => (row.metadata as Record<string, unknown> | null)?.[IDEMPOTENCY_METADATA_KEY] === key);
  return { fake, partner, client, restaurant, input, withKey };
}

async function create(
  client: PartnerClient,
  restaurantId: number,
  input: object,
  options: object = {},
): Promise<Outcome> {
  try {
    return { value: await client.reservations.create(restaurantId, input as never, options) };
  } catch (error) {
    return { error };
  }
}

function expectBalanced(label: string, outcome: Outcome, rows: readonly { id: number }[], total: number) {
  const told = outcome.value ? `success #${outcome.value.id}` : (outcome.error as Error).name;
  counts.push(`  ${label}: ${total} booked (${rows.length} with the key), told ${told}`);
  if (outcome.value) {
    expect(rows, `${label}: told success, exactly one booking`).toHaveLength(1);
    expect(total).toBe(1);
    expect(outcome.value.id).toBe(rows[0]!.id);
  } else if (outcome.error instanceof AmbiguousCreateError) {
    expect(rows.length).toBeLessThanOrEqual(1);
  } else {
    expect(outcome.error).toBeInstanceOf(PartnerSdkError);
    expect(rows, `${label}: told ${told} while a booking exists`).toHaveLength(0);
  }
}

const faults: [string, FaultSpec, 'success' | 'ambiguous'][] = [
  ['504, commits 3 s later', { status: 504, commitDelayMs: 3000 }, 'success'],
  ['502, commits 3 s later', { status: 502, commitDelayMs: 3000 }, 'success'],
  ['connection dropped, commits 3 s later', { networkError: true, commitDelayMs: 3000 }, 'success'],
  ['500 after the commit', { status: 500, phase: 'after' }, 'success'],
  ['connection dropped after the commit', { networkError: true, phase: 'after' }, 'success'],
  [
    'malformed 201 after the commit',
    { status: 201, phase: 'after', body: { id: 'not-a-number' } },
    'success',
  ],
  ['504, never commits', { status: 504, phase: 'before' }, 'ambiguous'],
  ['504, commits 60 s later (after the settle window)', { status: 504, commitDelayMs: 60_000 }, 'ambiguous'],
];

describe.each(['honoured', 'ignored'] as const)(
  'the fake with idempotencyKey %s, client defaults',
  (dialect) => {
    it.each(faults)('%s', async (label, fault, expected) => {
      const { fake, client, restaurant, input, withKey } = setUp(dialect);
      fake.injectFault({ ...fault, operation: 'reservations.create' });
      const outcome = await create(client, restaurant.id, input);
      const key =
        outcome.value?.metadata?.[IDEMPOTENCY_METADATA_KEY] ??
        (outcome.error as AmbiguousCreateError).idempotencyKey;
      expectBalanced(
        `${dialect}: ${label}`,
        outcome,
        withKey(key),
        fake.allReservations(restaurant.id).length,
      );
      expect(expected === 'success' ? outcome.value : outcome.error).toBeDefined();
      if (expected === 'ambiguous') {
        expect(outcome.error).toBeInstanceOf(AmbiguousCreateError);
        // A late commit lands after all, carrying the key the error named; never a second booking.
        await fake.clock.advance(120_000);
        expect(withKey(key).length).toBeLessThanOrEqual(1);
        expect(fake.allReservations(restaurant.id).length).toBe(withKey(key).length);
      }
      fake.dispose();
    });

    it("a repeat with the caller's own key after a crash returns the first booking", async () => {
      const { fake, partner, client, restaurant, input, withKey } = setUp(dialect);
      const first = await client.reservations.create(restaurant.id, input, { idempotencyKey: 'order-42' });
      const again = new PartnerClient({ ...fake.clientOptions(partner), logger: silentLogger });
      const second = await create(again, restaurant.id, input, { idempotencyKey: 'order-42' });
      expect(second.value?.id).toBe(first.id);
      expectBalanced(
        `${dialect}: repeat of order-42 after a crash`,
        second,
        withKey('order-42'),
        fake.allReservations(restaurant.id).length,
      );
      fake.dispose();
    });
  },
);

describe('the fake with idempotencyKey honoured, declared to the client (idempotencyKeyHonoured: true)', () => {
  it.each(faults.filter(([, fault]) => fault.commitDelayMs === undefined || fault.commitDelayMs < 10_000))(
    '%s: retried with the same key, one booking',
    async (label, fault) => {
      const { fake, client, restaurant, input, withKey } = setUp('honoured', {
        idempotencyKeyHonoured: true,
      });
      fake.injectFault({ ...fault, operation: 'reservations.create' });
      const outcome = await create(client, restaurant.id, input);
      const key =
        outcome.value?.metadata?.[IDEMPOTENCY_METADATA_KEY] ??
        (outcome.error as AmbiguousCreateError).idempotencyKey;
      await fake.clock.advance(120_000);
      expectBalanced(
        `honoured, declared: ${label}`,
        outcome,
        withKey(key),
        fake.allReservations(restaurant.id).length,
      );
      expect(outcome.value).toBeDefined();
      fake.dispose();
    },
  );
});
