/**
 * What the client does with an answer outside the documented contract: `strict` (the default)
 * throws {@link ResponseValidationError} naming the field; `warn` logs one warning per answer,
 * naming the fields, and returns the data as received. `warn` exists so that a live service that
 * drifts from the contract does not stop every booking until an SDK release: it can be switched on
 * by the `RESTAURANT_PARTNER_RESPONSE_VALIDATION` environment variable too, without a code change.
 * @module
 */
import { InputValidationError, type FieldIssue } from '../errors.js';
import { readEnvironment } from './environment.js';

/** `strict`: an off-contract answer throws. `warn`: it is logged and returned as received. */
export type ResponseValidation = 'strict' | 'warn';

/** The environment variable that sets `responseValidation` when the option is not given. */
export const RESPONSE_VALIDATION_ENVIRONMENT_VARIABLE = 'RESTAURANT_PARTNER_RESPONSE_VALIDATION';

const MODES: readonly ResponseValidation[] = ['strict', 'warn'];
const isMode = (value: unknown): value is ResponseValidation => MODES.includes(value as ResponseValidation);

/** The option (refused naming the field when unknown), else the environment variable (an unknown value warned about), else `strict`. */
export function resolveResponseValidation(option: unknown, warn: (message: string) => void): ResponseValidation {
  if (option !== undefined) {
    if (isMode(option)) return option;
    throw new InputValidationError([
      { field: 'responseValidation', path: ['responseValidation'], code: 'invalid_option', message: "expected 'strict' or 'warn'" },
    ]);
  }
  const fromEnvironment = readEnvironment(RESPONSE_VALIDATION_ENVIRONMENT_VARIABLE)?.toLowerCase();
  if (fromEnvironment === undefined) return 'strict';
  if (isMode(fromEnvironment)) return fromEnvironment;
  warn(`${RESPONSE_VALIDATION_ENVIRONMENT_VARIABLE} is not 'strict' or 'warn'; using strict`);
  return 'strict';
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
