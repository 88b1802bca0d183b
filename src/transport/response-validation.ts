/**
 * What the client does with an answer outside the documented contract: `strict` (the default)
 * throws {@link ResponseValidationError} naming the field; `warn` logs one warning per answer,
 * naming the fields, and returns the data as received. `warn` exists so that a live service that
 * drifts from the contract does not stop every booking until an SDK release: it can be switched on
 * by the `RESTAURANT_PARTNER_RESPONSE_VALIDATION` environment variable too, without a code change.
 * @module
 */
import type { FieldIssue } from '../errors.js';
import { chooseSetting } from './environment.js';

/** `strict`: an off-contract answer throws. `warn`: it is logged and returned as received. */
export type ResponseValidation = 'strict' | 'warn';

/** The environment variable that sets `responseValidation` when the option is not given. */
export const RESPONSE_VALIDATION_ENVIRONMENT_VARIABLE = 'RESTAURANT_PARTNER_RESPONSE_VALIDATION';

/** The `responseValidation` option, else `RESTAURANT_PARTNER_RESPONSE_VALIDATION`, else `strict`. */
export function resolveResponseValidation(option: unknown, warn: (message: string) => void): ResponseValidation {
  return chooseSetting({
    option,
    field: 'responseValidation',
    allowed: ['strict', 'warn'],
    variable: RESPONSE_VALIDATION_ENVIRONMENT_VARIABLE,
    fallback: 'strict',
    warn,
  });
}

// Keyed by the details object the transport hands to one answer's parser, so that the resources'
// parsers need not know the mode: they pass those details to parseOutput as they always did.
const reporters = new WeakMap<object, (issues: FieldIssue[]) => void>();

/** In warn mode: off-contract values found while parsing with `details` go to `report` instead of throwing. */
export function reportOffContract(details: object, report: (issues: FieldIssue[]) => void): void {
  reporters.set(details, report);
}

/** The reporter of `details`, when its answer is read in warn mode. */
export function offContractReporter(details: object): ((issues: FieldIssue[]) => void) | undefined {
  return reporters.get(details);
}
