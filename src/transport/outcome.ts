/**
 * What a failed attempt says about the request: whether it certainly never reached the service,
 * whether it may have been carried out all the same, and whether a retry is harmless.
 * @module
 */
import {
  ConnectionError,
  PartnerApiError,
  PartnerSdkError,
  RateLimitError,
  ResponseTooLargeError,
  ResponseValidationError,
} from '../errors.js';

/** True when the failed request certainly never reached the server (`sent: 'no'`): even a create may be sent again. */
export function neverReachedServer(error: unknown): boolean {
  return error instanceof PartnerSdkError && error.sent === 'no';
}

/**
 * True when a failed attempt may have been carried out all the same: no answer (dropped, timed
 * out) after the request may have left, 408, 5xx, a redirect (a write is never followed), an
 * answer too large to read, or a 2xx outside the contract.
 */
export function outcomeUnknown(error: unknown): boolean {
  if (neverReachedServer(error)) return false;
  if (error instanceof ConnectionError || error instanceof ResponseValidationError) return true;
  if (error instanceof ResponseTooLargeError)
    return error.status < 400 || error.status === 408 || error.status >= 500;
  return (
    error instanceof PartnerApiError &&
    (error.status === 408 || error.status >= 500 || (error.status >= 300 && error.status < 400))
  );
}

/**
 * Default retry decision: 429 always, and a connection that was never opened (nothing was sent);
 * network errors, 408 and 5xx only where a repeat is harmless.
 */
export function isRetryableByDefault(error: unknown, safeToRepeat: boolean): boolean {
  if (error instanceof RateLimitError) return true;
  if (error instanceof ConnectionError && error.sent === 'no') return true;
  if (error instanceof ResponseValidationError || error instanceof ResponseTooLargeError) return false;
  if (error instanceof PartnerApiError && error.status < 400) return false;
  return safeToRepeat && outcomeUnknown(error);
}
