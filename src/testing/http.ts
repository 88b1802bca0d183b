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

/**
 * A JSON answer that keeps its text and headers as plain values: the `node:http` adapter writes
 * them as they are. A `Response` built with a body sets up a body stream (and a `Headers` list)
 * at once, which cost the standalone server more than a bare server spends on a whole request;
 * here the stream and the `Headers` are made only when a reader asks for them (MSW, or a client
 * reading the answer in-process), and read like any `Response`'s.
 */
export class JsonResponse extends Response {
  readonly serialized: string;
  /** Header names in lower case, `content-type` included. */
  readonly headerRecord: Record<string, string>;
  #headers: Headers | undefined;
  #stream: ReadableStream<Uint8Array<ArrayBuffer>> | undefined;
  #used = false;

  constructor(status: number, text: string, headers: Record<string, string>) {
    super(null, { status });
    this.serialized = text;
    this.headerRecord = { 'content-type': 'application/json' };
    for (const name in headers) this.headerRecord[name.toLowerCase()] = headers[name]!;
  }

  override get headers(): Headers {
    this.#headers ??= new Headers(this.headerRecord);
    return this.#headers;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    this.#stream ??= new Response(this.serialized).body!;
    return this.#stream;
  }

  override get bodyUsed(): boolean {
    return this.#used || (this.#stream?.locked ?? false);
  }

  /** The text, once, as `Response#text()` gives it; the stream when someone took it already. */
  #read(): Response {
    if (this.bodyUsed) throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
    return new Response(this.#stream ?? this.serialized);
  }

  override async text(): Promise<string> {
    if (this.bodyUsed) throw new TypeError('Body is unusable: Body has already been read');
    if (this.#stream) return this.#read().text();
    this.#used = true;
    return this.serialized;
  }

  override async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.#read().arrayBuffer();
  }

  override bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#read().bytes();
  }

  override blob(): Promise<Blob> {
    return this.#read().blob();
  }

  override formData(): Promise<FormData> {
    return this.#read().formData();
  }

  override clone(): JsonResponse {
    if (this.bodyUsed) throw new TypeError('Response.clone: Body has already been consumed.');
    // The text never changes: a second answer over it reads the same bytes, as a tee() would.
    return new JsonResponse(this.status, this.serialized, this.headerRecord);
  }
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new JsonResponse(status, JSON.stringify(body), headers);
}

export function empty(status: number, headers: Record<string, string> = {}): Response {
  return new Response(null, { status, headers });
}

export function errorResponse(
  status: number,
  detail: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
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
    throw invalid(
      { non_field_errors: ['The request body broke off before its end.'] },
      'Malformed request body.',
    );
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
  return new FakeError(413, 'Request body too large.', {
    fields: { non_field_errors: [`The body must not exceed ${MAX_BODY_BYTES} bytes.`] },
  });
}

/**
 * Bytes a text takes in UTF-8, at most: its length when all ASCII, else three bytes a UTF-16
 * unit (a bound that needs no encoding; answers are budgeted with it).
 */
export const utf8Bound = (text: string): number =>
  /[^\u0000-\u007f]/.test(text) ? 3 * text.length : text.length;

/** Levenshtein distance, for naming the nearest route of a path no route matches. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1)
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
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
