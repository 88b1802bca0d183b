/**
 * Input checks shared by both faces: JSON bodies, plain objects, and a collector whose messages
 * name the field and the rule, thrown as one 400 {@link FakeError} with every field at once.
 * @module
 */
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../transport/json-depth.js';
import { invalid, type FieldErrors } from './fake-error.js';

/**
 * Deepest nesting of objects and arrays a body may have: the SDK's own bound. The fake walks
 * bodies recursively (the idempotency fingerprint, copies of metadata), and a body within the
 * size limit can nest deep enough to overflow the stack: that must be a 400, never a 500.
 */
export { MAX_JSON_DEPTH };

/** Parses a JSON body; empty means `undefined`. Malformed JSON is a 400 naming the problem. */
export function parseJsonText(text: string): unknown {
  if (text.trim() === '') return undefined;
  if (nestsDeeperThan(text, MAX_JSON_DEPTH))
    throw invalid(
      { non_field_errors: [`JSON nested more than ${MAX_JSON_DEPTH} levels deep.`] },
      'Malformed JSON.',
    );
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw invalid({ non_field_errors: [`JSON parse error: ${(error as Error).message}`] }, 'Malformed JSON.');
  }
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The body must be a JSON object (an empty body counts as `{}` when `emptyAllowed`). */
export function requireObject(body: unknown, emptyAllowed = false): Record<string, unknown> {
  if (body === undefined && emptyAllowed) return {};
  if (!isPlainObject(body)) {
    const got =
      body === undefined
        ? 'no body'
        : Array.isArray(body)
          ? 'an array'
          : typeof body === 'object'
            ? 'null'
            : typeof body;
    throw invalid({ non_field_errors: [`Expected a JSON object, got ${got}.`] });
  }
  return body;
}

/**
 * Length in characters as the service counts them (Python's `len`, Unicode code points), not in
 * UTF-16 units: a name of 255 emoji is 255 characters, within the spec's limit. The client's zod
 * checks count the same way, so the fake never refuses what the client lets through.
 */
export function characterCount(value: string): number {
  // Surrogate pairs are the only case where units and code points differ; skip the walk without them.
  if (!/[\uD800-\uDBFF]/.test(value)) return value.length;
  return [...value].length;
}

/** Collects field errors, then throws one 400 with all of them. */
export class FieldCollector {
  readonly errors: FieldErrors = {};

  add(field: string, message: string): void {
    // Own keys only: a body key named `constructor`, `toString` or `__proto__` must name its own
    // list, not reach an inherited member of the object (a 500 before) or its prototype.
    if (Object.hasOwn(this.errors, field)) this.errors[field]!.push(message);
    else
      Object.defineProperty(this.errors, field, {
        value: [message],
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }

  get hasErrors(): boolean {
    return Object.keys(this.errors).length > 0;
  }

  throwIfAny(): void {
    if (this.hasErrors) throw invalid(this.errors);
  }

  /** A string of at most `max` characters (code points); `nullable` allows null. Returns undefined when invalid. */
  string(
    body: Record<string, unknown>,
    field: string,
    rules: { max?: number; nullable?: boolean; required?: boolean } = {},
  ): string | null | undefined {
    const value = body[field];
    if (value === undefined) {
      if (rules.required) this.add(field, 'This field is required.');
      return undefined;
    }
    if (value === null) {
      if (rules.nullable) return null;
      this.add(field, 'This field may not be null.');
      return undefined;
    }
    if (typeof value !== 'string') {
      this.add(field, `Expected a string, got ${typeOf(value)}.`);
      return undefined;
    }
    if (rules.max !== undefined && characterCount(value) > rules.max) {
      this.add(field, `Ensure this field has no more than ${rules.max} characters.`);
      return undefined;
    }
    return value;
  }

  /** An integer within [min, max]. Strings and booleans are refused (no coercion). */
  integer(
    body: Record<string, unknown>,
    field: string,
    rules: { min: number; max: number; required?: boolean },
  ): number | undefined {
    const value = body[field];
    if (value === undefined) {
      if (rules.required) this.add(field, 'This field is required.');
      return undefined;
    }
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      this.add(field, `A valid integer is required, got ${typeOf(value)}.`);
      return undefined;
    }
    if (value < rules.min) {
      this.add(field, `Ensure this value is greater than or equal to ${rules.min}.`);
      return undefined;
    }
    if (value > rules.max) {
      this.add(field, `Ensure this value is less than or equal to ${rules.max}.`);
      return undefined;
    }
    return value;
  }

  boolean(body: Record<string, unknown>, field: string): boolean | undefined {
    const value = body[field];
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') {
      this.add(field, `Must be a valid boolean, got ${typeOf(value)}.`);
      return undefined;
    }
    return value;
  }
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isInteger(value)) return 'a non-integer number';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The URL, or null when it does not parse (URL.parse itself needs Node.js 22.1; engines admit 22.0). */
export function parseUrl(value: string): URL | null {
  return URL.canParse(value) ? new URL(value) : null;
}

/** An http(s) URL, as webhooks and profile websites require. */
export function isHttpUrl(value: string): boolean {
  const parsed = parseUrl(value);
  return (
    parsed !== null && (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== ''
  );
}

/** JSON with sorted keys, so two bodies that differ only in key order compare equal. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
