/**
 * The rebook saga under seeded faults, against the in-process fake on its frozen clock. Each run
 * books an old reservation, then moves it with `reservations.rebook` while every step can fail:
 *
 * - the create of the new booking: 429 or 5xx before or after it took effect, a dropped
 *   connection, a gateway 504 while the origin commits late (`commitDelayMs`), an answer lost
 *   after the service booked (what a timeout leaves);
 * - the reads (the old booking, the confirmation polls, the look-ups by key) and both cancels:
 *   429, 5xx, dropped connections, answers lost after the service acted;
 * - the restaurant: it confirms at once, confirms by hand some time later, never confirms, or
 *   refuses the new booking; or it has no table at the new time;
 * - crashes: the call is abandoned (its signal aborts) just before, or just after, the service
 *   received the n-th request, at any step.
 *
 * After every failure the job repeats the rebook with the same key, as a queue would, a little
 * later on the fake's clock, until it ends (success, NoAvailabilityError, RebookNotConfirmedError).
 * Then the books must balance: exactly one live booking of the partner at the restaurant, the new
 * one on success, the old one otherwise, even after every late commit has landed; and one more
 * repeat, faults gone, ends the same way and sends no write. REBOOK_SEED replays a run.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  IDEMPOTENCY_METADATA_KEY,
  NoAvailabilityError,
  PartnerClient,
  RebookIncompleteError,
  RebookNotConfirmedError,
  type Reservation,
} from 'restaurant-partner-sdk';
import { createFakeService, type FaultSpec, type OperationName } from 'restaurant-partner-sdk/testing';
import { propertyRuns } from '../support/property-runs.js';
import { seededRandom } from '../support/seeded-random.js';

const SEED = Number(process.env.REBOOK_SEED ?? 20261128);
// About 150 ms a run (in-process, virtual time): the fast lane tries a fifth of them, and the
// coverage check (every ending, every step stopped at) holds over the full count.
const FULL_RUNS = 200;
const RUNS = propertyRuns(FULL_RUNS);
const KEY = 'move-order-1042';
const NEW_KEY = `${KEY}:new`;
const CONFIRMATION_DEADLINE_MS = 20_000;
const MAX_ATTEMPTS = 60;
// Each create whose outcome stayed unknown holds its key for 15 minutes (the default ambiguousHoldMs): a queue retrying every 5 minutes.
const BETWEEN_ATTEMPTS_MS = 5 * 60_000;
const OLD_INPUT = { start_time: { date: '2026-12-05', time: '19:30' }, adults: 2, first_name: 'Ada' };
const NEW_TIME = { date: '2026-12-05', time: '20:15' };
// Outside the fake's opening hours: a 409 no_availability.
const CLOSED_TIME = { date: '2026-12-05', time: '16:00' };

type Restaurant = 'sync' | 'confirms-later' | 'never-confirms' | 'refuses' | 'no-table';

interface Plan {
  restaurant: Restaurant;
  /** When the restaurant confirms or refuses, after it first sees the new booking. */
  actsAfterMs: number;
  dialect: 'honoured' | 'ignored';
  faults: FaultSpec[];
  /** Partner requests (counted from 1 over the whole run) at which the call is abandoned, and whether the service got them first. */
  crashes: Map<number, 'before' | 'after'>;
  /** Partner requests whose answer is lost after the service acted. */
  lostAnswers: Set<number>;
}

function draw(seed: number): Plan {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const int = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const restaurant = pick<Restaurant>([
    'sync',
    'sync',
    'confirms-later',
    'confirms-later',
    'never-confirms',
    'refuses',
    'no-table',
  ]);
  const faults: FaultSpec[] = [];
  const some = (operation: OperationName, options: FaultSpec[]) => {
    if (random() < 0.5) faults.push({ operation, ...pick(options), times: int(1, 5) });
  };
  some('reservations.create', [
    { status: 429 },
    { status: 429, phase: 'after' },
    { status: 503 },
    { status: 502, phase: 'after' },
    { networkError: true },
    { networkError: true, phase: 'after' },
    { status: 504, commitDelayMs: int(1, 300) * 1000 },
  ]);
  for (const operation of ['reservations.retrieve', 'reservations.list', 'reservations.cancel'] as const)
    some(operation, [
      { status: 429 },
      { status: 503 },
      { status: 500, phase: 'after' },
      { networkError: true, phase: 'after' },
    ]);
  const crashes = new Map<number, 'before' | 'after'>();
  const lostAnswers = new Set<number>();
  for (let count = int(0, 3); count > 0; count -= 1)
    crashes.set(int(1, 40), random() < 0.5 ? 'before' : 'after');
  for (let count = int(0, 2); count > 0; count -= 1) lostAnswers.add(int(1, 40));
  return {
    restaurant,
    actsAfterMs: int(0, 30) * 1000,
    dialect: random() < 0.3 ? 'ignored' : 'honoured',
    faults,
    crashes,
    lostAnswers,
  };
}

const isLive = (row: Reservation) => !row.cancelled && !row.arrived && !row.no_show;

type Ending =
  { kind: 'moved'; reservation: Reservation } | { kind: 'no-table' | 'not-confirmed'; error: unknown };

const tally = {
  runs: 0,
  endings: new Map<string, number>(),
  incompleteSteps: new Map<string, number>(),
  otherErrors: new Map<string, number>(),
  crashes: 0,
  lostAnswers: 0,
  attempts: 0,
  mostAttempts: 0,
  lateCommits: 0,
};
const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

afterAll(() => {
  const list = (map: Map<string, number>) => [...map].map(([key, count]) => `${key} ${count}`).join(', ');
  console.info(
    [
      `rebook under faults (seed ${SEED}): ${tally.runs} runs, ${tally.attempts} rebook calls (at most ${tally.mostAttempts} in one run)`,
      `  endings: ${list(tally.endings)}`,
      `  stopped midway, then repeated: ${list(tally.incompleteSteps)}`,
      `  other failures repeated: ${list(tally.otherErrors)}`,
      `  crashes ${tally.crashes}, answers lost ${tally.lostAnswers}, late-committing creates ${tally.lateCommits}`,
      '  every run: exactly one live booking at the end (the new one on success, the old one otherwise)',
    ].join('\n'),
  );
});

async function run(seed: number) {
  const plan = draw(seed);
  const fake = createFakeService({
    clock: { frozen: true, startAt: '2026-12-01T08:00:00Z' },
    dialect: { idempotencyKey: plan.dialect },
    // Not what is proved here, and each rate-limit wait is a real macrotask of the fake clock's sleep.
    rateLimit: false,
  });
  const partner = fake.addPartner();
  const asynchronous = plan.restaurant !== 'sync' && plan.restaurant !== 'no-table';
  const restaurant = fake.addRestaurant({
    partnerIds: [partner.partnerId],
    confirmation_mode: asynchronous ? 'CONFIRMATION_MODE_ASYNCHRONOUS' : 'CONFIRMATION_MODE_SYNCHRONOUS',
  });
  const rid = restaurant.id;
  const options = fake.clientOptions(partner);
  let attempt = new AbortController();
  let requests = 0;
  let armed = false;
  const seenAt = new Map<number, number>();

  /** The restaurant's side, played before each request: it confirms or refuses the new booking when its time comes. */
  const restaurantActs = async () => {
    for (const row of fake.allReservations(rid)) {
      if (row.metadata?.[IDEMPOTENCY_METADATA_KEY] !== NEW_KEY || row.cancelled || row.confirmed) continue;
      if (!seenAt.has(row.id)) seenAt.set(row.id, fake.clock.now());
      if (fake.clock.now() - seenAt.get(row.id)! < plan.actsAfterMs) continue;
      if (plan.restaurant === 'confirms-later') await fake.asRestaurant.confirm(rid, row.id);
      if (plan.restaurant === 'refuses') await fake.asRestaurant.cancel(rid, row.id);
    }
  };

  const send: typeof fetch = async (input, init) => {
    if (!armed) return options.fetch(input, init);
    await restaurantActs();
    requests += 1;
    const crash = plan.crashes.get(requests);
    if (crash === 'before') {
      tally.crashes += 1;
      attempt.abort(new Error('crash'));
      throw new DOMException('The operation was aborted.', 'AbortError');
    }
    const response = await options.fetch(input, init);
    if (crash === 'after') {
      tally.crashes += 1;
      attempt.abort(new Error('crash'));
      throw new DOMException('The operation was aborted.', 'AbortError');
    }
    if (plan.lostAnswers.has(requests)) {
      tally.lostAnswers += 1;
      throw new DOMException('The operation timed out.', 'TimeoutError');
    }
    return response;
  };
  const client = new PartnerClient({ ...options, fetch: send });
  const old = await client.reservations.create(rid, OLD_INPUT);
  if (asynchronous) await fake.asRestaurant.confirm(rid, old.id);
  for (const fault of plan.faults) {
    fake.injectFault(fault);
    if (fault.commitDelayMs !== undefined) tally.lateCommits += 1;
  }
  armed = true;

  const input = {
    ...OLD_INPUT,
    start_time: plan.restaurant === 'no-table' ? CLOSED_TIME : NEW_TIME,
  };
  const rebook = () =>
    client.reservations.rebook(rid, old.id, input, {
      idempotencyKey: KEY,
      confirmationDeadlineMs: CONFIRMATION_DEADLINE_MS,
      signal: attempt.signal,
    });

  let ending: Ending | undefined;
  let calls = 0;
  const history: string[] = [];
  while (ending === undefined) {
    calls += 1;
    expect(
      calls,
      `seed ${seed}: ends within ${MAX_ATTEMPTS} rebook calls (${history.join(', ')})`,
    ).toBeLessThanOrEqual(MAX_ATTEMPTS);
    attempt = new AbortController();
    try {
      ending = { kind: 'moved', reservation: await rebook() };
    } catch (error) {
      if (error instanceof NoAvailabilityError) ending = { kind: 'no-table', error };
      else if (error instanceof RebookNotConfirmedError) ending = { kind: 'not-confirmed', error };
      else {
        // Anything else: the job runs again later with the same key.
        if (error instanceof RebookIncompleteError) bump(tally.incompleteSteps, error.step);
        else bump(tally.otherErrors, (error as Error).name);
        history.push(
          error instanceof RebookIncompleteError ? `incomplete:${error.step}` : (error as Error).name,
        );
        await fake.clock.advance(BETWEEN_ATTEMPTS_MS);
      }
    }
  }
  tally.runs += 1;
  tally.attempts += calls;
  tally.mostAttempts = Math.max(tally.mostAttempts, calls);
  bump(
    tally.endings,
    ending.kind === 'not-confirmed'
      ? `not-confirmed (${(ending.error as RebookNotConfirmedError).reason})`
      : ending.kind,
  );

  // Every late commit lands, the restaurant has had all the time it wanted.
  armed = false;
  await fake.clock.advance(60 * 60_000);
  const live = () =>
    fake
      .allReservations(rid)
      .filter(isLive)
      .map((row) => row.id);
  const context = `seed ${seed}, plan ${JSON.stringify({ ...plan, crashes: [...plan.crashes], lostAnswers: [...plan.lostAnswers] })}, calls ${history.join(', ')}`;
  const expected = ending.kind === 'moved' ? ending.reservation.id : old.id;
  expect(live(), `${context}: exactly one live booking`).toEqual([expected]);
  if (ending.kind === 'moved') {
    expect(ending.reservation.confirmed, context).toBe(true);
    expect(ending.reservation.start_time.slice(11, 16), context).toBe('20:15');
    expect(plan.restaurant === 'sync' || plan.restaurant === 'confirms-later', context).toBe(true);
  } else if (ending.kind === 'no-table') {
    expect(plan.restaurant, context).toBe('no-table');
  } else {
    expect(['never-confirms', 'refuses', 'confirms-later'], context).toContain(plan.restaurant);
  }

  // The job runs once more (a redelivery): the same ending, no write sent.
  fake.clearFaults();
  const writes = () =>
    fake.requests.filter((entry) => entry.method === 'POST' || entry.method === 'PATCH').length;
  const before = writes();
  attempt = new AbortController();
  const again = await rebook().then(
    (reservation) => ({ kind: 'moved', reservation }) as const,
    (error: unknown) => ({ kind: 'failed', error }) as const,
  );
  if (ending.kind === 'moved') {
    expect(again.kind === 'moved' && again.reservation.id, context).toBe(ending.reservation.id);
  } else if (ending.kind === 'no-table') {
    expect(again.kind === 'failed' && again.error, context).toBeInstanceOf(NoAvailabilityError);
  } else {
    expect(again.kind === 'failed' && again.error, context).toBeInstanceOf(RebookNotConfirmedError);
  }
  // A 409 no_availability is a POST the service refused: nothing booked, and the only write a repeat may send.
  if (ending.kind !== 'no-table') expect(writes(), `${context}: a repeat sends no write`).toBe(before);
  expect(live(), context).toEqual([expected]);
  fake.dispose();
}

// Runs in batches, each a test of its own, so a loaded machine slows a batch, never the whole proof, past a test's time limit.
const BATCH = 20;

describe('rebook under seeded faults and crashes', () => {
  for (let first = 0; first < RUNS; first += BATCH) {
    const last = Math.min(first + BATCH, RUNS) - 1;
    it(`runs ${first + 1} to ${last + 1} of ${RUNS}: each ends with exactly one live booking, and a repeat changes nothing`, async () => {
      for (let index = first; index <= last; index += 1) await run(SEED + index);
    }, 60_000);
  }

  it('the runs went through every ending and stopped at every step (over the full count)', () => {
    expect(tally.runs).toBe(RUNS);
    // The fast lane's fifth of the runs proves the balance of each, not the coverage.
    if (RUNS < FULL_RUNS) return;
    for (const kind of ['moved', 'no-table', 'not-confirmed (deadline)', 'not-confirmed (cancelled)'])
      expect(tally.endings.get(kind) ?? 0, kind).toBeGreaterThan(0);
    for (const step of ['create', 'confirm', 'cancel-new', 'cancel-old'])
      expect(tally.incompleteSteps.get(step) ?? 0, step).toBeGreaterThan(0);
  });
});
