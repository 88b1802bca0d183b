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
export function resolveResponseValidation(
  option: unknown,
  warn: (message: string) => void,
): ResponseValidation {
  return chooseSetting({
    option,
    field: 'responseValidation',
    allowed: ['strict', 'warn'],
    variable: RESPONSE_VALIDATION_ENVIRONMENT_VARIABLE,
    fallback: 'strict',
    warn,
  });
}

/** Receives the off-contract fields of an answer read in warn mode. */
export type OffContractReport = (issues: FieldIssue[]) => void;

/**
 * Where an answer came from, as the transport hands it to a resource's parser. In warn mode it
 * carries `offContract`: the parser reports off-contract fields there instead of throwing.
 */
export interface AnswerSource {
  method: string;
  url: string;
  offContract?: OffContractReport | undefined;
}
