/**
 * The fault suite: hundreds of bookings and cancellations through `PartnerClient` while the server
 * misbehaves (429 with and without Retry-After, 5xx before and after committing, connections
 * dropped before and after committing, answers slower than the client's timeout that still
 * commit). At the end the books must balance:
 *
 * - every booking the caller was told succeeded exists exactly once, with its key;
 * - every booking the caller was told failed does not exist, or was reported as
 *   AmbiguousCreateError carrying its key (and if it exists, it carries that key);
 * - nothing exists twice, and nothing exists that no caller asked for;
 * - every cancellation the caller was told succeeded is cancelled; failed ones converge when
 *   repeated; reservations nobody cancelled stay untouched.
 *
 * Run (a) against the fake as a real node:http server that ignores Idempotency-Key (only the
 * client's lookup by metadata can prevent duplicates there), six callers at once, and (b) against
 * the fake in-process, honouring the key, one caller at a time. Time is virtual (FakeClock) except the per-attempt timeouts, which are
 * small, so the suite takes a few seconds. Every error, log line and hook payload of every failure
 * path is kept and searched for the API token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AmbiguousCreateError,
  IDEMPOTENCY_METADATA_KEY,
  InputValidationError,
  PartnerClient,
  PartnerSdkError,
  type Reservation,
} from 'restaurant-partner-sdk';
import {
  createClockRateLimiter,
  createFakeService,
  FakeClock,
  type FaultSpec,
  type OperationName,
} from 'restaurant-partner-sdk/testing';
import { startFakeServer, type RunningFakeServer } from 'restaurant-partner-sdk/testing/node';
import { capturingHooks, capturingLogger, findSecrets, renderError, secretForms } from './support/leaks.js';
import { seededRandom } from '../support/seeded-random.js';

const BOOKINGS = 240;
const SEED = Number(process.env.FAULT_SEED ?? 20261123);
const TIMEOUT_MS = 120;
const SLOW_MS = 300;
// Longer than the whole run on the virtual clock (every settle window included), so every hold is still on when the run reconciles.
const HOLD_MS = 6 * 60 * 60_000;

interface Outcome<T> {
  key: string;
  value?: T;
  error?: unknown;
}

/** Runs `tasks` with at most `width` in flight. */
async function pool<T>(width: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const index = next++;
        results[index] = await tasks[index]!();
      }
    }),
  );
  return results;
}

const settle = async <T>(key: string, run: () => Promise<T>): Promise<Outcome<T>> => {
  try {
    return { key, value: await run() };
  } catch (error) {
    return { key, error };
  }
};

/** Start times spread over many days and dinner slots, so availability never decides an outcome. */
function startTimeFor(index: number, baseDay: Date): string {
  const day = new Date(baseDay.getTime() + (2 + Math.floor(index / 8)) * 86_400_000)
    .toISOString()
    .slice(0, 10);
  const slot = 18 * 60 + (index % 8) * 15;
  return `${day}T${String(Math.floor(slot / 60)).padStart(2, '0')}:${String(slot % 60).padStart(2, '0')}:00`;
}

interface Stored {
  id: number;
  key: unknown;
  cancelled: boolean;
}

/** The balance sheet of a booking run. Returns counts for coverage assertions. */
function expectBookingsBalance(outcomes: Outcome<Reservation>[], stored: Stored[]) {
  const byKey = new Map<unknown, Stored[]>();
  for (const row of stored) byKey.set(row.key, [...(byKey.get(row.key) ?? []), row]);
  const duplicates = [...byKey]
    .filter(([, rows]) => rows.length > 1)
    .map(([key, rows]) => `${String(key)} x${rows.length}`);
  expect(duplicates, 'nothing exists twice').toEqual([]);

  const asked = new Set(outcomes.map((outcome) => outcome.key));
  const strays = stored.filter((row) => !asked.has(row.key as string)).map((row) => row.id);
  expect(strays, 'nothing exists that no caller asked for').toEqual([]);

  const counts = { succeeded: 0, ambiguous: 0, ambiguousButExists: 0, failed: 0 };
  for (const outcome of outcomes) {
    const rows = byKey.get(outcome.key) ?? [];
    if (outcome.value) {
      counts.succeeded += 1;
      expect(rows, `told success for ${outcome.key}: exists exactly once`).toHaveLength(1);
      expect(outcome.value.id).toBe(rows[0]!.id);
      expect(outcome.value.metadata?.[IDEMPOTENCY_METADATA_KEY]).toBe(outcome.key);
    } else if (outcome.error instanceof AmbiguousCreateError) {
      counts.ambiguous += 1;
      expect(outcome.error.idempotencyKey, 'an ambiguous create carries its key').toBe(outcome.key);
      expect(rows.length).toBeLessThanOrEqual(1);
      if (rows.length === 1) counts.ambiguousButExists += 1;
    } else {
      counts.failed += 1;
      expect(outcome.error, String(outcome.error)).toBeInstanceOf(PartnerSdkError);
      expect(outcome.error).not.toBeInstanceOf(InputValidationError);
      expect(
        rows,
        `told failed (${(outcome.error as Error).name}) for ${outcome.key}: does not exist`,
      ).toHaveLength(0);
    }
  }
  return counts;
}

/**
 * The documented recovery from AmbiguousCreateError: repeat the create with the same key. While the
 * key is held (`ambiguousHoldMs`) a repeat sends no create: it returns the booking when a look-up
 * finds it, or throws AmbiguousCreateError again. Once the hold is over, a repeat books what does
 * not exist yet. Afterwards each of those bookings exists exactly once.
 */
async function reconcileAmbiguous(
  client: PartnerClient,
  restaurantId: number,
  outcomes: Outcome<Reservation>[],
  inputs: Map<string, Parameters<PartnerClient['reservations']['create']>[1]>,
  stored: () => Stored[],
  passTheHold: () => Promise<void>,
) {
  const ambiguous = outcomes.filter((outcome) => outcome.error instanceof AmbiguousCreateError);
  const repeat = (key: string) =>
    settle(key, () => client.reservations.create(restaurantId, inputs.get(key)!, { idempotencyKey: key }));
  let held = 0;
  // An ambiguous create that sent nothing (its look-up before sending could not tell) holds nothing.
  for (const outcome of ambiguous.filter(
    (candidate) => (candidate.error as AmbiguousCreateError).sent !== 'no',
  )) {
    const before = stored().filter((row) => row.key === outcome.key);
    const again = await repeat(outcome.key);
    expect(
      stored().filter((row) => row.key === outcome.key),
      `a held key sends nothing: ${outcome.key}`,
    ).toHaveLength(before.length);
    if (before.length === 1)
      expect(again.value?.id, `the held key's booking is found: ${outcome.key}`).toBe(before[0]!.id);
    else {
      expect(again.error, `a held key with no booking is ambiguous again: ${outcome.key}`).toBeInstanceOf(
        AmbiguousCreateError,
      );
      held += 1;
    }
  }
  await passTheHold();
  for (const outcome of ambiguous) {
    const booked = await client.reservations.create(restaurantId, inputs.get(outcome.key)!, {
      idempotencyKey: outcome.key,
    });
    const rows = stored().filter((row) => row.key === outcome.key);
    expect(rows, outcome.key).toHaveLength(1);
    expect(booked.id).toBe(rows[0]!.id);
  }
  return { ambiguous: ambiguous.length, held };
}

/** Everything rendered during a run, to search for the token afterwards. */
function leakRecorder(partnerId: string, apiToken: string) {
  const logger = capturingLogger();
  const hooks = capturingHooks();
  const errors: unknown[] = [];
  return {
    logger,
    hooks,
    errors,
    keep<T>(outcomes: Outcome<T>[]) {
      for (const outcome of outcomes) if (outcome.error) errors.push(outcome.error);
    },
    expectClean() {
      const texts = [...logger.lines, ...hooks.payloads, ...errors.flatMap(renderError)];
      expect(
        findSecrets(texts, secretForms(partnerId, apiToken)),
        'the API token in an error, a log line or a hook payload',
      ).toEqual([]);
      return texts.length;
    },
  };
}

describe('(a) against the fake on a real node:http server, ignoring Idempotency-Key, six callers at once', () => {
  const partnerId = 'c0ffee00-1234-4abc-8def-001122334455';
  const apiToken = 'fault-suite-token-9f8e7d6c5b4a39281706';
  // The faults a live service behind load balancers plays: 429 with and without Retry-After, 5xx
  // before or after it committed, connections dropped before or after committing, and an answer
  // slower than the client's timeout that commits all the same.
  const faultMenu: FaultSpec[] = [
    { status: 429, headers: { 'retry-after': '1' } },
    { status: 429 },
    { status: 503, phase: 'before' },
    { status: 500, phase: 'before' },
    { status: 502, phase: 'after' },
    { status: 500, phase: 'after' },
    { networkError: true, phase: 'before' },
    { networkError: true, phase: 'after' },
    { latencyMs: SLOW_MS, phase: 'after' },
  ];
  let server: RunningFakeServer;
  let client: PartnerClient;
  const recorder = leakRecorder(partnerId, apiToken);
  const random = seededRandom(SEED);
  let bookings: Outcome<Reservation>[] = [];
  const inputs = new Map<string, Parameters<PartnerClient['reservations']['create']>[1]>();
  const injected = new Map<OperationName, Set<string>>();
  /** Before each call, with probability 0.3 per attempt slot, queue a random fault; six callers share the queue, as they share a real service's bad moments. */
  const injectRandomFaults = (operation: 'reservations.create' | 'reservations.cancel') => {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      if (random() >= 0.3) continue;
      const fault = faultMenu[Math.floor(random() * faultMenu.length)]!;
      server.fake.injectFault({ ...fault, operation });
      injected.set(operation, (injected.get(operation) ?? new Set()).add(JSON.stringify(fault)));
    }
    if (random() < 0.05) server.fake.injectFault({ operation: 'reservations.list', status: 503, times: 4 });
  };
  const storedRows = () =>
    server.fake.allReservations(1).map((row) => ({
      id: row.id,
      key: (row.metadata as Record<string, unknown> | null)?.[IDEMPOTENCY_METADATA_KEY],
      cancelled: row.cancelled as boolean,
    }));
  /** Answers the server gave to `operation`, by status (null: the connection was dropped). */
  const answered = (operation: string) =>
    server.fake.requests.filter((entry) => entry.operation === operation).map((entry) => entry.status);

  const clock = new FakeClock({ frozen: true });
  beforeAll(async () => {
    // The server's rate limit is off: its clock is real time, while the client paces on a frozen FakeClock.
    server = await startFakeServer({
      rateLimit: false,
      dialect: { idempotencyKey: 'ignored' },
      journalLimit: 20_000,
    });
    server.fake.addPartner({ partnerId, apiToken, name: 'Fault suite' });
    server.fake.addRestaurant({
      display_name: 'Fault Bistro',
      partnerIds: [partnerId],
      availability: { capacityCovers: 100_000 },
    });
    client = new PartnerClient({
      baseUrl: server.url,
      partnerId,
      apiToken,
      clock,
      rateLimit: createClockRateLimiter({ requestsPerSecond: 1, clock }),
      timeoutMs: TIMEOUT_MS,
      maxRetries: 3,
      ambiguousHoldMs: HOLD_MS,
      logger: recorder.logger,
      hooks: recorder.hooks,
    });
  });
  afterAll(() => server.close());

  it(`books ${BOOKINGS} tables under faults: told-success exists once, told-failed absent or ambiguous with its key, nothing twice`, async () => {
    const baseDay = new Date('2026-12-01T00:00:00Z');
    bookings = await pool(
      6,
      Array.from({ length: BOOKINGS }, (_, index) => {
        const key = `misbehaving-${SEED}-${index}`;
        const input = {
          start_time: `${startTimeFor(index, baseDay)}+01:00`,
          adults: 2,
          first_name: `Guest ${index}`,
        };
        inputs.set(key, input);
        return () => {
          injectRandomFaults('reservations.create');
          return settle(key, () =>
            client.reservations.create(
              1,
              input,
              // Every fifth caller allows no retry, so failures reach the caller too (not only recoveries).
              { idempotencyKey: key, ...(index % 5 === 0 ? { maxRetries: 0 } : {}) },
            ),
          );
        };
      }),
    );
    server.fake.clearFaults();
    // A slow answer's commit lands after its caller gave up: wait for the last ones.
    await new Promise((resolve) => setTimeout(resolve, SLOW_MS * 2));
    recorder.keep(bookings);

    const counts = expectBookingsBalance(bookings, storedRows());
    // The run proves something only if every kind of fault hit creates, and every outcome occurred.
    expect(injected.get('reservations.create')?.size, 'every kind of fault was injected on creates').toBe(
      faultMenu.length,
    );
    const statuses = answered('reservations.create');
    for (const status of [429, 500, 502, 503, null])
      expect(statuses, `create answered ${status}`).toContain(status);
    expect(counts.succeeded).toBeGreaterThan(BOOKINGS / 2);
    expect(counts.ambiguous, 'some creates stayed ambiguous').toBeGreaterThan(0);
    // A create that committed behind a fault (a 5xx or drop after commit, an answer past the
    // timeout) resolves to success through the lookup by its key: more successes than 201s.
    const answeredCreated = statuses.filter((status) => status === 201).length;
    expect(counts.succeeded, 'creates committed behind a fault resolve to success').toBeGreaterThan(
      answeredCreated,
    );
    expect(counts.failed, 'some creates were told failed (and proven absent)').toBeGreaterThan(0);
    console.info(
      `fake server ignoring Idempotency-Key, seed ${SEED}: ${JSON.stringify(counts)}; ${server.fake.requests.length} requests`,
    );
    // Real sockets and real per-attempt timeouts: a loaded machine stretches it.
  }, 90_000);

  it('reconciles every ambiguous booking by its key: found where it exists, booked again where not, then exactly once', async () => {
    const result = await reconcileAmbiguous(client, 1, bookings, inputs, storedRows, async () =>
      clock.advance('PT6H1M'),
    );
    expect(result.ambiguous).toBeGreaterThan(0);
  });

  it('cancels under faults: told-success is cancelled, failures converge when repeated, untouched ones stay booked', async () => {
    const existing = storedRows();
    expect(existing.length).toBeGreaterThan(100);
    const targets = existing.filter((_, index) => index % 4 !== 3);
    const untouched = existing.filter((_, index) => index % 4 === 3);
    const cancelsBefore = answered('reservations.cancel').length;

    const cancels = await pool(
      6,
      targets.map((row, index) => () => {
        injectRandomFaults('reservations.cancel');
        return settle(String(row.id), () =>
          client.reservations.cancel(1, row.id, index % 5 === 0 ? { maxRetries: 0 } : {}),
        );
      }),
    );
    server.fake.clearFaults();
    await new Promise((resolve) => setTimeout(resolve, SLOW_MS * 2));
    recorder.keep(cancels);

    const rows = () => new Map(storedRows().map((row) => [row.id, row]));
    const after = rows();
    let failed = 0;
    for (const [index, outcome] of cancels.entries()) {
      const row = after.get(targets[index]!.id)!;
      if (outcome.error === undefined) {
        expect(row.cancelled, `told cancelled: ${row.id}`).toBe(true);
        if (outcome.value) expect(outcome.value).toMatchObject({ id: row.id, cancelled: true });
      } else {
        failed += 1;
        expect(outcome.error).toBeInstanceOf(PartnerSdkError);
        expect(outcome.error).not.toBeInstanceOf(InputValidationError);
      }
    }
    expect(after.size, 'cancelling never creates').toBe(existing.length);
    for (const row of untouched)
      expect(after.get(row.id)!.cancelled, `nobody cancelled ${row.id}`).toBe(false);
    expect(injected.get('reservations.cancel')?.size, 'every kind of fault was injected on cancels').toBe(
      faultMenu.length,
    );
    const statuses = answered('reservations.cancel').slice(cancelsBefore);
    for (const status of [429, 500, 502, 503, null])
      expect(statuses, `cancel answered ${status}`).toContain(status);

    // Failed cancellations converge: with the faults gone, repeating them ends cancelled.
    const retried = await pool(
      6,
      cancels.flatMap((outcome, index) =>
        outcome.error === undefined
          ? []
          : [
              () =>
                settle(String(targets[index]!.id), () => client.reservations.cancel(1, targets[index]!.id)),
            ],
      ),
    );
    expect(failed, 'some cancellations were told failed').toBeGreaterThan(0);
    expect(retried.filter((outcome) => outcome.error !== undefined)).toEqual([]);
    const final = rows();
    for (const row of targets) expect(final.get(row.id)!.cancelled).toBe(true);
    for (const row of untouched) expect(final.get(row.id)!.cancelled).toBe(false);
    console.info(`fake server cancels: ${targets.length} asked, ${failed} told failed then converged`);
  });

  it('never shows the API token in any error, log line or hook payload of any failure path above', () => {
    expect(recorder.errors.length).toBeGreaterThan(0);
    expect(recorder.expectClean()).toBeGreaterThan(recorder.errors.length);
  });
});

describe('(b) against the fake service with its fault injection (1 req/s limit, virtual clock)', () => {
  const fake = createFakeService();
  const partner = fake.addPartner({ name: 'Fault suite' });
  const restaurant = fake.addRestaurant({
    display_name: 'Fault Bistro',
    availability: { capacityCovers: 100_000 },
  });
  fake.link(partner.partnerId, restaurant.id);
  const recorder = leakRecorder(partner.partnerId, partner.apiToken);
  // In-process, an attempt takes well under a millisecond, so a short timeout keeps latency faults cheap.
  const client = new PartnerClient({
    ...fake.clientOptions(partner),
    timeoutMs: 60,
    maxRetries: 3,
    ambiguousHoldMs: HOLD_MS,
    logger: recorder.logger,
    hooks: recorder.hooks,
  });
  const random = seededRandom(SEED);
  const faultMenu: FaultSpec[] = [
    { status: 429, headers: { 'retry-after': '1' } },
    { status: 429 },
    { status: 503, phase: 'before' },
    { status: 500, phase: 'after' },
    { status: 502, phase: 'after' },
    { networkError: true, phase: 'before' },
    { networkError: true, phase: 'after' },
    { latencyMs: 150 },
  ];
  const injected = new Map<string, number>();
  /** Before each call: with probability 0.35 per attempt slot, queue a random fault for this operation (and sometimes for the lookup). */
  const injectRandomFaults = (operation: 'reservations.create' | 'reservations.cancel') => {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      if (random() < 0.35) {
        const fault = faultMenu[Math.floor(random() * faultMenu.length)]!;
        fake.injectFault({ ...fault, operation });
        injected.set(JSON.stringify(fault), (injected.get(JSON.stringify(fault)) ?? 0) + 1);
      }
    }
    if (random() < 0.1) fake.injectFault({ operation: 'reservations.list', status: 503 });
    // Now and then the lookup by key fails past its retries, so an unknown outcome must surface as AmbiguousCreateError.
    if (operation === 'reservations.create' && random() < 0.08)
      fake.injectFault({ operation: 'reservations.list', status: 503, times: 4 });
  };
  const bookings: Outcome<Reservation>[] = [];
  const inputs = new Map<string, Parameters<PartnerClient['reservations']['create']>[1]>();
  const storedRows = () =>
    fake.allReservations(restaurant.id).map((row) => ({
      id: row.id,
      key: (row.metadata as Record<string, unknown> | null)?.[IDEMPOTENCY_METADATA_KEY],
      cancelled: row.cancelled as boolean,
    }));
  afterAll(() => fake.dispose());

  it(`books ${BOOKINGS} tables under injected faults and the books balance`, async () => {
    const baseDay = new Date(fake.clock.now());
    for (let index = 0; index < BOOKINGS; index += 1) {
      const key = `fake-${SEED}-${index}`;
      const input = { start_time: startTimeFor(index, baseDay), adults: 2 };
      inputs.set(key, input);
      injectRandomFaults('reservations.create');
      bookings.push(
        await settle(key, () =>
          client.reservations.create(restaurant.id, input, {
            idempotencyKey: key,
            ...(index % 5 === 0 ? { maxRetries: 0 } : {}),
          }),
        ),
      );
      // Faults left unused by this booking must not hit the next one's lookup or retries out of order.
      fake.clearFaults();
    }
    recorder.keep(bookings);
    const counts = expectBookingsBalance(bookings, storedRows());
    expect(injected.size, 'every kind of fault was injected').toBe(faultMenu.length);
    expect(counts.succeeded).toBeGreaterThan(BOOKINGS / 2);
    expect(counts.failed, 'some bookings were told failed').toBeGreaterThan(0);
    expect(counts.ambiguous, 'some bookings were ambiguous (the lookup failed too)').toBeGreaterThan(0);
    console.info(`fake, seed ${SEED}: ${JSON.stringify(counts)}`);
  });

  it('reconciles every ambiguous booking by its key: found where it exists, booked again where not, then exactly once', async () => {
    const result = await reconcileAmbiguous(client, restaurant.id, bookings, inputs, storedRows, async () =>
      fake.clock.advance('PT6H1M'),
    );
    expect(result.ambiguous).toBeGreaterThan(0);
  });

  it('cancels under injected faults: told-success cancelled, failures converge, untouched ones stay booked', async () => {
    const existing = fake.allReservations(restaurant.id);
    const targets = existing.filter((_, index) => index % 4 !== 3);
    const untouched = existing.filter((_, index) => index % 4 === 3);
    const cancels: Outcome<Reservation | null>[] = [];
    for (const row of targets) {
      injectRandomFaults('reservations.cancel');
      cancels.push(
        await settle(String(row.id), () =>
          client.reservations.cancel(
            restaurant.id,
            row.id,
            cancels.length % 5 === 0 ? { maxRetries: 0 } : {},
          ),
        ),
      );
      fake.clearFaults();
    }
    recorder.keep(cancels);
    const state = () => new Map(fake.allReservations(restaurant.id).map((row) => [row.id, row]));
    const after = state();
    expect(after.size).toBe(existing.length);
    const failedIndexes: number[] = [];
    for (const [index, outcome] of cancels.entries()) {
      const row = after.get(targets[index]!.id)!;
      if (outcome.error === undefined) expect(row.cancelled, `told cancelled: ${row.id}`).toBe(true);
      else {
        failedIndexes.push(index);
        expect(outcome.error).toBeInstanceOf(PartnerSdkError);
      }
    }
    for (const row of untouched) expect(after.get(row.id)!.cancelled).toBe(false);
    expect(failedIndexes.length, 'some cancellations were told failed').toBeGreaterThan(0);
    for (const index of failedIndexes) await client.reservations.cancel(restaurant.id, targets[index]!.id);
    const final = state();
    for (const row of targets) expect(final.get(row.id)!.cancelled).toBe(true);
    for (const row of untouched) expect(final.get(row.id)!.cancelled).toBe(false);
    // Each cancellation sent exactly one RESERVATION_CANCELLED-worthy transition: no reservation is cancelled twice.
    expect([...final.values()].filter((row) => row.cancelled)).toHaveLength(targets.length);
  });

  it('never shows the API token in any error, log line or hook payload of any failure path above', () => {
    expect(recorder.errors.length).toBeGreaterThan(0);
    recorder.expectClean();
  });
});
