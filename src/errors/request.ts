/**
 * The errors of a call that got no usable answer, or was refused before it was sent: no
 * connection, a timeout, an answer too large, your abort, input our own check refused, an answer
 * outside the contract, a rate-limit wait longer than the call's deadline.
 * @module
 */
import { redactSecretFields } from '../internal/redact-fields.js';
import { describe, isRetryableStatus, type RequestErrorDetails } from './api.js';
import { nameErrorClass, PartnerSdkError, type RequestSent } from './base.js';

/** One problem with a value: where it is (`path`, joined as `field`) and what rule it broke. */
export interface FieldIssue {
  /** Dotted path of the offending field, for example `adults` or `description.fr`. */
  field: string;
  /** Path segments as given by zod. */
  path: (string | number)[];
  /** The rule broken, as zod names it (`too_big`, `too_small`, `invalid_type`, ...). */
  code: string;
  /** A sentence a person can read. */
  message: string;
}

/**
 * No HTTP answer was received (DNS failure, refused or reset connection). `sent` tells whether the
 * request may have left: `'no'` only when the connection itself could not be opened. Retryable.
 */
export class ConnectionError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'ConnectionError');
  }
  readonly method: string | undefined;
  readonly url: string | undefined;
  /** How many attempts were made, retries included. */
  readonly attempts: number;
  constructor(message: string, details: RequestErrorDetails = {}) {
    super(`${message}${describe(details.method, details.url)}`, {
      cause: details.cause,
      sent: details.sent ?? 'maybe',
      retryable: true,
    });
    this.method = details.method;
    this.url = details.url;
    this.attempts = details.attempts ?? 1;
  }
}
/**
 * An attempt took longer than `timeoutMs`, or the call's `deadlineMs` passed (or
 * `waitForConfirmation` waited its time). Retryable.
 */
export class TimeoutError extends ConnectionError {
  static {
    nameErrorClass(this, 'TimeoutError');
  }
}

/**
 * An answer was larger than the client's `maxResponseBytes`. The body was refused while it was
 * read (never held in memory beyond the limit). Retryable only when the answer was a 5xx (or
 * another retryable status: a failing gateway's page); a 2xx that large comes back as large, so
 * raise `maxResponseBytes` instead.
 */
export class ResponseTooLargeError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'ResponseTooLargeError');
  }
  readonly method: string | undefined;
  readonly url: string | undefined;
  /** HTTP status of the answer whose body was refused. */
  readonly status: number;
  /** The limit that was passed, in bytes. */
  readonly maxResponseBytes: number;
  /** How many attempts were made, retries included. */
  readonly attempts: number;
  constructor(details: RequestErrorDetails & { status: number; maxResponseBytes: number }) {
    super(
      `The answer (HTTP ${details.status}) is larger than maxResponseBytes (${details.maxResponseBytes} bytes)${describe(details.method, details.url)}`,
      { sent: 'yes', retryable: isRetryableStatus(details.status) },
    );
    this.method = details.method;
    this.url = details.url;
    this.status = details.status;
    this.maxResponseBytes = details.maxResponseBytes;
    this.attempts = details.attempts ?? 1;
  }
}
/** True when an answer was refused for passing `maxResponseBytes`. */
/**
 * The caller's `signal` aborted the call (during a request, a throttle wait or a retry sleep).
 * `sent` tells whether its request may have reached the service before the abort.
 *
 * Retryable: the abort was yours, and nothing the service said stops a repeat from succeeding. A
 * worker that aborts its calls because it is shutting down must leave the job to be retried, not
 * fail it for good. When you aborted because the work is no longer wanted, you know it: don't
 * repeat.
 */
export class AbortError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'AbortError');
  }
  /** How many attempts were made, retries included (0: aborted before the first was sent). */
  readonly attempts: number;
  constructor(
    message?: string,
    options?: { cause?: unknown; sent?: RequestSent | undefined; attempts?: number | undefined },
  ) {
    super(message, { cause: options?.cause, sent: options?.sent, retryable: true });
    this.attempts = options?.attempts ?? 0;
  }
}

/** Shared shape of the two validation errors. */
abstract class ValidationError extends PartnerSdkError {
  readonly issues: FieldIssue[];
  constructor(prefix: string, issues: FieldIssue[], sent: RequestSent) {
    super(`${prefix}: ${issues.map((issue) => `${issue.field || '(root)'}: ${issue.message}`).join('; ')}`, {
      sent,
    });
    this.issues = issues;
  }
  /** The first offending field, for the common one-problem case. */
  get field(): string | undefined {
    return this.issues[0]?.field;
  }
}

/**
 * Our own check of a request refused it, before any request was spent (at one request per
 * second, a wasted request costs a second). `issues` names each field and rule. Not retryable.
 */
export class InputValidationError extends ValidationError {
  static {
    nameErrorClass(this, 'InputValidationError');
  }
  constructor(issues: FieldIssue[]) {
    super('Invalid input', issues, 'no');
  }
}

/**
 * The service answered with a shape outside the documented contract. `issues` names the fields.
 * `body` is the answer with secret-named fields (a webhook's `auth_token`) redacted. Not
 * retryable: the same call gets the same answer until the service (or `responseValidation`)
 * changes. (A create that gets one looks its key up and ends in {@link AmbiguousCreateError}
 * instead.)
 */
export class ResponseValidationError extends ValidationError {
  static {
    nameErrorClass(this, 'ResponseValidationError');
  }
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly body: unknown;
  constructor(
    issues: FieldIssue[],
    details: { method?: string | undefined; url?: string | undefined; body?: unknown } = {},
  ) {
    // An answer came back, outside the contract: the request was sent.
    super(`Unexpected response${describe(details.method, details.url)}`, issues, 'yes');
    this.method = details.method;
    this.url = details.url;
    // A webhook answer that fails its check still carries the webhook's token.
    this.body = redactSecretFields(details.body);
  }
}

/**
 * The call's place in the rate-limit queue already puts its slot past its deadline: it is refused
 * at once, never sent, instead of waiting for a slot it could not use. Shed load, retry later, or
 * give the call a longer `deadlineMs`. Retryable: the queue drains.
 */
export class RateLimitWaitTooLongError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'RateLimitWaitTooLongError');
  }
  /** The limiter's estimate of the wait for a slot, in milliseconds. */
  readonly estimatedWaitMs: number;
  /** The time the call had left, in milliseconds. */
  readonly maxWaitMs: number;
  /** The call's priority. */
  readonly priority: 'interactive' | 'background';
  constructor(details: {
    estimatedWaitMs: number;
    maxWaitMs: number;
    priority: 'interactive' | 'background';
  }) {
    super(
      `A ${details.priority} call would wait about ${Math.ceil(details.estimatedWaitMs)} ms for a rate-limit slot, ` +
        `longer than the ${Math.max(0, Math.floor(details.maxWaitMs))} ms it has left; refused without being sent`,
      { retryable: true },
    );
    this.estimatedWaitMs = details.estimatedWaitMs;
    this.maxWaitMs = details.maxWaitMs;
    this.priority = details.priority;
  }
}
/** True when a call was refused because its rate-limit wait would outlast its deadline. */
