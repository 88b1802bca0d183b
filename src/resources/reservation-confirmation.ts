/**
 * Waiting for a restaurant's confirmation by reading the reservation until it is confirmed,
 * cancelled, or the wait's deadline passes.
 * @module
 */
import { AbortError, InputValidationError, ReservationCancelledError, TimeoutError } from '../errors.js';
import type { ApiPromise } from '../transport/api-promise.js';
import type { RequestHeaders } from '../transport/headers.js';
import type { Call, Transport } from '../transport/transport.js';
import type { Reservation } from './reservations.schemas.js';

/** Options of `reservations.waitForConfirmation`. Give `deadlineMs` (or its older name `timeoutMs`). */
export interface WaitForConfirmationOptions {
  /** How long to wait in all, reads included; then a {@link TimeoutError}. */
  deadlineMs?: number | undefined;
  /**
   * @deprecated The older name of `deadlineMs`, kept working. Everywhere else `timeoutMs` limits one
   * attempt, while here it always meant the whole wait; `deadlineMs` says so.
   */
  timeoutMs?: number | undefined;
  /** Time between two reads (default 2000 ms); every read also waits for its rate-limit slot. */
  intervalMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Per-attempt timeout of each read. */
  requestTimeoutMs?: number | undefined;
  /** Retries of each read. */
  maxRetries?: number | undefined;
  /** Extra headers of each read, as every method's `headers`. */
  headers?: RequestHeaders | undefined;
}

const notMilliseconds = (field: string, message: string) =>
  new InputValidationError([{ field, path: [field], code: 'too_small', message }]);

/**
 * Reads the reservation every `intervalMs` (through `retrieve`, so each read waits for its
 * rate-limit slot) until it is confirmed; see `reservations.waitForConfirmation`.
 */
export async function waitForConfirmation(
  transport: Transport,
  retrieve: (rid: number | string, id: number | string, call: Call) => ApiPromise<Reservation>,
  restaurantId: number | string,
  id: number | string,
  options: WaitForConfirmationOptions,
): Promise<Reservation> {
  const clock = transport.clock;
  const { signal } = options ?? {};
  const waitField = options?.deadlineMs !== undefined ? 'deadlineMs' : 'timeoutMs';
  const waitMs = options?.deadlineMs ?? options?.timeoutMs;
  if (!(typeof waitMs === 'number' && waitMs >= 0 && Number.isFinite(waitMs))) {
    throw notMilliseconds(
      waitField,
      'expected a finite number of milliseconds >= 0 (how long to wait in all)',
    );
  }
  const intervalMs = options.intervalMs ?? 2000;
  if (!(typeof intervalMs === 'number' && intervalMs >= 0 && Number.isFinite(intervalMs))) {
    throw notMilliseconds('intervalMs', 'expected a finite number of milliseconds >= 0');
  }
  // Every read shares the wait's deadline; its own timeout per attempt is `requestTimeoutMs`.
  const callOptions = {
    signal,
    timeoutMs: options.requestTimeoutMs,
    maxRetries: options.maxRetries,
    deadlineMs: waitMs > 0 ? waitMs : undefined,
    headers: options.headers,
  };
  return transport.run(
    callOptions,
    'reservations.waitForConfirmation',
    async (call) => {
      const deadline = clock.now() + waitMs;
      for (;;) {
        const reservation = await retrieve(restaurantId, id, call);
        if (reservation.confirmed) return reservation;
        if (reservation.cancelled)
          throw new ReservationCancelledError(
            `Reservation ${id} was cancelled before it was confirmed`,
            reservation,
          );
        const left = deadline - clock.now();
        // Every read so far was answered: what the wait ended on was sent.
        if (left <= 0)
          throw new TimeoutError(`Reservation ${id} was not confirmed within ${waitMs} ms`, {
            sent: 'yes',
          });
        try {
          await clock.sleep(Math.min(intervalMs, left), signal);
        } catch (error) {
          throw new AbortError('waitForConfirmation was aborted', {
            cause: signal?.reason ?? error,
            sent: 'yes',
          });
        }
      }
    },
    {
      restaurantId:
        typeof restaurantId === 'number' || typeof restaurantId === 'string' ? restaurantId : undefined,
    },
  );
}
