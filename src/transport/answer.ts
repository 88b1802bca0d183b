/**
 * What the attempt loop does with an answer once it has one: parse a 2xx (warning on an
 * off-contract one in warn mode), follow a redirect within the service's origin, or build the
 * error for anything else. Apart from the loop, which only orders these steps (send, classify,
 * retry); each step here depends on the answer alone.
 * @module
 */
import { PartnerApiError, type FieldIssue } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Call } from './call.js';
import { errorFromResponse, headersToObject } from './error-from-response.js';
import type { RequestSpec } from './request-spec.js';
import type { Secrets } from './secrets.js';

/** Where an answer came from, as errors and log lines show it (the URL already safe). */
export interface AnswerWhere {
  method: string;
  url: string;
}

/**
 * The data of a 2xx answer, by the spec's parser. In warn mode an off-contract answer is returned
 * as received, with one warning naming every off-contract field (never the body: it carries
 * guests' names and may carry a webhook token).
 */
export function parseAnswer<T>(
  spec: RequestSpec<T>,
  call: Call,
  answer: { response: Response | null; body: unknown },
  where: AnswerWhere,
  logger: Logger,
): T {
  if (call.validation === 'strict') return spec.parse(answer.body, answer.response, where);
  const offContract: FieldIssue[] = [];
  const data = spec.parse(answer.body, answer.response, {
    ...where,
    offContract: (issues) => offContract.push(...issues),
  });
  if (offContract.length > 0) {
    const fields = [...new Set(offContract.map((issue) => issue.field || '(root)'))];
    logger.warn(
      `off-contract answer to ${where.method} ${where.url}, returned as received: ${offContract.map((issue) => `${issue.field || '(root)'}: ${issue.message}`).join('; ')}`,
      {
        ...where,
        fields,
      },
    );
  }
  return data;
}

export function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
}

/**
 * Where a redirect may be followed: only for a read, and only within the service's origin (the
 * credentials go nowhere else). Undefined when it must not be followed.
 */
export function redirectTarget(
  method: string,
  from: URL,
  response: Response,
  serviceOrigin: string,
): URL | undefined {
  if (method !== 'GET' || !isRedirect(response)) return undefined;
  const location = response.headers.get('location');
  if (!location) return undefined;
  let target: URL;
  try {
    target = new URL(location, from);
  } catch {
    return undefined;
  }
  return target.origin === serviceOrigin ? target : undefined;
}

/** What {@link errorForAnswer} needs of the client: its secrets, its clock's now, its URL redaction. */
export interface AnswerErrorContext {
  secrets: Secrets;
  now: number;
  safeUrl(url: URL): string;
}

/** The error for an answer outside 2xx; `refusedRedirectFrom` set for a redirect not followed. */
export function errorForAnswer(
  response: Response,
  body: unknown,
  where: AnswerWhere,
  attempt: number,
  refusedRedirectFrom: URL | undefined,
  context: AnswerErrorContext,
): PartnerApiError {
  const { secrets } = context;
  const status = response.status === 0 ? 302 : response.status;
  const details = {
    status,
    headers: secrets.scrub(headersToObject(response.headers)),
    body: secrets.scrub(body),
    ...where,
    attempts: attempt,
  };
  if (!refusedRedirectFrom) return errorFromResponse({ ...details, now: context.now });
  let location = '';
  try {
    if (details.headers.location)
      location = ` to ${context.safeUrl(new URL(details.headers.location, refusedRedirectFrom))}`;
  } catch {
    location = ' to an unreadable location';
  }
  const why = where.method === 'GET' ? 'leads to another origin' : `answered a ${where.method}`;
  return new PartnerApiError(`HTTP ${status}: not following a redirect${location}, which ${why}`, details);
}
