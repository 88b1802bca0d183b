/**
 * zod checks at both ends of a call: input before any request is spent, output before it reaches
 * the caller. Each refusal names the field and the rule.
 * @module
 */
import { safeParse } from 'zod/mini';
import type * as z from 'zod/mini';
import { InputValidationError, ResponseValidationError, type FieldIssue } from '../errors.js';
import { realSchema } from '../lazy-schema.js';
import { PARSE_PARAMS } from '../schema-messages.js';
import { checkHeaders } from './headers.js';
import { RESPONSE_VALIDATION_ENVIRONMENT_VARIABLE, type OffContractReport } from './response-validation.js';

/** zod issues as the SDK's {@link FieldIssue}s. */
export function toFieldIssues(
  issues: readonly z.core.$ZodIssue[],
  prefix: (string | number)[] = [],
): FieldIssue[] {
  return issues.flatMap((issue): FieldIssue[] => {
    const path = [
      ...prefix,
      ...issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment)),
    ];
    // zod reports unknown keys on their parent object; the field to name is each key itself.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: [...path, key].join('.'),
        path: [...path, key],
        code: issue.code,
        message: 'unknown field',
      }));
    }
    return [{ field: path.join('.'), path, code: issue.code, message: issue.message }];
  });
}

/**
 * The first place in `value` that JSON cannot carry faithfully (a bigint, function, symbol,
 * non-finite number or a cycle), as a field issue. Loose objects (metadata, unknown extra fields)
 * are not typed by the schemas, and a body that fails to serialise must be refused here, as input,
 * rather than surface later as a failed request.
 */
function findUnsendableValue(
  value: unknown,
  path: (string | number)[],
  seen: Set<object>,
): FieldIssue | undefined {
  const issue = (message: string): FieldIssue => ({ field: path.join('.'), path, code: 'not_json', message });
  switch (typeof value) {
    case 'bigint':
    case 'function':
    case 'symbol':
      return issue(`a ${typeof value} cannot be sent as JSON`);
    case 'number':
      return Number.isFinite(value) ? undefined : issue(`${value} cannot be sent as JSON`);
    case 'object': {
      if (value === null || typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
      if (seen.has(value)) return issue('a circular reference cannot be sent as JSON');
      seen.add(value);
      const entries = Array.isArray(value) ? value.entries() : Object.entries(value);
      for (const [key, item] of entries) {
        const found = findUnsendableValue(item, [...path, key], seen);
        if (found) return found;
      }
      seen.delete(value);
      return undefined;
    }
    case 'boolean':
    case 'string':
    case 'undefined':
      return undefined;
  }
}

/** Parses a request value or throws {@link InputValidationError}; the result is always sendable as JSON. */
export function parseInput<Schema extends z.core.$ZodType>(
  schema: Schema,
  value: unknown,
  prefix: (string | number)[] = [],
): z.output<Schema> {
  const result = safeParse(realSchema(schema), value, PARSE_PARAMS);
  if (!result.success) throw new InputValidationError(toFieldIssues(result.error.issues, prefix));
  const unsendable = findUnsendableValue(result.data, prefix, new Set());
  if (unsendable) throw new InputValidationError([unsendable]);
  return result.data;
}

/** Parses a response body or throws {@link ResponseValidationError} (in warn mode: reports and returns it as received). */
export function parseOutput<Schema extends z.core.$ZodType>(
  schema: Schema,
  value: unknown,
  details: {
    method?: string | undefined;
    url?: string | undefined;
    offContract?: OffContractReport | undefined;
  },
  prefix: (string | number)[] = [],
): z.output<Schema> {
  const result = safeParse(realSchema(schema), value, PARSE_PARAMS);
  if (result.success) return result.data;
  const issues = toFieldIssues(result.error.issues, prefix);
  const report = details.offContract;
  if (!report) {
    const error = new ResponseValidationError(issues, {
      method: details.method,
      url: details.url,
      body: value,
    });
    // Said where it is read in a production log: the way to keep going without waiting for a release.
    error.message += ` (to accept such answers with a warning instead, set responseValidation: 'warn' or ${RESPONSE_VALIDATION_ENVIRONMENT_VARIABLE}=warn)`;
    throw error;
  }
  // Warn mode: the caller gets the answer as received, typed as the contract (documented so).
  report(issues);
  return value as z.output<Schema>;
}

/** Checks the `{ signal, timeoutMs, maxRetries, deadlineMs, headers, priority }` a caller passes, client-wide or per call. */
export function checkRequestOptions(options: {
  signal?: unknown;
  timeoutMs?: unknown;
  maxRetries?: unknown;
  deadlineMs?: unknown;
  headers?: unknown;
  priority?: unknown;
}): void {
  const issues: FieldIssue[] = [];
  const refuse = (field: string, message: string) =>
    issues.push({ field, path: [field], code: 'invalid_option', message });
  const { signal, timeoutMs, maxRetries, deadlineMs, headers, priority } = options;
  if (priority !== undefined && priority !== 'interactive' && priority !== 'background')
    refuse('priority', "expected 'interactive' or 'background'");
  checkHeaders(headers, 'headers', true, issues);
  if (
    timeoutMs !== undefined &&
    !(typeof timeoutMs === 'number' && timeoutMs > 0 && Number.isFinite(timeoutMs))
  ) {
    refuse('timeoutMs', 'expected a finite number of milliseconds > 0');
  }
  if (
    deadlineMs !== undefined &&
    !(typeof deadlineMs === 'number' && deadlineMs > 0 && Number.isFinite(deadlineMs))
  ) {
    refuse('deadlineMs', 'expected a finite number of milliseconds > 0');
  }
  if (
    maxRetries !== undefined &&
    !(typeof maxRetries === 'number' && Number.isSafeInteger(maxRetries) && maxRetries >= 0)
  ) {
    refuse('maxRetries', 'expected an integer >= 0');
  }
  if (signal !== undefined && !(typeof AbortSignal !== 'undefined' && signal instanceof AbortSignal)) {
    refuse('signal', 'expected an AbortSignal');
  }
  if (issues.length > 0) throw new InputValidationError(issues);
}
