/**
 * Headers a partner adds to requests: `defaultHeaders` on the client (tracing, a gateway's key)
 * and `headers` per call. The SDK owns the headers its promises rest on (the credentials, the
 * idempotency key, the JSON body's type and length) and the ones `fetch` computes itself, so those
 * are refused rather than silently overwritten or, worse, sent in place of ours.
 * @module
 */
import { InputValidationError, type FieldIssue } from '../errors.js';

/** Extra request headers. In per-call `headers`, `null` removes a client default header for that call. */
export type RequestHeaders = Record<string, string | null | undefined>;

/** Names the SDK sets (or `fetch` computes) on every request; lower case. */
const OWNED_HEADERS = new Set([
  'authorization',
  'idempotency-key',
  'content-type',
  'content-length',
  'accept',
  'host',
  'connection',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);

// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// A header value `fetch` can carry unchanged: Latin-1 without control characters (tab allowed),
// no line breaks (header injection), no outer whitespace (which `fetch` would strip).
const HEADER_VALUE = /^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/;

/**
 * Checks `headers` (a plain object, or undefined) and returns them with lower-case names. `null`
 * values are kept only when `allowRemoval` (per call). Throws {@link InputValidationError} naming
 * `field.<name>` and the rule, or adds its issues to `into` when given (for a caller that reports
 * several options at once).
 */
export function checkHeaders(
  headers: unknown,
  field: string,
  allowRemoval: boolean,
  into?: FieldIssue[],
): Record<string, string | null> {
  if (headers === undefined) return {};
  const issues: FieldIssue[] = into ?? [];
  const refuse = (path: string[], message: string) =>
    issues.push({ field: path.join('.'), path, code: 'invalid_header', message });
  if (
    typeof headers !== 'object' ||
    headers === null ||
    Array.isArray(headers) ||
    headers instanceof Headers
  ) {
    refuse([field], 'expected a plain object of header names to string values');
    if (into) return {};
    throw new InputValidationError(issues);
  }
  const checked: Record<string, string | null> = {};
  for (const [name, value] of Object.entries(headers)) {
    const path = [field, name];
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) refuse(path, 'not a valid header name');
    else if (OWNED_HEADERS.has(lower)) refuse(path, 'set by the SDK itself and cannot be changed');
    else if (value === undefined) continue;
    else if (value === null && allowRemoval) checked[lower] = null;
    else if (typeof value !== 'string')
      refuse(
        path,
        allowRemoval ? 'expected a string, or null to remove a default header' : 'expected a string',
      );
    else if (!HEADER_VALUE.test(value))
      refuse(
        path,
        'not a valid header value (line breaks, control characters, characters beyond Latin-1 or outer spaces)',
      );
    else checked[lower] = value;
  }
  if (issues.length > 0 && !into) throw new InputValidationError(issues);
  return checked;
}

/**
 * The client's default headers with `over` on top (`null` removes a default): one call's `headers`,
 * or the `defaultHeaders` of a `withOptions` copy. Refusals name `field`.
 */
export function mergeHeaders(
  defaults: Readonly<Record<string, string>>,
  over: unknown,
  field = 'headers',
): Record<string, string> {
  if (over === undefined) return defaults;
  const merged: Record<string, string> = { ...defaults };
  for (const [name, value] of Object.entries(checkHeaders(over, field, true))) {
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  return merged;
}
