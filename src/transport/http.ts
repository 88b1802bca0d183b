/**
 * One HTTP attempt, straight through `fetch`. Retries belong to the retry layer (which knows
 * which operations may repeat), the timeout is ours (it covers the body read too), and so are
 * JSON and error mapping: ky, which the project started with, did none of that work for us and
 * cost 1.34 times a raw fetch per call on its own (`npm run bench`), more than the whole client's
 * budget. Failures without an answer become {@link ConnectionError}, {@link TimeoutError} or
 * {@link AbortError}.
 * @module
 */
import { AbortError, ConnectionError, TimeoutError } from '../errors.js';
import { readBody } from './errors.js';

/** One request to send. */
export interface HttpAttempt {
  method: string;
  url: string;
  /** Redacted URL, for error messages. */
  safeUrl: string;
  headers: Record<string, string>;
  json?: unknown;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  fetch?: typeof fetch | undefined;
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

/** True when the failed attempt never reached the server (refused connection, DNS failure). */
export function wasNeverSent(error: unknown): boolean {
  return typeof error === 'object' && error !== null && notSent.has(error);
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

/**
 * Settles with `work`, or rejects as soon as `signal` aborts: a `fetch` passed in by the partner (or
 * a test double) may ignore the signal, and the timeout must hold all the same.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Sends one attempt and reads its body. The timeout covers both the wait for headers and the body
 * read, so a server that stalls mid-body cannot hang a call.
 */
export async function sendAttempt(attempt: HttpAttempt): Promise<HttpAnswer> {
  const details = { method: attempt.method, url: attempt.safeUrl };
  // Timers take whole milliseconds up to 2^31 - 1 (about 24.8 days): longer is as good as none.
  const timeout = AbortSignal.timeout(Math.min(Math.ceil(attempt.timeoutMs), 2_147_483_647));
  const signal = attempt.signal ? AbortSignal.any([attempt.signal, timeout]) : timeout;
  try {
    const hasBody = attempt.json !== undefined;
    const send = attempt.fetch ?? fetch;
    // fetch follows redirects and drops Authorization when one leads to another origin.
    const exchange = async () => {
      const response = await send(attempt.url, {
        method: attempt.method,
        headers: hasBody ? { ...attempt.headers, 'content-type': 'application/json' } : attempt.headers,
        body: hasBody ? JSON.stringify(attempt.json) : null,
        signal,
      });
      return { response, body: await readBody(response) };
    };
    return await untilAborted(exchange(), signal);
  } catch (error) {
    if (attempt.signal?.aborted) throw new AbortError('The call was aborted', { cause: attempt.signal.reason });
    if (timeout.aborted) throw new TimeoutError(`No answer within ${attempt.timeoutMs} ms`, details);
    const codes = errorCodes(error);
    const connectionError = new ConnectionError(`Connection failed${codes[0] ? ` (${codes[0]})` : ''}`, { ...details, cause: error });
    if (codes.some((code) => NOT_SENT_CODES.has(code))) notSent.add(connectionError);
    throw connectionError;
  }
}
