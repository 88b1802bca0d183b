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
import {
  AbortError,
  ConnectionError,
  ResponseTooLargeError,
  ResponseValidationError,
  strongerSent,
  TimeoutError,
  type RequestSent,
} from '../errors.js';
import { untilAborted } from './call.js';
import { unreadableJson } from './json-depth.js';

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
  /** Called as soon as the answer's status line arrives, before its body is read (the rate limiter counts the request from then). */
  onAnswer?: (() => void) | undefined;
  /** The number of this attempt (1 for the first), for the errors it builds. */
  attempt: number;
  /** What the call's earlier attempts sent: an error of this one says at least as much. */
  sentBefore: RequestSent;
}

/** The answer of one attempt, body already read and parsed. */
export interface HttpAnswer {
  response: Response;
  body: unknown;
}

/**
 * True when a failure's cause chain names the connect phase: the connection was never opened, so
 * the request never left. Only these: a failed `connect` or DNS look-up (`getaddrinfo`), or
 * undici's connect timeout. An unreachable host or network reported on a socket that was already
 * carrying the request (`EHOSTUNREACH` while reading) is not proof of anything, nor is an error
 * from a custom `fetch` that names no cause.
 */
export function failedBeforeSending(error: unknown, seen = new Set<unknown>()): boolean {
  if (!error || typeof error !== 'object' || seen.has(error)) return false;
  seen.add(error);
  const record = error as { code?: unknown; syscall?: unknown; cause?: unknown; errors?: unknown };
  if (
    record.syscall === 'connect' ||
    record.syscall === 'getaddrinfo' ||
    record.code === 'UND_ERR_CONNECT_TIMEOUT'
  )
    return true;
  // Happy eyeballs: every address tried failed to connect.
  if (
    Array.isArray(record.errors) &&
    record.errors.length > 0 &&
    record.errors.every((inner) => failedBeforeSending(inner, seen))
  )
    return true;
  return failedBeforeSending(record.cause, seen);
}

/** The first error code of a cause chain, for the message. */
function firstErrorCode(error: unknown, seen = new Set<unknown>()): string | undefined {
  if (!error || typeof error !== 'object' || seen.has(error)) return undefined;
  seen.add(error);
  const record = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof record.code === 'string') return record.code;
  const inner: readonly unknown[] = Array.isArray(record.errors) ? record.errors : [];
  for (const candidate of [record.cause, ...inner]) {
    const code = firstErrorCode(candidate, seen);
    if (code) return code;
  }
  return undefined;
}

let kyModule: Promise<KyInstance> | undefined;
let kyLoaded: KyInstance | undefined;
/** ky, imported once, when the first request needs it (importing it loads Node's fetch machinery). */
const loadKy = (): Promise<KyInstance> =>
  (kyModule ??= import('ky').then((module) => (kyLoaded = module.default)));

/**
 * Reads a body as text under `maxBytes`, refusing it as soon as it passes the limit. `onReader`
 * receives the reader, so the attempt can cancel it whatever ends the attempt.
 */
async function readText(
  response: Response,
  maxBytes: number,
  tooLarge: () => Error,
  onReader: (reader: ReadableStreamDefaultReader<Uint8Array>) => void,
): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  // A declared length is not trusted to be within the limit (compressed, or simply wrong), but
  // one already past it is refused before reading anything.
  if (response.headers.has('content-length') && Number.isFinite(declared) && declared > maxBytes)
    throw tooLarge();
  if (!response.body) return '';
  const reader = response.body.getReader();
  onReader(reader);
  const decoder = new TextDecoder();
  let text = '';
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    total += value.byteLength;
    if (total > maxBytes) throw tooLarge();
    text += decoder.decode(value, { stream: true });
  }
}

/**
 * A body as JSON when it is JSON, as text otherwise, and undefined when empty. JSON nested deeper
 * than {@link MAX_READ_JSON_DEPTH} is never parsed (see json-depth.ts): a 2xx answer carrying it is
 * refused, as no answer of the service; an error's body is kept as text, and its status still
 * decides (a 429 or a 503 is retried as usual).
 */
function parseBody(text: string, status: number, details: { method: string; url: string }): unknown {
  if (text.trim() === '') return undefined;
  const unreadable = unreadableJson(text);
  if (unreadable) {
    if (status < 200 || status >= 300) return text;
    throw new ResponseValidationError([{ field: '', path: [], ...unreadable }], details);
  }
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

// Timers take whole milliseconds up to 2^31 - 1 (about 24.8 days): longer is as good as none.
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Sends one attempt and reads its body, under one time limit for both. Whatever ends the attempt
 * other than a body read to its end (the time limit, the caller's abort, a body past
 * `maxResponseBytes`, a failure) aborts the request and cancels the body it was reading: the
 * socket that carried it is closed, nothing more is read, and no timer is left running. A custom
 * `fetch` that ignores the signal has its body cancelled all the same.
 */
export async function sendAttempt(attempt: HttpAttempt): Promise<HttpAnswer> {
  const details = { method: attempt.method, url: attempt.safeUrl, attempts: attempt.attempt };
  const limitMs = Math.max(1, Math.min(Math.ceil(attempt.timeoutMs), MAX_TIMER_MS));
  // Ends the request and its body: aborted by the time limit, and by `finally` unless the body was read whole.
  const own = new AbortController();
  const signal = attempt.signal ? AbortSignal.any([attempt.signal, own.signal]) : own.signal;
  const underlyingFetch = attempt.fetch;
  let fetchCalled = false;
  let response: Response | undefined;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let tooLarge: ResponseTooLargeError | undefined;
  let timedOut = false;
  let completed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // What this attempt sent so far: nothing before `fetch` is called; then maybe; an answer, yes.
  const sent = (): RequestSent =>
    strongerSent(attempt.sentBefore, response ? 'yes' : fetchCalled ? 'maybe' : 'no');
  try {
    const ky = kyLoaded ?? (await loadKy());
    timer = setTimeout(() => {
      timedOut = true;
      own.abort();
    }, limitMs);
    const exchange = async (): Promise<HttpAnswer> => {
      response = await ky(attempt.url, {
        method: attempt.method,
        headers: attempt.headers,
        json: attempt.json,
        retry: 0,
        // The time limit is ours, over the answer and its body alike.
        timeout: false,
        throwHttpErrors: false,
        redirect: 'manual',
        signal,
        fetch: (input, init) => {
          fetchCalled = true;
          return (underlyingFetch ?? globalThis.fetch)(input, init);
        },
        ...(attempt.beforeRequest ? { hooks: { beforeRequest: [attempt.beforeRequest] } } : {}),
      });
      attempt.onAnswer?.();
      const answered = response;
      const text = await readText(
        answered,
        attempt.maxResponseBytes,
        () =>
          (tooLarge = new ResponseTooLargeError({
            ...details,
            status: answered.status,
            maxResponseBytes: attempt.maxResponseBytes,
          })),
        (bodyReader) => (reader = bodyReader),
      );
      completed = true;
      return {
        response: answered,
        body: parseBody(text, answered.status, { method: attempt.method, url: attempt.safeUrl }),
      };
    };
    // A custom fetch (or a test double) may ignore the signal: the attempt ends with it all the same.
    return await untilAborted(exchange(), signal);
  } catch (error) {
    if (tooLarge) throw tooLarge;
    // An answer came, unreadable: not a failure of the connection.
    if (error instanceof ResponseValidationError) throw error;
    if (attempt.signal?.aborted)
      throw new AbortError('The call was aborted', {
        cause: attempt.signal.reason,
        sent: sent(),
        attempts: attempt.attempt,
      });
    if (timedOut) {
      const message =
        attempt.deadlineMs === undefined
          ? `No answer within ${attempt.timeoutMs} ms`
          : `No answer before the call's deadline of ${attempt.deadlineMs} ms`;
      throw new TimeoutError(message, { ...details, sent: sent() });
    }
    // ky's NetworkError keeps the Request (with its Authorization header): keep only what it wraps.
    const cause =
      error instanceof Error && error.name === 'NetworkError' && error.cause !== undefined
        ? error.cause
        : error;
    const code = firstErrorCode(cause);
    // Not sent only when the connection was never opened; any other failure after fetch was called may have delivered it.
    const connectSent =
      response || !fetchCalled ? sent() : failedBeforeSending(cause) ? attempt.sentBefore : sent();
    throw new ConnectionError(`Connection failed${code ? ` (${code})` : ''}`, {
      ...details,
      cause,
      sent: connectSent,
    });
  } finally {
    clearTimeout(timer);
    if (!completed) {
      own.abort();
      // For a fetch that ignores the signal: its body is cancelled here, reader or not.
      if (reader) reader.cancel().catch(() => undefined);
      else if (response?.body && !response.bodyUsed) response.body.cancel().catch(() => undefined);
    }
  }
}
