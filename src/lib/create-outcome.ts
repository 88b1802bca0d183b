/**
 * How a `reservations.create` ended, told once: to observers on the `create.outcome` channel
 * (with the requests it spent), and, for the ends on-call must hear of, as one warning line
 * naming the operation and the call id. Never the idempotency key: a partner's own key may be
 * made of a guest's details.
 * @module
 */
import { AmbiguousCreateError, IdempotencyKeyReuseError } from '../errors.js';
import { publish, type CreateOutcome } from '../transport/diagnostics.js';
import type { Call, RequestOptions, Transport } from '../transport/transport.js';
import type { ReservationCreateInput } from '../resources/reservations.schemas.js';

/** What the create tells of its own end. */
export interface CreateProgress {
  /** How it got its booking, when it got one. */
  readonly outcome: 'created' | 'replayed' | 'recovered_by_lookup';
  /** Whether an earlier create's ambiguous end held the key (nothing of this one was sent). */
  readonly held: boolean;
}

function outcomeOf(progress: CreateProgress, error: unknown, failed: boolean): CreateOutcome | undefined {
  if (!failed) return progress.outcome;
  if (error instanceof AmbiguousCreateError) return 'ambiguous';
  if (error instanceof IdempotencyKeyReuseError) return 'reuse_refused';
  return undefined;
}

/** Runs a create as the call `reservations.create` (the guest's fields given to observers), its outcome reported. */
export function observedCreate<T>(
  transport: Transport,
  options: RequestOptions | undefined,
  about: { restaurantId: unknown; input: ReservationCreateInput },
  progress: CreateProgress,
  create: (call: Call) => Promise<T>,
): Promise<T> {
  return transport.run(
    options,
    'reservations.create',
    (call) => reportedOutcome(transport, call, progress, () => create(call)),
    {
      // As given (checked later): observers keep only an id-like value.
      restaurantId:
        typeof about.restaurantId === 'number' || typeof about.restaurantId === 'string'
          ? about.restaurantId
          : undefined,
      guest: typeof about.input === 'object' && about.input !== null ? about.input : undefined,
    },
  );
}

/** Runs the create, then reports its outcome before its call ends. */
async function reportedOutcome<T>(
  transport: Transport,
  call: Call,
  progress: CreateProgress,
  create: () => Promise<T>,
): Promise<T> {
  let failed = false;
  let failure: unknown;
  try {
    return await create();
  } catch (error) {
    failed = true;
    failure = error;
    throw error;
  } finally {
    const outcome = outcomeOf(progress, failure, failed);
    if (outcome) {
      publish('createOutcome', () => ({
        callId: call.id,
        operation: call.operation,
        outcome,
        requests: call.requestsSent,
      }));
    }
    if (failure instanceof AmbiguousCreateError) warnAmbiguous(transport, call, progress, failure);
  }
}

function warnAmbiguous(
  transport: Transport,
  call: Call,
  progress: CreateProgress,
  error: AmbiguousCreateError,
): void {
  const until = error.holdUntil?.toISOString();
  const details = {
    operation: call.operation,
    callId: call.id,
    restaurantId: error.restaurantId,
    requests: call.requestsSent,
    ...(until ? { holdUntil: until } : {}),
  };
  if (progress.held) {
    transport.logger.warn(
      `${call.operation} sent nothing (call ${call.id}): its idempotency key is held${until ? ` until ${until}` : ''} after an earlier create with it ended with its outcome unknown`,
      details,
    );
    return;
  }
  transport.logger.warn(
    `${call.operation} ended ambiguous (call ${call.id}) after ${call.requestsSent} requests: the reservation may exist; repeat the same create with error.idempotencyKey${until ? ` after ${until}` : ''}, it never books twice`,
    details,
  );
}
