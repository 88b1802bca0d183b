/**
 * How both faces speak HTTP: JSON answers, `{"detail": ...}` errors with field maps from a
 * {@link FakeError}, and body reading with a size limit.
 * @module
 */
import { readLimited } from '../webhooks/body-collector.js';
import { FakeError, invalid } from './backend/fake-error.js';
import { parseJsonText } from './backend/validation.js';

/** Largest request body the fake reads (the spec shows none; 1 MiB is far above any real request). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** A JSON answer that keeps its text, so the `node:http` adapter writes it without reading a stream back. */
export class JsonResponse extends Response {
  readonly serialized: string;
  constructor(status: number, text: string, headers: Record<string, string>) {
    super(text, { status, headers: { 'content-type': 'application/json', ...headers } });
    this.serialized = text;
  }
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new JsonResponse(status, JSON.stringify(body), headers);
}

export function empty(status: number, headers: Record<string, string> = {}): Response {
  return new Response(null, { status, headers });
}

export function errorResponse(status: number, detail: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Response {
  return json(status, { detail, ...extra }, headers);
}

/** The answer for a refusal. */
export function refusal(error: FakeError): Response {
  return json(error.status, error.body);
}

/** Reads the body as text, refusing more than {@link MAX_BODY_BYTES} without buffering it all. */
export async function readBodyText(request: Request): Promise<string> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return '';
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readLimited(request.body.getReader(), MAX_BODY_BYTES);
  } catch {
    // The client stopped sending mid-body (or its stream failed): its fault, not the fake's.
    throw invalid({ non_field_errors: ['The request body broke off before its end.'] }, 'Malformed request body.');
  }
  if (bytes === undefined) throw tooLarge();
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalid({ non_field_errors: ['The body is not valid UTF-8.'] }, 'Malformed request body.');
  }
}

/** The JSON body of a request (undefined when empty). */
export async function readJsonBody(request: Request): Promise<unknown> {
  return parseJsonText(await readBodyText(request));
}

function tooLarge(): FakeError {
  return new FakeError(413, 'Request body too large.', { fields: { non_field_errors: [`The body must not exceed ${MAX_BODY_BYTES} bytes.`] } });
}

/** Levenshtein distance, for naming the nearest route of a path no route matches. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

/** The route template nearest to `path` (ids stand for `:name` segments), for a 404 that helps. */
export function nearestRoute(path: string, templates: readonly string[]): string | undefined {
  const shape = path.slice(0, 300).replace(/\/\d+(?=\/|$)/g, '/:id');
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const template of templates) {
    const candidate = distance(shape, template.replace(/:[A-Za-z]+/g, ':id'));
    if (candidate < bestDistance) {
      best = template;
      bestDistance = candidate;
    }
  }
  return best;
}
