/**
 * The facts of one public call, fixed once when it starts and handed, as one object, to every
 * request it makes: its pages, the timezone look-up, the look-ups of a create's key, the retrieve
 * fallback, polling. Like openai-node's `FinalRequestOptions`, it is the options as they will be
 * used (the client's defaults applied), plus what a call fixes at its start: the deadline as an
 * instant on the client's clock and the validation mode. A sub-request that receives the call
 * shares its deadline instead of starting a new one.
 * @module
 */
import { AbortError, TimeoutError, type RequestSent } from '../errors.js';
import type { Clock } from './clock.js';
import type { RequestHeaders } from './headers.js';
import type { Priority } from './rate-limiter.js';
import type { ResponseValidation } from './response-validation.js';

/** Options every method takes as its last argument. */
export interface RequestOptions {
  /** Cancels the call: the request in flight, a wait for a rate-limit slot, or a retry sleep. */
  signal?: AbortSignal | undefined;
  /** Per-attempt timeout for this call, overriding the client's `timeoutMs`. */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt for this call, overriding the client's `maxRetries`. */
  maxRetries?: number | undefined;
  /**
   * Extra headers for this call, over the client's `defaultHeaders` (`null` removes a default one).
   * Headers the SDK sets itself (`authorization`, `idempotency-key`, `content-type`, `accept`, ...)
   * are refused.
   */
  headers?: RequestHeaders | undefined;
  /**
   * Time limit of the whole call, overriding the client's `deadlineMs`: rate-limit waits, every
   * attempt, retry sleeps and the look-ups a create may need all end by then.
   */
  deadlineMs?: number | undefined;
  /**
   * Which calls the rate limiter serves first: `'interactive'` (a person waits for the answer,
   * such as a guest's booking) or `'background'` (a job that can wait, such as a sync), granted a
   * slot only when no interactive call of the partner waits. Overrides the client's `priority`.
   */
  priority?: Priority | undefined;
}

/** Where a call's error arose, for its message. */
export interface CallWhere {
  method?: string | undefined;
  url?: string | undefined;
}

/** What a {@link Call} is made of: the caller's checked options with the client's defaults applied. */
export interface CallFacts {
  signal: AbortSignal | undefined;
  timeoutMs: number;
  maxRetries: number;
  /** The caller's per-call headers as given (merged over the client's defaults at each request). */
  headers: RequestHeaders | undefined;
  /** The call's time limit in milliseconds (undefined: none). */
  deadlineMs: number | undefined;
  priority: Priority;
  validation: ResponseValidation;
  clock: Clock;
  /** What the call is, as a partner reads it: `reservations.create`, `restaurants.list`, ... */
  operation: string;
}

// Call ids: this process's random prefix and a counter; unique enough to find a call's lines, cheap to make.
let processPrefix: string | undefined;
let callCount = 0;
function nextCallId(): string {
  processPrefix ??= Math.floor(Math.random() * 0xffffffff)
    .toString(16)
    .padStart(8, '0');
  callCount += 1;
  return `${processPrefix}-${callCount.toString(36)}`;
}

// Timers take whole milliseconds up to 2^31 - 1 (about 24.8 days): longer is as good as none.
const MAX_TIMER_MS = 2_147_483_647;

/**
 * One public call. Made once, by the transport's `call(options)`, when a client method starts;
 * passed where that method's sub-requests take their options (it has every field of
 * {@link RequestOptions}), where the transport recognises it and uses it as it is.
 */
export class Call implements RequestOptions {
  readonly signal: AbortSignal | undefined;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly headers: RequestHeaders | undefined;
  readonly deadlineMs: number | undefined;
  readonly priority: Priority;
  /** `'strict'`: an answer outside the contract throws; `'warn'`: it is logged and returned as received. */
  readonly validation: ResponseValidation;
  /** The instant (on the client's clock) by which everything the call does ends; undefined for none. */
  readonly deadlineAt: number | undefined;
  /** The operation the call is (`reservations.create`, ...): its sub-requests share it. */
  readonly operation: string;
  /** This call's id, in hook events, warnings and traces. */
  readonly id: string;
  /** Requests this call has sent so far (each attempt, page, look-up and followed redirect). */
  requestsSent = 0;
  readonly #clock: Clock;

  constructor(facts: CallFacts) {
    this.signal = facts.signal;
    this.timeoutMs = facts.timeoutMs;
    this.maxRetries = facts.maxRetries;
    this.headers = facts.headers;
    this.deadlineMs = facts.deadlineMs;
    this.priority = facts.priority;
    this.validation = facts.validation;
    this.#clock = facts.clock;
    this.operation = facts.operation;
    this.id = nextCallId();
    this.deadlineAt = facts.deadlineMs === undefined ? undefined : facts.clock.now() + facts.deadlineMs;
  }

  /** Milliseconds left before the deadline (undefined: no deadline). */
  remainingMs(): number | undefined {
    return this.deadlineAt === undefined ? undefined : this.deadlineAt - this.#clock.now();
  }

  /** True once the deadline has passed. */
  get expired(): boolean {
    const left = this.remainingMs();
    return left !== undefined && left <= 0;
  }

  /** The error of a call whose deadline passed before it could send again. */
  deadlineError(where: CallWhere, sent: RequestSent, attempts: number): TimeoutError {
    return new TimeoutError(`The call's deadline of ${this.deadlineMs} ms passed`, {
      ...where,
      sent,
      attempts,
    });
  }

  /** The error of a call the caller aborted. */
  abortError(message: string, sent: RequestSent, attempts: number): AbortError {
    return new AbortError(message, { cause: this.signal?.reason, sent, attempts });
  }

  /**
   * A signal that aborts with the caller's signal or at the deadline (`deadline` tells which). The
   * deadline runs on its own timer, cleared by `release`: on Deno, an `AbortSignal.timeout` that
   * was listened to keeps the process alive until it fires (the 120 s default deadline). The
   * virtual clock's deadline is checked after the wait.
   */
  stopSignal(): { signal: AbortSignal | undefined; deadline: AbortSignal | undefined; release(): void } {
    const left = this.remainingMs();
    if (left === undefined) return { signal: this.signal, deadline: undefined, release: () => undefined };
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), Math.max(1, Math.min(Math.ceil(left), MAX_TIMER_MS)));
    return {
      signal: this.signal ? AbortSignal.any([this.signal, deadline.signal]) : deadline.signal,
      deadline: deadline.signal,
      release: () => clearTimeout(timer),
    };
  }

  /**
   * Waits for `work` (another call's request this call shares) no longer than this call's own
   * signal and deadline allow; then an {@link AbortError} or the deadline's {@link TimeoutError},
   * both saying this call sent nothing.
   */
  async within<T>(work: Promise<T>, where: CallWhere = {}): Promise<T> {
    const stop = this.stopSignal();
    if (!stop.signal) return work;
    try {
      return await untilAborted(work, stop.signal);
    } catch (error) {
      if (this.signal?.aborted) throw this.abortError('The call was aborted', 'no', 0);
      if (stop.deadline?.aborted) throw this.deadlineError(where, 'no', 0);
      throw error;
    } finally {
      stop.release();
    }
  }
}

/**
 * Settles with `work`, or rejects as soon as `signal` aborts: a `fetch` passed in by the partner (or
 * a test double) may ignore the signal, and the caller's abort must hold all the same.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
