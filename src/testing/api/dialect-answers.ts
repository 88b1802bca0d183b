/**
 * The refusals of the partner API in the dialect in force: the error body's form (`errorBody`),
 * the status of a refused input (`badInputStatus`) and of no availability
 * (`noAvailabilityStatus`), and the 429's `Retry-After` (`retryAfter`). Operations refuse in the
 * default dialect; this rewrites the answer once, on its way out (injected faults keep their
 * answer as given).
 * @module
 */
import type { Dialect } from '../backend/dialects.js';
import { JsonResponse, empty } from '../http.js';

/** True when the dialect changes no refusal (most fakes): answers pass through untouched. */
const speaksDefault = (dialect: Dialect) =>
  dialect.errorBody === 'detail' &&
  dialect.badInputStatus === 400 &&
  dialect.noAvailabilityStatus === 409 &&
  dialect.retryAfter === 'seconds';

/** `response` as the dialect answers it; `now` is the fake's clock (for a `Retry-After` date). */
export function inDialect(dialect: Dialect, response: Response, now: number): Response {
  if (response.status < 400 || speaksDefault(dialect) || !(response instanceof JsonResponse)) return response;
  let body: unknown;
  try {
    body = JSON.parse(response.serialized);
  } catch {
    return response;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return response;
  const record = { ...(body as Record<string, unknown>) };
  const headers = { ...response.headerRecord };
  let status = response.status;
  if (record.code === 'no_availability') status = dialect.noAvailabilityStatus;
  else if (status === 400) status = dialect.badInputStatus;
  if (status === 429) {
    const seconds = Number(headers['retry-after']);
    if (dialect.retryAfter === 'none') delete headers['retry-after'];
    else if (dialect.retryAfter === 'date' && Number.isFinite(seconds))
      // HTTP dates count whole seconds: rounded up, so a client never asks again too early.
      headers['retry-after'] = new Date(Math.ceil((now + seconds * 1000) / 1000) * 1000).toUTCString();
  }
  if (dialect.errorBody === 'empty') {
    delete headers['content-type'];
    return empty(status, headers);
  }
  if (dialect.errorBody === 'errors' && 'detail' in record) {
    const { detail, code, ...fields } = record;
    const item = { message: detail, ...(code === undefined ? {} : { code }) };
    return new JsonResponse(status, JSON.stringify({ errors: [item], ...fields }), headers);
  }
  if (dialect.errorBody !== 'detail' && 'detail' in record) {
    const { detail, ...rest } = record;
    return new JsonResponse(status, JSON.stringify({ [dialect.errorBody]: detail, ...rest }), headers);
  }
  return new JsonResponse(status, JSON.stringify(record), headers);
}
