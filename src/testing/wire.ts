/**
 * How the fake speaks: JSON answers, `{"detail": ...}` errors with field maps, body reading with a
 * size limit, and small validators whose messages name the field and the rule.
 * @module
 */
import { readLimited } from '../webhooks/body-collector.js';

/** Largest request body the fake reads (the spec shows none; 1 MiB is far above any real request). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** A field map: `{"field": ["message"]}`. */
export type FieldErrors = Record<string, string[]>;

/** A JSON answer that keeps its payload readable synchronously (the control API's JS methods throw it). */
export class JsonResponse extends Response {
  readonly payload: unknown;
  constructor(status: number, payload: unknown, headers: Record<string, string> = {}) {
    super(JSON.stringify(payload), { status, headers: { 'content-type': 'application/json', ...headers } });
    this.payload = payload;
  }
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): JsonResponse {
  return new JsonResponse(status, body, headers);
}

export function empty(status: number, headers: Record<string, string> = {}): Response {
  return new Response(null, { status, headers });
}

export function errorResponse(status: number, detail: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): JsonResponse {
  return json(status, { detail, ...extra }, headers);
}

/** 400 with `{"detail": "Invalid input.", <field>: [messages]}`. */
export function badRequest(errors: FieldErrors, detail = 'Invalid input.'): JsonResponse {
  return json(400, { detail, ...errors });
}

export const notFound = (detail = 'Not found.'): JsonResponse => errorResponse(404, detail);

/** Thrown inside an operation to answer at once (keeps the rules linear to read). */
export class HttpProblem extends Error {
  constructor(readonly response: Response) {
    super(`HTTP ${response.status}`);
  }
}

export const fail = (response: Response): never => {
  throw new HttpProblem(response);
};

/** Reads the body as text, refusing more than {@link MAX_BODY_BYTES} without buffering it all. */
export async function readBodyText(request: Request): Promise<string> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) fail(tooLarge());
  if (!request.body) return '';
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readLimited(request.body.getReader(), MAX_BODY_BYTES);
  } catch {
    // The client stopped sending mid-body (or its stream failed): its fault, not the fake's.
    return fail(badRequest({ non_field_errors: ['The request body broke off before its end.'] }, 'Malformed request body.'));
  }
  if (bytes === undefined) return fail(tooLarge());
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return fail(badRequest({ non_field_errors: ['The body is not valid UTF-8.'] }, 'Malformed request body.'));
  }
}

function tooLarge(): JsonResponse {
  return json(413, { detail: 'Request body too large.', non_field_errors: [`The body must not exceed ${MAX_BODY_BYTES} bytes.`] });
}

/**
 * Deepest nesting of objects and arrays a body may have. The fake walks bodies recursively (the
 * idempotency fingerprint, copies of metadata), and a body within the size limit can nest deep
 * enough to overflow the stack: that must be a 400, never a 500.
 */
const MAX_JSON_DEPTH = 100;

/** Whether JSON `text` nests objects and arrays deeper than `limit` (a scan, no recursion). */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index++; // backslash: skip the escaped character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) {
      if (++depth > limit) return true;
    } else if (char === 0x7d || char === 0x5d) depth--;
  }
  return false;
}

/** Parses a JSON body; empty means `undefined`. Malformed JSON is a 400 naming the problem. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch (error) {
    return fail(badRequest({ non_field_errors: [`JSON parse error: ${(error as Error).message}`] }, 'Malformed JSON.'));
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    return fail(badRequest({ non_field_errors: [`JSON nested more than ${MAX_JSON_DEPTH} levels deep.`] }, 'Malformed JSON.'));
  }
  return parsed;
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The body must be a JSON object (an empty body counts as `{}` when `emptyAllowed`). */
export function requireObject(body: unknown, emptyAllowed = false): Record<string, unknown> {
  if (body === undefined && emptyAllowed) return {};
  if (!isPlainObject(body)) {
    const got = body === undefined ? 'no body' : Array.isArray(body) ? 'an array' : typeof body === 'object' ? 'null' : typeof body;
    return fail(badRequest({ non_field_errors: [`Expected a JSON object, got ${got}.`] }));
  }
  return body;
}

/** Collects field errors, then answers 400 with all of them at once. */
export class FieldCollector {
  readonly errors: FieldErrors = {};

  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  get hasErrors(): boolean {
    return Object.keys(this.errors).length > 0;
  }

  throwIfAny(): void {
    if (this.hasErrors) fail(badRequest(this.errors));
  }

  /** A string of at most `max` characters; `nullable` allows null. Returns undefined when invalid. */
  string(body: Record<string, unknown>, field: string, rules: { max?: number; nullable?: boolean; required?: boolean } = {}): string | null | undefined {
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
  integer(body: Record<string, unknown>, field: string, rules: { min: number; max: number; required?: boolean }): number | undefined {
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

/**
 * Length in characters as the service counts them (Python's `len`, Unicode code points), not in
 * UTF-16 units: a name of 255 emoji is 255 characters, within the spec's limit. The client's zod
 * checks count the same way, so the fake never refuses what the client lets through.
 */
function characterCount(value: string): number {
  // Surrogate pairs are the only case where units and code points differ; skip the walk without them.
  if (!/[\uD800-\uDBFF]/.test(value)) return value.length;
  return [...value].length;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isInteger(value)) return 'a non-integer number';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** An http(s) URL, as webhooks and profile websites require. */
export function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol, hostname } = new URL(value);
  return (protocol === 'http:' || protocol === 'https:') && hostname !== '';
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
