/**
 * Fault injection: make an operation fail with a status, answer late, or drop the connection,
 * once or n times, before or after the operation takes effect (README, "Testing with the fake").
 * @module
 */
import { FieldCollector, isPlainObject, fail, badRequest } from './wire.js';

/**
 * Operation names, mirroring the client's methods so a test reads like the code it exercises.
 */
export const OPERATIONS = [
  'profile.retrieve',
  'profile.update',
  'restaurants.list',
  'reservations.list',
  'reservations.create',
  'reservations.retrieve',
  'reservations.cancel',
  'reservations.markArrived',
  'reservations.markNoShow',
  'reservations.update',
  'webhooks.create',
  'webhooks.list',
  'webhooks.retrieve',
  'webhooks.update',
  'webhooks.delete',
  'webhooks.regenerateToken',
  'webhooks.test',
] as const;
/** The name of a partner API operation, as fault injection and the client name it (`reservations.create`, ...). */
export type OperationName = (typeof OPERATIONS)[number];

/** A fault to inject. At least one of `status`, `latencyMs` or `networkError` is needed. */
export interface FaultSpec {
  /** Only this operation (default: any partner API operation). */
  operation?: OperationName;
  /** Answer this status with `{"detail": "Injected fault."}` (or `body`). */
  status?: number;
  /** Wait this long in real time first (to exceed a client's timeout; keep it short in tests). */
  latencyMs?: number;
  /** Drop the connection: no answer at all (the standalone server destroys the socket). */
  networkError?: boolean;
  /** How many matching requests it hits (default 1). */
  times?: number;
  /**
   * `before` (default): the operation does not happen. `after`: the operation takes effect, then
   * the fault answers (a 5xx or dropped connection after the booking was committed).
   */
  phase?: 'before' | 'after';
  /** Extra answer headers (for example `Retry-After` with a 429 or 503). */
  headers?: Record<string, string>;
  /** Answer body instead of the default `{"detail": "Injected fault."}`. */
  body?: unknown;
}

/** A fault as stored, with its remaining count. */
export interface ActiveFault extends Required<Pick<FaultSpec, 'phase'>> {
  operation: OperationName | undefined;
  status: number | undefined;
  latencyMs: number;
  networkError: boolean;
  remaining: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Checks a fault given as JSON (control route) or from code; a bad one is a 400 field map. */
export function parseFault(input: unknown): ActiveFault {
  if (!isPlainObject(input)) return fail(badRequest({ non_field_errors: ['Expected a JSON object describing the fault.'] }));
  const fields = new FieldCollector();
  let operation: OperationName | undefined;
  if (input.operation !== undefined) {
    if (typeof input.operation !== 'string' || !(OPERATIONS as readonly string[]).includes(input.operation)) {
      fields.add('operation', `Unknown operation; expected one of ${OPERATIONS.join(', ')}.`);
    } else operation = input.operation as OperationName;
  }
  const status = fields.integer(input, 'status', { min: 100, max: 599 });
  const latencyMs = fields.integer(input, 'latencyMs', { min: 0, max: 600_000 }) ?? 0;
  const networkError = fields.boolean(input, 'networkError') ?? false;
  const times = fields.integer(input, 'times', { min: 1, max: 1_000_000 }) ?? 1;
  let phase: 'before' | 'after' = 'before';
  if (input.phase !== undefined) {
    if (input.phase !== 'before' && input.phase !== 'after') fields.add('phase', 'Expected "before" or "after".');
    else phase = input.phase;
  }
  const headers: Record<string, string> = {};
  if (input.headers !== undefined) {
    if (!isPlainObject(input.headers) || Object.values(input.headers).some((value) => typeof value !== 'string')) {
      fields.add('headers', 'Expected an object of string values.');
    } else Object.assign(headers, input.headers);
  }
  if (status === undefined && !networkError && latencyMs === 0 && !fields.hasErrors) {
    fields.add('non_field_errors', 'A fault needs a status, a latencyMs or networkError: true.');
  }
  fields.throwIfAny();
  return { operation, status, latencyMs, networkError, remaining: times, phase, headers, body: input.body };
}

/** The faults waiting to hit, in the order they were added. */
export class FaultList {
  #faults: ActiveFault[] = [];

  add(fault: ActiveFault): void {
    this.#faults.push(fault);
  }

  /** Takes (and counts down) the first fault matching this operation and phase. */
  take(operation: OperationName, phase: 'before' | 'after'): ActiveFault | undefined {
    const fault = this.#faults.find((candidate) => candidate.phase === phase && (candidate.operation === undefined || candidate.operation === operation));
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.#faults = this.#faults.filter((candidate) => candidate !== fault);
    return fault;
  }

  clear(): void {
    this.#faults = [];
  }

  get pending(): readonly ActiveFault[] {
    return this.#faults.map((fault) => ({ ...fault }));
  }
}

/** Waits in real time, cut short when the caller gives up. */
export function realDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
