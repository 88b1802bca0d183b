/**
 * zod checks at both ends of a call: input before any request is spent, output before it reaches
 * the caller. Each refusal names the field and the rule.
 * @module
 */
import type { z } from 'zod';
import { InputValidationError, ResponseValidationError, type FieldIssue } from '../errors.js';

/** zod issues as the SDK's {@link FieldIssue}s. */
export function toFieldIssues(issues: readonly z.core.$ZodIssue[], prefix: (string | number)[] = []): FieldIssue[] {
  return issues.map((issue) => {
    const path = [...prefix, ...issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment))];
    return { field: path.join('.'), path, code: issue.code, message: issue.message };
  });
}

/** Parses a request value or throws {@link InputValidationError}. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, value: unknown, prefix: (string | number)[] = []): z.output<Schema> {
  const result = schema.safeParse(value);
  if (!result.success) throw new InputValidationError(toFieldIssues(result.error.issues, prefix));
  return result.data;
}

/** Parses a response body or throws {@link ResponseValidationError}. */
export function parseOutput<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  details: { method?: string; url?: string },
  prefix: (string | number)[] = [],
): z.output<Schema> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ResponseValidationError(toFieldIssues(result.error.issues, prefix), { ...details, body: value });
  return result.data;
}
