/**
 * The error of a client whose `strictDialect` saw the service depart from its dialect file.
 * @module
 */
import { isPartnerSdkError, nameErrorClass, PartnerSdkError } from '../errors/base.js';

/**
 * The service answered one of the open points differently from the dialect the client was given
 * (`PartnerClient({ dialect, strictDialect: true })`, the file `restaurant-partner doctor` writes):
 * `point` names it, `expected` and `received` are its values. The request was answered, so a
 * write may have taken effect (`sent: 'yes'`). Not retryable: the service answers the same way
 * until the dialect file is learned again.
 */
export class DialectDriftError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'DialectDriftError');
  }
  /** The open point (`createStatus`, `list`, `errorBody`, ...). */
  readonly point: string;
  /** The value the dialect file settled. */
  readonly expected: string | number;
  /** The value this answer showed. */
  readonly received: string | number;
  /** HTTP method, upper case. */
  readonly method: string;
  /** The URL, redacted. */
  readonly url: string;
  /** The answer's status. */
  readonly status: number;
  constructor(details: {
    point: string;
    expected: string | number;
    received: string | number;
    method: string;
    url: string;
    status: number;
  }) {
    super(
      `The service departed from the dialect at point "${details.point}": expected ${String(details.expected)}, ` +
        `received ${String(details.received)} (${details.method} ${details.url} answered ${details.status}); ` +
        'run restaurant-partner doctor again to learn the dialect',
      { sent: 'yes', retryable: false },
    );
    this.point = details.point;
    this.expected = details.expected;
    this.received = details.received;
    this.method = details.method;
    this.url = details.url;
    this.status = details.status;
  }
}

/**
 * True when an answer departed from the client's dialect under `strictDialect`, from this copy of
 * the package or another (see {@link isPartnerSdkError}).
 */
export const isDialectDriftError = (error: unknown): error is DialectDriftError =>
  isPartnerSdkError(error, DialectDriftError);
