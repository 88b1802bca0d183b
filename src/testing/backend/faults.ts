/**
 * Fault injection: make an operation fail with a status, answer late, or drop the connection,
 * once or n times, before or after the operation takes effect (README, "Testing with the fake").
 * @module
 */
import type { DueWork } from './fake-clock.js';
import { invalid } from './fake-error.js';
import { MAX_PENDING_COMMITS, MAX_PENDING_FAULTS, limitReached } from './world-limits.js';
import { FieldCollector, isPlainObject } from './validation.js';

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
  /**
   * How many matching requests it hits (default 1). Every attempt counts, the client's retries
   * included: a 503 with `times: 1` is answered once and the client's retry gets through; to make
   * a call fail past its retries, give `times: maxRetries + 1`.
   */
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
  /**
   * Sends the headers at once and holds the body back this many milliseconds of real time (needs
   * `status`): a gateway whose answer stalls after its headers, to exceed a client's body timeout.
   * Over the standalone server the caller sees the status line and headers, then nothing.
   */
  bodyStallMs?: number;
  /** Extra answer headers (for example `Retry-After` with a 429 or 503). */
  headers?: Record<string, string>;
  /** Answer body instead of the default `{"detail": "Injected fault."}`. */
  body?: unknown;
}

/** A fault as stored, with its remaining count. */
export interface ActiveFault extends Required<Pick<FaultSpec, 'phase'>> {
  /** Names the fault for `DELETE /_fake/faults/:id` (counts up from 1 per fake). */
  id: number;
  operation: OperationName | undefined;
  status: number | undefined;
  latencyMs: number;
  networkError: boolean;
  remaining: number;
  headers: Record<string, string>;
  body: unknown;
  /** Set when the operation commits later (see {@link FaultSpec.commitDelayMs}). */
  commitDelayMs: number | undefined;
  /** Set when the body stalls after the headers (see {@link FaultSpec.bodyStallMs}). */
  bodyStallMs: number | undefined;
}

/** Checks a fault given as JSON (control route) or from code; a bad one is a 400 field map. */
export function parseFault(input: unknown): Omit<ActiveFault, 'id'> {
  if (!isPlainObject(input))
    throw invalid({ non_field_errors: ['Expected a JSON object describing the fault.'] });
  const fields = new FieldCollector();
  let operation: OperationName | undefined;
  if (input.operation !== undefined) {
    if (typeof input.operation !== 'string' || !(OPERATIONS as readonly string[]).includes(input.operation)) {
      fields.add('operation', `Unknown operation; expected one of ${OPERATIONS.join(', ')}.`);
    } else operation = input.operation as OperationName;
  }
  // A final status: 1xx answers are informational and cannot end an exchange (fetch refuses them).
  const status = fields.integer(input, 'status', { min: 200, max: 599 });
  const latencyMs = fields.integer(input, 'latencyMs', { min: 0, max: MAX_LATENCY_MS }) ?? 0;
  const networkError = fields.boolean(input, 'networkError') ?? false;
  const times = fields.integer(input, 'times', { min: 1, max: MAX_FAULT_TIMES }) ?? 1;
  // A month at most: further than any settle window a client would wait through.
  const commitDelayMs = fields.integer(input, 'commitDelayMs', { min: 0, max: MAX_COMMIT_DELAY_MS });
  const bodyStallMs = fields.integer(input, 'bodyStallMs', { min: 0, max: MAX_LATENCY_MS });
  if (bodyStallMs !== undefined && input.status === undefined)
    fields.add('bodyStallMs', 'Needs a status: the headers go out, then the body stalls.');
  if (bodyStallMs !== undefined && (input.status === 204 || input.status === 205 || input.status === 304))
    fields.add('bodyStallMs', 'Needs a status whose answer has a body.');
  let phase: 'before' | 'after' = input.commitDelayMs === undefined ? 'before' : 'after';
  if (input.phase !== undefined) {
    if (input.phase !== 'before' && input.phase !== 'after')
      fields.add('phase', 'Expected "before" or "after".');
    else phase = input.phase;
  }
  if (input.commitDelayMs !== undefined && phase === 'before') {
    fields.add(
      'commitDelayMs',
      'Only with phase "after": a fault before the operation means it never takes effect.',
    );
  }
  const headers: Record<string, string> = {};
  if (input.headers !== undefined) {
    if (
      !isPlainObject(input.headers) ||
      Object.values(input.headers).some((value) => typeof value !== 'string')
    ) {
      fields.add('headers', 'Expected an object of string values.');
    } else if (Object.keys(input.headers).length > MAX_FAULT_HEADERS) {
      fields.add('headers', `At most ${MAX_FAULT_HEADERS} headers.`);
    } else {
      for (const [name, value] of Object.entries(input.headers as Record<string, string>)) {
        const problem = headerProblem(name, value);
        if (problem) fields.add(`headers.${name}`, problem);
        else headers[name.toLowerCase()] = value;
      }
    }
  }
  if (input.body !== undefined && JSON.stringify(input.body).length > MAX_FAULT_BODY_CHARACTERS) {
    fields.add('body', `At most ${MAX_FAULT_BODY_CHARACTERS} characters of JSON.`);
  }
  if (status === undefined && !networkError && latencyMs === 0 && !fields.hasErrors) {
    fields.add('non_field_errors', 'A fault needs a status, a latencyMs or networkError: true.');
  }
  if (commitDelayMs !== undefined && status === undefined && !networkError) {
    fields.add(
      'commitDelayMs',
      'Needs a status or networkError: true to answer while the operation waits to commit.',
    );
  }
  fields.throwIfAny();
  return {
    operation,
    status,
    latencyMs,
    networkError,
    remaining: times,
    phase,
    headers,
    body: input.body,
    commitDelayMs,
    bodyStallMs,
  };
}

/** Longest real-time latency a fault may add: ten minutes (a request waits no longer than its caller). */
export const MAX_LATENCY_MS = 600_000;
/** Most requests one fault may hit. */
export const MAX_FAULT_TIMES = 1_000_000;
/** Most headers one fault may add. */
export const MAX_FAULT_HEADERS = 20;
/** Largest answer body a fault may carry, in characters of JSON. */
export const MAX_FAULT_BODY_CHARACTERS = 65_536;
/** An HTTP token (RFC 9110 5.6.2): what a header name may be made of. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible characters, spaces and tabs (RFC 9110 5.5), at most 8 KiB. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]{0,8192}$/;
/** Headers the server sets from the answer itself; a fault that set them would corrupt the framing. */
const FRAMING_HEADERS = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'trailer',
  'te',
  'proxy-connection',
]);

/** Why a header cannot be carried by an HTTP answer, or undefined when it can. */
function headerProblem(name: string, value: string): string | undefined {
  if (!HEADER_NAME.test(name)) return "Not a valid header name (letters, digits and !#$%&'*+.^_`|~- only).";
  if (FRAMING_HEADERS.has(name.toLowerCase()))
    return 'Set by the server from the answer itself; a fault cannot set it.';
  if (!HEADER_VALUE.test(value) || value !== value.trim())
    return 'Not a valid header value (no line breaks or control characters, no surrounding spaces, at most 8192 characters).';
  return undefined;
}

/** Largest `commitDelayMs` accepted: 31 days. */
export const MAX_COMMIT_DELAY_MS = 31 * 86_400_000;

/** The faults waiting to hit, in the order they were added. */
export class FaultList {
  #faults: ActiveFault[] = [];
  #nextId = 1;

  /**
   * Adds a fault and answers it as stored (with its id). Refused (409 `limit_reached`) beyond
   * {@link MAX_PENDING_FAULTS} faults, or when the commits it may delay would not fit beside
   * `commitsWaiting` within {@link MAX_PENDING_COMMITS}.
   */
  add(fault: Omit<ActiveFault, 'id'>, commitsWaiting = 0): ActiveFault {
    if (this.#faults.length >= MAX_PENDING_FAULTS)
      throw limitReached('faults waiting to hit', MAX_PENDING_FAULTS, 'Remove some (DELETE /_fake/faults).');
    if (fault.commitDelayMs !== undefined) {
      let promised = commitsWaiting + fault.remaining;
      for (const other of this.#faults) if (other.commitDelayMs !== undefined) promised += other.remaining;
      if (promised > MAX_PENDING_COMMITS)
        throw limitReached(
          'operations waiting for a delayed commit (counting the `times` of pending commitDelayMs faults)',
          MAX_PENDING_COMMITS,
          'Let the clock pass their commit time, or lower `times`.',
        );
    }
    const stored = { ...fault, id: this.#nextId++ };
    this.#faults.push(stored);
    return { ...stored };
  }

  /** Removes one fault by id; false when no such fault is waiting (it may have hit already). */
  remove(id: number): boolean {
    const before = this.#faults.length;
    this.#faults = this.#faults.filter((fault) => fault.id !== id);
    return this.#faults.length < before;
  }

  /** Takes (and counts down) the first fault matching this operation and phase. */
  take(operation: OperationName, phase: 'before' | 'after'): ActiveFault | undefined {
    const fault = this.#faults.find(
      (candidate) =>
        candidate.phase === phase && (candidate.operation === undefined || candidate.operation === operation),
    );
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
interface DelayedCommit {
  dueAt: number;
  sequence: number;
  run: () => Promise<void>;
}

export class DelayedCommits implements DueWork {
  #pending: DelayedCommit[] = [];
  #sequence = 0;
  #sealed = false;

  /** Runs `run` once the clock reaches `dueAt` (never, once the world is sealed). */
  schedule(dueAt: number, run: () => Promise<void>): void {
    if (this.#sealed) return;
    this.#pending.push({ dueAt, sequence: this.#sequence++, run });
  }

  nextDueAt(): number | undefined {
    let earliest: number | undefined;
    for (const item of this.#pending)
      if (earliest === undefined || item.dueAt < earliest) earliest = item.dueAt;
    return earliest;
  }

  async runDue(now: number): Promise<void> {
    const due: DelayedCommit[] = [];
    const waiting: DelayedCommit[] = [];
    for (const item of this.#pending) (item.dueAt <= now ? due : waiting).push(item);
    if (due.length === 0) return;
    this.#pending = waiting;
    due.sort((a, b) => a.dueAt - b.dueAt || a.sequence - b.sequence);
    for (const item of due) {
      if (this.#sealed) return;
      await item.run();
    }
  }

  /** Forgets what waits and takes nothing more (the world is being deleted). */
  seal(): void {
    this.#sealed = true;
    this.#pending = [];
  }

  /** Forgets every commit still waiting (reset). */
  clear(): void {
    this.#pending = [];
  }

  get size(): number {
    return this.#pending.length;
  }
}

/** Waits in real time, cut short when the caller gives up or the world is disposed (any of `signals`). */
export function realDelay(ms: number, ...signals: AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signals.some((signal) => signal.aborted)) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      for (const signal of signals) signal.removeEventListener('abort', done);
      resolve();
    }
    for (const signal of signals) signal.addEventListener('abort', done, { once: true });
  });
}
