/**
 * Fault injection: make an operation fail with a status, answer late, or drop the connection,
 * once or n times, before or after the operation takes effect (README, "Testing with the fake").
 * @module
 */
import type { DueWork } from './clock.js';
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
  /**
   * With `phase: 'after'` (implied when omitted): the fault answers at once, and the operation
   * takes effect this many milliseconds later on the fake's clock, as an origin committing a
   * booking after its gateway already answered 504. A frozen clock commits when `advance` (or a
   * client's sleep on the fake's clock) passes that time; the default clock, which follows real
   * time, commits by itself after that much real time. Needs `status` or `networkError`.
   *
   * @example
   * ```ts
   * fake.injectFault({ operation: 'reservations.create', status: 504, commitDelayMs: 3000 });
   * ```
   */
  commitDelayMs?: number;
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
  /** Set when the operation commits later (see {@link FaultSpec.commitDelayMs}). */
  commitDelayMs: number | undefined;
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
  // A month at most: further than any settle window a client would wait through.
  const commitDelayMs = fields.integer(input, 'commitDelayMs', { min: 0, max: MAX_COMMIT_DELAY_MS });
  let phase: 'before' | 'after' = input.commitDelayMs === undefined ? 'before' : 'after';
  if (input.phase !== undefined) {
    if (input.phase !== 'before' && input.phase !== 'after') fields.add('phase', 'Expected "before" or "after".');
    else phase = input.phase;
  }
  if (input.commitDelayMs !== undefined && phase === 'before') {
    fields.add('commitDelayMs', 'Only with phase "after": a fault before the operation means it never takes effect.');
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
  if (commitDelayMs !== undefined && status === undefined && !networkError) {
    fields.add('commitDelayMs', 'Needs a status or networkError: true to answer while the operation waits to commit.');
  }
  fields.throwIfAny();
  return { operation, status, latencyMs, networkError, remaining: times, phase, headers, body: input.body, commitDelayMs };
}

/** Largest `commitDelayMs` accepted: 31 days. */
const MAX_COMMIT_DELAY_MS = 31 * 86_400_000;

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

/**
 * Operations a `commitDelayMs` fault already answered for, each run when the fake's clock
 * reaches its time (registered with the clock as due work, like delivery retries).
 */
export class DelayedCommits implements DueWork {
  #pending: { dueAt: number; sequence: number; run: () => Promise<void> }[] = [];
  #sequence = 0;

  /** Runs `run` once the clock reaches `dueAt`. */
  schedule(dueAt: number, run: () => Promise<void>): void {
    this.#pending.push({ dueAt, sequence: this.#sequence++, run });
  }

  nextDueAt(): number | undefined {
    return this.#pending.length === 0 ? undefined : Math.min(...this.#pending.map((item) => item.dueAt));
  }

  async runDue(now: number): Promise<void> {
    const due = this.#pending.filter((item) => item.dueAt <= now).sort((a, b) => a.dueAt - b.dueAt || a.sequence - b.sequence);
    if (due.length === 0) return;
    this.#pending = this.#pending.filter((item) => !due.includes(item));
    for (const item of due) await item.run();
  }

  /** Forgets every commit still waiting (reset). */
  clear(): void {
    this.#pending = [];
  }

  get size(): number {
    return this.#pending.length;
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
