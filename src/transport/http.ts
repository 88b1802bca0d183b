/**
 * One HTTP attempt, sent by ky (loaded on the first request, so importing the SDK stays cheap).
 * ky runs with `retry: 0` (retries belong to the retry layer, on the client's clock), its
 * `timeout` bounds the wait for the answer, `throwHttpErrors: false` hands every status to the
 * error mapping, and `redirect: 'manual'` leaves redirects to us: never followed for a write, and
 * for a read only within the service's origin, so the credentials never leave it.
 *
 * The body is read here, chunk by chunk under `maxResponseBytes`, within the attempt's time limit.
 * ky's own errors carry the `Request` with its `Authorization` header, so none is ever kept:
 * failures without an answer become {@link ConnectionError}, {@link TimeoutError} or
 * {@link AbortError} holding only the underlying cause.
 * @module
 */
import type { KyInstance } from 'ky';
import { AbortError, ConnectionError, ResponseTooLargeError, TimeoutError } from '../errors.js';

/** One request to send. */
export interface HttpAttempt {
  method: string;
  url: string;
  /** Redacted URL, for error messages. */
  safeUrl: string;
  headers: Record<string, string>;
  json?: unknown;
  /** Time limit of this attempt (the wait for the answer and the body read). */
  timeoutMs: number;
  /** Set when `timeoutMs` was shortened to the call's deadline: a timeout then names the deadline. */
  deadlineMs?: number | undefined;
  maxResponseBytes: number;
  signal?: AbortSignal | undefined;
  fetch?: typeof fetch | undefined;
  /** Called with each request ky is about to send (the `onRequest` hook). */
  beforeRequest?: (() => void) | undefined;
}

/** The answer of one attempt, body already read and parsed. */
export interface HttpAnswer {
  response: Response;
  body: unknown;
}

// Errors whose request certainly never reached the server (nothing was sent), so even a create
// may be sent again without asking the server first.
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const notSent = new WeakSet<object>();

/** True when the failed attempt never reached the server (refused connection, DNS failure, a wait that ended before sending). */
export function wasNeverSent(error: unknown): boolean {
  return typeof error === 'object' && error !== null && notSent.has(error);
}

/** Marks an error raised before anything was sent (a rate-limit wait, a retry sleep, a deadline). */
export function markNeverSent<T extends object>(error: T): T {
  notSent.add(error);
  return error;
}

function errorCodes(error: unknown, seen = new Set<unknown>()): string[] {
  if (!error || typeof error !== 'object' || seen.has(error)) return [];
  seen.add(error);
  const record = error as { code?: unknown; cause?: unknown; errors?: unknown };
  const codes = typeof record.code === 'string' ? [record.code] : [];
  codes.push(...errorCodes(record.cause, seen));
  if (Array.isArray(record.errors)) for (const inner of record.errors) codes.push(...errorCodes(inner, seen));
  return codes;
}

let kyModule: Promise<KyInstance> | undefined;
let kyLoaded: KyInstance | undefined;
/** ky, imported once, when the first request needs it (importing it loads Node's fetch machinery). */
const loadKy = (): Promise<KyInstance> =>
  (kyModule ??= import('ky').then((module) => (kyLoaded = module.default)));

/**
 * Settles with `work`, or rejects as soon as `signal` aborts: a `fetch` passed in by the partner (or
 * a test double) may ignore the signal, and the caller's abort must hold all the same (ky's
 * `timeout` already holds without the fetch's help).
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Reads a body as text under `maxBytes`, cancelling the stream as soon as it passes the limit. */
async function readText(response: Response, maxBytes: number, tooLarge: () => Error): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return '';
  // A declared length within the limit is all the framing lets through: read it whole. Not when
  // compressed: the length is then the compressed one, and the decoded body may be far larger.
  if (Number.isFinite(declared) && response.headers.has('content-length') && !response.headers.has('content-encoding')) return response.text();
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** A body as JSON when it is JSON, as text otherwise, and undefined when empty. */
function parseBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

// Timers take whole milliseconds up to 2^31 - 1 (about 24.8 days): longer is as good as none.
const MAX_TIMER_MS = 2_147_483_647;

/** Thrown inside an attempt when its time limit passed while the body was being read. */
const bodyTimedOut = Symbol('bodyTimedOut');

/**
 * Sends one attempt and reads its body. ky's `timeout` bounds the wait for the answer; what is left
 * of the same limit bounds the body read (the stream is cancelled when it runs out), so a server
 * that stalls mid-body cannot hang a call, and one that never stops sending is cut at
 * `maxResponseBytes`. The caller's signal reaches ky, which aborts the request and its body.
 */
export async function sendAttempt(attempt: HttpAttempt): Promise<HttpAnswer> {
  const details = { method: attempt.method, url: attempt.safeUrl };
  const limitMs = Math.max(1, Math.min(Math.ceil(attempt.timeoutMs), MAX_TIMER_MS));
  const startedAt = Date.now();
  let tooLarge: ResponseTooLargeError | undefined;
  let bodyTimer: ReturnType<typeof setTimeout> | undefined;
  try {
    const ky = kyLoaded ?? (await loadKy());
    const exchange = async () => {
      const response = await ky(attempt.url, {
        method: attempt.method,
        headers: attempt.headers,
        json: attempt.json,
        retry: 0,
        timeout: limitMs,
        throwHttpErrors: false,
        redirect: 'manual',
        signal: attempt.signal,
        ...(attempt.fetch ? { fetch: attempt.fetch } : {}),
        ...(attempt.beforeRequest ? { hooks: { beforeRequest: [attempt.beforeRequest] } } : {}),
      });
      const read = readText(response, attempt.maxResponseBytes, () => {
        tooLarge = new ResponseTooLargeError({ ...details, status: response.status, maxResponseBytes: attempt.maxResponseBytes });
        return tooLarge;
      });
      const text = await new Promise<string>((resolve, reject) => {
        bodyTimer = setTimeout(() => {
          response.body?.cancel().catch(() => undefined);
          reject(bodyTimedOut);
        }, Math.max(1, limitMs - (Date.now() - startedAt)));
        read.then(resolve, reject);
      });
      return { response, body: parseBody(text) };
    };
    return await (attempt.signal ? untilAborted(exchange(), attempt.signal) : exchange());
  } catch (error) {
    if (tooLarge && error === tooLarge) throw error;
    if (attempt.signal?.aborted) throw new AbortError('The call was aborted', { cause: attempt.signal.reason });
    if (error === bodyTimedOut || (error instanceof Error && error.name === 'TimeoutError')) {
      const message = attempt.deadlineMs === undefined ? `No answer within ${attempt.timeoutMs} ms` : `No answer before the call's deadline of ${attempt.deadlineMs} ms`;
      throw new TimeoutError(message, details);
    }
    // ky's NetworkError keeps the Request (with its Authorization header): keep only what it wraps.
    const cause = error instanceof Error && error.name === 'NetworkError' && error.cause !== undefined ? error.cause : error;
    const codes = errorCodes(cause);
    const connectionError = new ConnectionError(`Connection failed${codes[0] ? ` (${codes[0]})` : ''}`, { ...details, cause });
    if (codes.some((code) => NOT_SENT_CODES.has(code))) notSent.add(connectionError);
    throw connectionError;
  } finally {
    clearTimeout(bodyTimer);
  }
}
