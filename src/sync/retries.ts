/**
 * Changes `onChange` refused: each reservation is tried again on its own, 1 s, 2 s, 4 s ... up to
 * 1 min apart, with a warning each time, so one change that keeps failing (a reservation your
 * database rejects) never holds up any other.
 * @module
 */
import { PartnerSdkError } from '../errors.js';
import { nameErrorClass } from '../errors/base.js';
import type { Logger } from '../logger.js';
import type { Clock } from '../transport/clock.js';
import type { Observation, ReservationChange } from './changes.js';

/** Longest wait between two tries of a change whose `onChange` throws. */
const MAX_RETRY_DELAY_MS = 60_000;

/** `onChange` threw for this change: the sync tries it again on its own, with backoff. */
export class ChangeNotHandedOverError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'ChangeNotHandedOverError');
  }
  constructor(change: ReservationChange, cause: unknown) {
    super(
      `onChange (or the store's transaction around it) failed for reservation ${change.reservation.id} (${change.kind}, revision ${change.revision}); the sync tries it again`,
      { cause },
    );
  }
}

export interface Retries {
  /** Notes that a try failed, and tries again later (one loop per reservation). */
  failed(restaurantId: number, observation: Observation, error: ChangeNotHandedOverError): void;
  /**
   * When the reservation is being tried again, takes a read of it for the next try (reads do not
   * hurry the backoff) and answers true; false otherwise.
   */
  absorb(restaurantId: number, observation: Observation): boolean;
}

interface Retry {
  observation: Observation;
  failures: number;
}

export function createRetries(settings: {
  clock: Clock;
  logger: Logger;
  /** Announces the observation again; rejects when that failed. */
  tryAgain: (restaurantId: number, observation: Observation) => Promise<void>;
  /** The sync's stop signal: waits end with it. */
  signal: () => AbortSignal;
  /** Tracks the loop, so the sync's stop() waits for it. */
  keep: (work: Promise<void>) => void;
}): Retries {
  const { clock, logger } = settings;
  const retries = new Map<string, Retry>();
  const keyOf = (restaurantId: number, observation: Observation) =>
    `${restaurantId}:${observation.fields.id}`;
  const delayAfter = (failures: number) => Math.min(MAX_RETRY_DELAY_MS, 1000 * 2 ** (failures - 1));

  function failedAgain(retry: Retry, error: unknown): void {
    retry.failures += 1;
    const what =
      error instanceof ChangeNotHandedOverError
        ? error.message
        : `announcing reservation ${retry.observation.fields.id} failed`;
    logger.warn(`${what}, in ${delayAfter(retry.failures)} ms (${retry.failures} failed in a row)`, {
      error: error instanceof ChangeNotHandedOverError ? error.cause : error,
    });
  }

  async function loop(restaurantId: number, key: string, retry: Retry): Promise<void> {
    const signal = settings.signal();
    try {
      for (;;) {
        await clock.sleep(delayAfter(retry.failures), signal);
        try {
          await settings.tryAgain(restaurantId, retry.observation);
          return;
        } catch (error) {
          if (signal.aborted) return;
          failedAgain(retry, error);
        }
      }
    } catch {
      // Stopped while waiting: the next run announces it.
    } finally {
      retries.delete(key);
    }
  }

  return {
    failed(restaurantId, observation, error) {
      const key = keyOf(restaurantId, observation);
      const known = retries.get(key);
      const retry = known ?? { observation, failures: 0 };
      if (observation.observedAt >= retry.observation.observedAt) retry.observation = observation;
      failedAgain(retry, error);
      if (known) return;
      retries.set(key, retry);
      settings.keep(loop(restaurantId, key, retry));
    },
    absorb(restaurantId, observation) {
      const retry = retries.get(keyOf(restaurantId, observation));
      if (!retry) return false;
      if (observation.observedAt >= retry.observation.observedAt) retry.observation = observation;
      return true;
    },
  };
}
