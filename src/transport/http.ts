/**
 * One HTTP attempt through ky (loaded on first use, so importing the SDK stays cheap), with ky's
 * own retry off: retries belong to the retry layer, which knows which operations may repeat.
 * Failures without an answer become {@link ConnectionError}, {@link TimeoutError} or
 * {@link AbortError}.
 * @module
 */
import { AbortError, ConnectionError, TimeoutError } from '../errors.js';
import { readBody } from './errors.js';

type Ky = typeof import('ky').default;
let kyModule: Promise<typeof import('ky')> | undefined;
const loadKy = () => (kyModule ??= import('ky'));

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
 * Sends one attempt and reads its body. The timeout covers both the wait for headers and the body
 * read (ky's own timeout only covers the first), so a server that stalls mid-body cannot hang a call.
 */
export async function sendAttempt(attempt: HttpAttempt): Promise<HttpAnswer> {
  const { default: ky, KyError } = await loadKy();
  const details = { method: attempt.method, url: attempt.safeUrl };
  // Timers take whole milliseconds up to 2^31 - 1 (about 24.8 days): longer is as good as none.
  const timeout = AbortSignal.timeout(Math.min(Math.ceil(attempt.timeoutMs), 2_147_483_647));
  const signal = attempt.signal ? AbortSignal.any([attempt.signal, timeout]) : timeout;
  try {
    const response = await (ky as Ky)(attempt.url, {
      method: attempt.method,
      headers: attempt.headers,
      ...(attempt.json === undefined ? {} : { json: attempt.json }),
      retry: 0,
      timeout: false,
      throwHttpErrors: false,
      signal,
      ...(attempt.fetch ? { fetch: attempt.fetch } : {}),
    });
    const body = await readBody(response);
    return { response, body };
  } catch (error) {
    if (attempt.signal?.aborted) throw new AbortError('The call was aborted', { cause: attempt.signal.reason });
    // ky's errors hold the Request, whose headers carry the credentials: never keep them as a cause.
    if (timeout.aborted) throw new TimeoutError(`No answer within ${attempt.timeoutMs} ms`, details);
    const underlying = error instanceof KyError ? error.cause : error;
    const codes = errorCodes(underlying);
    const connectionError = new ConnectionError(`Connection failed${codes[0] ? ` (${codes[0]})` : ''}`, { ...details, cause: underlying });
    if (codes.some((code) => NOT_SENT_CODES.has(code))) notSent.add(connectionError);
    throw connectionError;
  }
}
