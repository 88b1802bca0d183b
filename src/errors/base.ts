/**
 * The root of the SDK's error family: {@link PartnerSdkError}, the {@link RequestSent} and
 * `retryable` every error carries, and the one guard that recognises the family's errors across
 * several copies of the package, where `instanceof` fails.
 *
 * This module imports nothing of ours, so any layer (and the webhook receiver) can use it.
 * @module
 */

/**
 * Whether the request of a failed call may have reached the service, over all its attempts:
 * - `'no'`: nothing left this machine (input refused, the wait for a rate-limit slot ended, the
 *   connection could not be opened, the deadline or your abort came before sending);
 * - `'maybe'`: a request left, or may have, and no answer came back (a timeout, a dropped
 *   connection, your abort while it was in flight, an error from your own `fetch`): the service
 *   may have carried it out;
 * - `'yes'`: the service, or something in front of it, answered.
 */
export type RequestSent = 'no' | 'maybe' | 'yes';

/** Options every SDK error takes. */
export interface SdkErrorOptions {
  cause?: unknown;
  /** Whether the call's request may have reached the service; `'no'` when omitted. */
  sent?: RequestSent | undefined;
  /** Whether repeating the same call later can succeed; `false` when omitted. */
  retryable?: boolean | undefined;
}

// Shared by every copy of the package in a process (`Symbol.for`), so the guard below recognises
// an error thrown by another copy (two versions side by side, or one bundled into a dependency).
const SDK_ERROR = Symbol.for('restaurant-partner-sdk.error');

/**
 * Names a class of the family on its prototype (each class calls it once, in a static block), so
 * the name is a plain string that survives a minifier, readable on any copy's class, and read by
 * {@link isPartnerSdkError} along an error's prototype chain. Every instance copies its name into
 * an own field (see the constructor), so `JSON.stringify(error)` shows it.
 * @internal
 */
export function nameErrorClass(errorClass: abstract new (...args: never[]) => Error, name: string): void {
  Object.defineProperty(errorClass.prototype, 'name', {
    value: name,
    writable: true,
    enumerable: false,
    configurable: true,
  });
}

/** The name a class of the family gave itself with {@link nameErrorClass}, if any. */
function ownName(prototype: unknown): string | undefined {
  if (typeof prototype !== 'object' || prototype === null || !Object.hasOwn(prototype, 'name'))
    return undefined;
  const name = (prototype as { name?: unknown }).name;
  return typeof name === 'string' ? name : undefined;
}

/** Base class of every error thrown by this SDK. */
export class PartnerSdkError extends Error {
  static {
    nameErrorClass(this, 'PartnerSdkError');
    Object.defineProperty(this.prototype, SDK_ERROR, { value: true });
  }
  /** Whether the call's request may have reached the service (see {@link RequestSent}); `'no'` for errors raised before any request. */
  readonly sent: RequestSent;
  /**
   * Whether repeating the same call later (same input, same idempotency key) can succeed. `false`
   * means it fails the same way until something changes (the input, the credentials, the
   * reservation's state): a job queue should stop retrying and fail the job. `true` means the
   * failure was about the moment (a rate limit, a failing or unreachable service, an unknown
   * outcome still being settled): retry later, with a backoff (`retryAfterMs` and `holdUntil`
   * say how much later, where they are set). It says a repeat can succeed, not that it is
   * harmless: `reservations.create` is safe to repeat with its key, while another write that
   * failed with `sent` other than `'no'` may have taken effect. Kept as an own field, so
   * `JSON.stringify(error)` shows it.
   */
  readonly retryable: boolean;
  constructor(message?: string, options?: SdkErrorOptions) {
    // No `cause` property at all when there is none: printed errors would show `[cause]: undefined`.
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.sent = options?.sent ?? 'no';
    this.retryable = options?.retryable ?? false;
    // The most derived class's name (its prototype's), as an own field: JSON keeps it.
    Object.defineProperty(this, 'name', {
      value: this.name,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
}

/**
 * True when `error` is an error of this SDK; given a class (`NoAvailabilityError`,
 * `PartnerApiError`, ...), true when it is an error of that class or one beneath it.
 *
 * Use it rather than `instanceof` where the error may come from another copy of the package: two
 * versions installed side by side, or one bundled into a dependency, each have their own classes,
 * and `instanceof` only knows its own. The guard also recognises errors of the same class from
 * another copy, by the class's name. Within one copy it is exactly `instanceof`.
 *
 * @example
 * ```ts
 * if (isPartnerSdkError(error, NoAvailabilityError)) offerAnotherTime();
 * else if (isPartnerSdkError(error) && error.retryable) retryLater();
 * ```
 */
export function isPartnerSdkError(error: unknown): error is PartnerSdkError;
export function isPartnerSdkError<ErrorClass extends PartnerSdkError>(
  error: unknown,
  errorClass: abstract new (...args: never[]) => ErrorClass,
): error is ErrorClass;
export function isPartnerSdkError(
  error: unknown,
  errorClass: abstract new (...args: never[]) => PartnerSdkError = PartnerSdkError,
): boolean {
  if (error instanceof errorClass) return true;
  if (typeof error !== 'object' || error === null || !(SDK_ERROR in error)) return false;
  const wanted = ownName(errorClass.prototype);
  if (wanted === undefined) return false;
  // Another copy's error: its classes, from its own down to the root, carry their names.
  for (
    let prototype: unknown = Object.getPrototypeOf(error);
    prototype;
    prototype = Object.getPrototypeOf(prototype)
  )
    if (ownName(prototype) === wanted) return true;
  return false;
}
