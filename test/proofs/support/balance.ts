/**
 * The scaffolding of the hostile-server proofs: a client and a server on one frozen fake clock,
 * and the balance of one create, what the client said against what the server holds:
 *
 * - told success: exactly one booking carries the key, and it is the one returned;
 * - AmbiguousCreateError: it carries the key, and at most one booking carries it;
 * - any other error: no booking carries the key.
 *
 * Each file's counts are printed once at the end, for the closing figures.
 */
import { afterAll, afterEach, expect } from 'vitest';
import {
  AmbiguousCreateError,
  PartnerClient,
  PartnerSdkError,
  type BookingLedger,
  type ClientOptions,
  type Reservation,
} from 'restaurant-partner-sdk';
import { FakeClock } from 'restaurant-partner-sdk/testing';
import { startHostileServer, type HostileHandler, type HostileServer } from '../../support/hostile-server.js';
import { capturingHooks, capturingLogger } from './leaks.js';

export type Outcome = { value: Reservation; error?: undefined } | { value?: undefined; error: unknown };

/** What a create ended in, as a value. */
export const settle = async (run: () => PromiseLike<Reservation>): Promise<Outcome> => {
  try {
    return { value: await run() };
  } catch (error) {
    return { error };
  }
};

/**
 * Registers the file's server clean-up and count report; returns its set-up and balance check.
 * `alone`: by default, a create told success must also be the only booking on the server.
 */
export function hostileProofs(
  title: string,
  credentials: { partnerId: string; apiToken: string },
  defaults: { alone?: boolean } = {},
) {
  const counts: string[] = [];
  const servers: HostileServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  afterAll(() => {
    console.info(`${title}, bookings on the server vs what the client reported:\n${counts.join('\n')}`);
  });

  async function setUp(handler: HostileHandler, options: Partial<ClientOptions> = {}) {
    const clock = new FakeClock({ frozen: true });
    const server = await startHostileServer(clock, handler);
    servers.push(server);
    const logger = capturingLogger();
    const hooks = capturingHooks();
    const client = new PartnerClient({
      baseUrl: server.url,
      ...credentials,
      rateLimit: false,
      clock,
      logger,
      hooks,
      ...options,
    });
    return { clock, server, client, logger, hooks };
  }

  /** The balance of one create. `alone`: the server holds no other booking beside it either. */
  function expectBalanced(
    name: string,
    server: HostileServer,
    key: string,
    outcome: Outcome,
    { alone = defaults.alone ?? false } = {},
  ) {
    const carrying = server.bookings.filter((booking) => booking.key === key);
    const told = outcome.value ? `success #${outcome.value.id}` : (outcome.error as Error).name;
    counts.push(
      `  ${name}: ${server.bookings.length} booked (${carrying.length} with the key), ${server.posts().length} POST, told ${told}`,
    );
    if (outcome.value) {
      expect(carrying, `${name}: told success, exactly one booking`).toHaveLength(1);
      if (alone) expect(server.bookings, `${name}: no second booking beside it`).toHaveLength(1);
      expect(outcome.value.id).toBe(carrying[0]!.id);
    } else if (outcome.error instanceof AmbiguousCreateError) {
      expect(outcome.error.idempotencyKey).toBe(key);
      expect(carrying.length).toBeLessThanOrEqual(1);
    } else {
      expect(outcome.error).toBeInstanceOf(PartnerSdkError);
      expect(carrying, `${name}: told ${told}, but a booking exists`).toHaveLength(0);
    }
  }

  return { setUp, expectBalanced, counts, servers };
}

/** What another process (or a restart) sees of the ledger: nothing, between calls. */
export const forgetfulLedger: BookingLedger = {
  claim: async () => undefined,
  renew: async () => true,
  settle: async () => undefined,
};
