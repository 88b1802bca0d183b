/**
 * `restaurant-partner trigger <scenario>`: plays the restaurant's, the customer's or time's part
 * on the fake (the standalone server or one of its sandboxes), then prints the reservation after
 * and the deliveries the step made. `--file` runs a list of steps.
 * @module
 */
import { readFileSync } from 'node:fs';
import type { Reservation } from '../resources/reservations.schemas.js';
import { connectFake, type RemoteFake } from '../testing/remote-fake.js';
import type { DeliveryLogEntry } from '../testing/backend/state.js';
import {
  CommandFailure,
  createOutput,
  createRedactor,
  fakeUrlOf,
  keyValues,
  runCommand,
  text,
  UsageError,
  type CommandDefinition,
} from './cli-kit.js';
import { deliveryLine, deliveryKey } from './delivery-lines.js';

type State = 'created' | 'confirmed' | 'cancelled' | 'arrived' | 'no_show';

/** Each scenario: the states it applies to (to pick a reservation when none is named) and its call. */
const SCENARIOS = {
  'restaurant.confirm': { from: ['created'], act: (fake, r, id) => fake.asRestaurant.confirm(r, id) },
  'restaurant.modify': {
    from: ['created', 'confirmed'],
    act: (fake, r, id, set) => fake.asRestaurant.modify(r, id, set),
  },
  'restaurant.cancel': {
    from: ['created', 'confirmed'],
    act: (fake, r, id) => fake.asRestaurant.cancel(r, id),
  },
  'customer.cancel': { from: ['created', 'confirmed'], act: (fake, r, id) => fake.asCustomer.cancel(r, id) },
  'customer.modify': {
    from: ['created', 'confirmed'],
    act: (fake, r, id, set) => fake.asCustomer.modify(r, id, set),
  },
  'guest.arrive': { from: ['confirmed'], act: (fake, r, id) => fake.asRestaurant.arrive(r, id) },
  'guest.no-show': { from: ['created', 'confirmed'], act: (fake, r, id) => fake.asRestaurant.noShow(r, id) },
  'time.advance': { from: [], act: undefined },
} satisfies Record<
  string,
  {
    from: State[];
    act:
      | ((
          fake: RemoteFake,
          restaurantId: number,
          reservationId: number,
          set: Record<string, unknown>,
        ) => Promise<Reservation>)
      | undefined;
  }
>;
type Scenario = keyof typeof SCENARIOS;

const usage = `Usage: restaurant-partner trigger <scenario> [--restaurant ID] [--reservation ID] [--set key=value ...]
       restaurant-partner trigger --file STEPS   [--url FAKE_URL] [--json]

Plays the restaurant's, the customer's or time's part on the fake, then prints the reservation
after and the deliveries made (each with the receiver's answer).
Scenarios: ${Object.keys(SCENARIOS).join(', ')}.
Without --reservation, the latest partner booking the scenario applies to is used (within
--restaurant when given). --set gives a modification's fields (adults=4, start_time=2026-12-05T20:00:00,
comment=...) or time.advance's duration=PT1H (ISO 8601) or to=2026-12-24T18:00:00Z.
--file reads steps, one per line in the same words (# starts a comment), or a JSON list of
{scenario, restaurant?, reservation?, set?}; it stops at the first step refused.
The fake is at --url, else PARTNER_BASE_URL, else http://127.0.0.1:4010 (a sandbox URL works).
Exit codes: 0 done, 1 a step was refused or the fake is unreachable, 2 usage.

Examples:
  restaurant-partner trigger restaurant.confirm --restaurant 2 --reservation 14
  restaurant-partner trigger customer.modify --reservation 14 --set adults=4
  restaurant-partner trigger time.advance --set duration=PT1H`;

const definition: CommandDefinition = {
  name: 'trigger',
  usage,
  positionals: 1,
  options: {
    restaurant: { type: 'string' },
    reservation: { type: 'string' },
    set: { type: 'string', multiple: true },
    file: { type: 'string' },
    url: { type: 'string' },
  },
};

/** One step, as a line of words or a JSON object gives it. */
interface Step {
  scenario: Scenario;
  restaurant?: number | undefined;
  reservation?: number | undefined;
  set: Record<string, unknown>;
}

/** A value from a scenario file or `--set`, as its author wrote it (an object as JSON, not "[object Object]"). */
const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

function positiveId(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number <= 0)
    throw new UsageError(`--${name} must be a positive whole number (got "${asText(value)}")`);
  return number;
}

function scenarioOf(value: unknown): Scenario {
  if (typeof value === 'string' && Object.hasOwn(SCENARIOS, value)) return value as Scenario;
  throw new UsageError(
    `unknown scenario "${String(value)}": expected one of ${Object.keys(SCENARIOS).join(', ')}`,
  );
}

/** Steps from `--file`: JSON, or lines in the command's own words. */
function stepsFromFile(path: string): Step[] {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--file ${path}: ${(error as Error).message}`);
  }
  if (content.trimStart().startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch (error) {
      throw new UsageError(`--file ${path}: not valid JSON (${(error as Error).message})`);
    }
    return (parsed as Record<string, unknown>[]).map((entry) => ({
      scenario: scenarioOf(entry?.scenario),
      restaurant: positiveId(entry.restaurant, 'restaurant'),
      reservation: positiveId(entry.reservation, 'reservation'),
      set: (entry.set ?? {}) as Record<string, unknown>,
    }));
  }
  return content
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean)
    .map((line) => {
      const words = line.split(/\s+/);
      const step: Step = { scenario: scenarioOf(words[0]), set: {} };
      const sets: string[] = [];
      for (let index = 1; index < words.length; index += 2) {
        const [flag, value] = [words[index], words[index + 1]];
        if (value === undefined) throw new UsageError(`--file: "${line}": ${flag} needs a value`);
        if (flag === '--restaurant') step.restaurant = positiveId(value, 'restaurant');
        else if (flag === '--reservation') step.reservation = positiveId(value, 'reservation');
        else if (flag === '--set') sets.push(value);
        else throw new UsageError(`--file: "${line}": unknown option ${flag}`);
      }
      step.set = keyValues(sets);
      return step;
    });
}

function stateOf(reservation: Partial<Reservation>): State {
  if (reservation.cancelled) return 'cancelled';
  if (reservation.no_show) return 'no_show';
  if (reservation.arrived) return 'arrived';
  return reservation.confirmed ? 'confirmed' : 'created';
}

/** The reservation a step acts on: the one named, or the latest partner booking it applies to. */
async function target(
  fake: RemoteFake,
  step: Step,
): Promise<{ restaurantId: number; reservationId: number }> {
  if (step.restaurant !== undefined && step.reservation !== undefined)
    return { restaurantId: step.restaurant, reservationId: step.reservation };
  const state = await fake.state({ reservations: 5000 });
  const candidates = state.reservations.filter(
    (reservation) =>
      (step.restaurant === undefined || reservation.restaurantId === step.restaurant) &&
      (step.reservation === undefined
        ? reservation.channel === 'partner' &&
          (SCENARIOS[step.scenario].from as State[]).includes(stateOf(reservation))
        : reservation.id === step.reservation),
  );
  const chosen = candidates.sort((a, b) => b.id - a.id)[0];
  if (!chosen)
    throw new CommandFailure(
      step.reservation === undefined
        ? `no partner booking ${step.restaurant === undefined ? '' : `at restaurant ${step.restaurant} `}in a state ${step.scenario} applies to (${SCENARIOS[step.scenario].from.join(' or ')}): book one first, or pass --reservation`
        : `no reservation ${step.reservation}${step.restaurant === undefined ? '' : ` at restaurant ${step.restaurant}`}`,
    );
  return { restaurantId: chosen.restaurantId, reservationId: chosen.id };
}

/** Runs one step; answers what to print. */
async function play(fake: RemoteFake, step: Step) {
  const before = new Set((await fake.deliveries()).map(deliveryKey));
  let reservation: Reservation | undefined;
  let restaurantId: number | undefined;
  let now: string | undefined;
  if (step.scenario === 'time.advance') {
    const { duration, to, ...rest } = step.set;
    if (Object.keys(rest).length > 0 || (duration === undefined) === (to === undefined))
      throw new UsageError('time.advance takes --set duration=PT1H (ISO 8601) or --set to=<ISO date-time>');
    now = (
      duration !== undefined ? await fake.clock.advance(asText(duration)) : await fake.clock.set(asText(to))
    ).toISOString();
  } else {
    const found = await target(fake, step);
    restaurantId = found.restaurantId;
    reservation = await SCENARIOS[step.scenario].act(fake, found.restaurantId, found.reservationId, step.set);
  }
  const deliveries = (await fake.deliveries()).filter((entry) => !before.has(deliveryKey(entry)));
  return { scenario: step.scenario, restaurantId, reservation, now, deliveries };
}

function summary(result: Awaited<ReturnType<typeof play>>): string {
  const head = result.reservation
    ? `${result.scenario}: reservation ${result.reservation.id} at restaurant ${result.restaurantId} -> ${stateOf(result.reservation)} (${result.reservation.start_time}, ${result.reservation.adults} adult${result.reservation.adults === 1 ? '' : 's'}${result.reservation.children ? ` + ${result.reservation.children} children` : ''})`
    : `${result.scenario}: the fake's clock is now ${result.now}`;
  const lines = result.deliveries.map((entry: DeliveryLogEntry) => `  ${deliveryLine(entry)}`);
  return [head, ...(lines.length > 0 ? lines : ['  no delivery made'])].join('\n');
}

/** Runs `restaurant-partner trigger` with `args`. */
export async function run(args: string[]): Promise<void> {
  await runCommand(definition, args, async (values, positionals) => {
    const file = text(values, 'file');
    if ((file === undefined) === (positionals[0] === undefined))
      throw new UsageError('give one scenario, or --file with a list of steps');
    const steps: Step[] =
      file !== undefined
        ? stepsFromFile(file)
        : [
            {
              scenario: scenarioOf(positionals[0]),
              restaurant: positiveId(text(values, 'restaurant'), 'restaurant'),
              reservation: positiveId(text(values, 'reservation'), 'reservation'),
              set: keyValues((values.set as string[] | undefined) ?? []),
            },
          ];
    const url = fakeUrlOf(values);
    const fake = await connectFake(url).catch((error: unknown) => {
      throw new CommandFailure(`cannot reach the fake at ${url}: ${(error as Error).message}`);
    });
    const redactor = createRedactor(fake.seed.partners.map((partner) => partner.apiToken));
    const print = createOutput(values.json === true, redactor.redact);
    for (const step of steps) {
      try {
        const result = await play(fake, step);
        print(result, summary(result));
      } catch (error) {
        if (error instanceof UsageError || error instanceof CommandFailure) throw error;
        const detail = error instanceof Error ? error.message : String(error);
        print(
          { scenario: step.scenario, refused: detail },
          `${step.scenario}: refused by the fake: ${detail}`,
        );
        return 1;
      }
    }
    return 0;
  });
}
