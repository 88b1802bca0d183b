/**
 * Reads, from one answer of the service, the open points it shows: a reservation list shows
 * `list` (and `pageLinks`, `duration`, `dateTimeForm` through its items), a 429 shows
 * `retryAfter`, a refusal shows `errorBody`, and so on. `doctor` learns the dialect with it and a
 * client given a dialect watches every answer with it, so both read the wire the same way.
 * Cheap by design: a few string tests per answer, one reservation looked at per list.
 * @module
 */
import type { DialectPoint, DialectPointValues } from './points.js';

/** One answer as the observer needs it. */
export interface ObservedAnswer {
  method: string;
  /** The path under `/api/v1/partnership` (`/restaurants/12/reservations/`). */
  path: string;
  /** The query string (`?action=cancel`), or ''. */
  search: string;
  status: number;
  /** Reads a response header (any case). */
  header(name: string): string | null;
  /** The body: parsed JSON, text, or undefined when empty. */
  body: unknown;
}

/** One point the answer shows, with the part of it that shows it (never a token: see webhookTokenField). */
export interface Observation<Key extends DialectPoint = DialectPoint> {
  key: Key;
  value: DialectPointValues[Key];
  excerpt: string;
}

const PROFILE = /^\/profile\/?$/;
const RESERVATIONS = /^\/restaurants\/[^/]+\/reservations\/$/;
const RESERVATION = /^\/restaurants\/[^/]+\/reservations\/[^/]+\/$/;
const WEBHOOKS = /^\/webhooks\/$/;
const WEBHOOK = /^\/webhooks\/[^/]+\/$/;
const WEBHOOK_TOKEN = /^\/webhooks\/[^/]+\/auth-token\/$/;
const TOKEN_FIELDS = ['auth_token', 'token', 'secret', 'authToken'] as const;

type Found = Observation[];
const add = <Key extends DialectPoint>(
  found: Found,
  key: Key,
  value: DialectPointValues[Key],
  excerpt: string,
) => {
  found.push({ key, value, excerpt });
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The form of one reservation date-time, or undefined when it is none of the known forms. */
export function dateTimeFormOf(text: string): DialectPointValues['dateTimeForm'] | undefined {
  const match = /^\d{4}-\d\d-\d\d([T ])(\d\d:\d\d)(:\d\d)?(\.\d+)?(Z|[+-]\d\d(?::?\d\d)?)?$/.exec(text);
  if (!match) return undefined;
  const [, separator, , seconds, fraction, offset] = match;
  if (separator === ' ') return 'space';
  if (fraction) return 'fraction';
  if (offset === 'Z') return 'utc';
  if (!seconds) return 'minutes';
  if (offset && /^[+-]\d{4}$/.test(offset)) return 'compact';
  return offset ? 'offset' : undefined;
}

function reservationPoints(found: Found, reservation: unknown): void {
  if (!isRecord(reservation)) return;
  const { duration, start_time: start } = reservation;
  if (typeof duration === 'string') {
    if (/^P/i.test(duration)) add(found, 'duration', 'iso', `"duration": ${JSON.stringify(duration)}`);
    else if (/^(\d+ )?\d\d:\d\d(:\d\d)?$/.test(duration))
      add(found, 'duration', 'hms', `"duration": ${JSON.stringify(duration)}`);
  }
  if (typeof start === 'string') {
    const form = dateTimeFormOf(start);
    if (form) add(found, 'dateTimeForm', form, `"start_time": ${JSON.stringify(start)}`);
  }
}

function refusalPoints(found: Found, answer: ObservedAnswer): void {
  const { body, status } = answer;
  if (status === 429) {
    const retryAfter = answer.header('retry-after');
    if (retryAfter === null) add(found, 'retryAfter', 'none', 'no retry-after header');
    else if (/^\s*\d+\s*$/.test(retryAfter))
      add(found, 'retryAfter', 'seconds', `retry-after: ${retryAfter.trim()}`);
    else if (!Number.isNaN(Date.parse(retryAfter)))
      add(found, 'retryAfter', 'date', `retry-after: ${retryAfter.trim()}`);
  }
  if (body === undefined || body === '') add(found, 'errorBody', 'empty', `${status} without a body`);
  else if (isRecord(body)) {
    const form =
      typeof body.detail === 'string'
        ? 'detail'
        : typeof body.message === 'string'
          ? 'message'
          : 'error' in body
            ? 'error'
            : Array.isArray(body.errors)
              ? 'errors'
              : undefined;
    if (form) add(found, 'errorBody', form, `{"${form}": ...}`);
    const first = Array.isArray(body.errors) && isRecord(body.errors[0]) ? body.errors[0] : {};
    const code = [body.code, body.error, body.detail, first.code].find(
      (value) => typeof value === 'string' && /^no[_ ]availability$/i.test(value.trim()),
    );
    if (code !== undefined && (status === 409 || status === 422 || status === 400)) {
      add(found, 'noAvailabilityStatus', status, `${status} ${JSON.stringify(code)}`);
    } else if (status === 400 || status === 422) {
      const field = Object.entries(body).find(
        ([key, value]) =>
          key !== 'detail' && Array.isArray(value) && value.every((message) => typeof message === 'string'),
      );
      if (field) add(found, 'badInputStatus', status, `${status} with a field map ("${field[0]}")`);
    }
  }
}

function listPoints(found: Found, body: unknown): void {
  if (Array.isArray(body)) {
    add(found, 'list', 'array', `a bare array of ${body.length}`);
    reservationPoints(found, body[0]);
    return;
  }
  if (!isRecord(body) || !Array.isArray(body.results)) return;
  add(found, 'list', 'envelope', `{"count": ${JSON.stringify(body.count)}, "results": [...]}`);
  const link = [body.next, body.previous].find((value) => typeof value === 'string' && value !== '');
  if (typeof link === 'string') {
    if (/^https?:\/\//i.test(link))
      add(found, 'pageLinks', 'absolute', `"next": "${link.replace(/^(https?:\/\/[^/]*).*$/i, '$1/...')}"`);
    else if (/^[/?]/.test(link)) add(found, 'pageLinks', 'relative', `"next": "${link.slice(0, 80)}"`);
  }
  reservationPoints(found, body.results[0]);
}

function reservationAnswerPoints(found: Found, answer: ObservedAnswer): void {
  const { method, status, body } = answer;
  if (method === 'POST') {
    add(found, 'createStatus', status as 201 | 200, `POST answered ${status}`);
    if (answer.header('idempotent-replayed') === 'true')
      add(found, 'idempotencyKey', 'honoured', 'idempotent-replayed: true');
  } else if (method === 'PATCH' && /[?&]action=cancel(&|$)/.test(answer.search)) {
    const withBody = isRecord(body);
    add(
      found,
      'cancelBody',
      withBody ? 'reservation' : 'empty',
      `${status} ${withBody ? 'with the reservation' : 'without a body'}`,
    );
  }
  reservationPoints(found, body);
}

function webhookPoints(found: Found, answer: ObservedAnswer): void {
  const { method, path, status, body } = answer;
  if (method === 'DELETE' && WEBHOOK.test(path)) {
    add(found, 'deleteStatus', status as 204 | 200, `DELETE answered ${status}`);
    return;
  }
  if (method !== 'POST' || !(WEBHOOKS.test(path) || WEBHOOK_TOKEN.test(path))) return;
  if (WEBHOOKS.test(path)) add(found, 'createStatus', status as 201 | 200, `POST answered ${status}`);
  const field = isRecord(body) ? TOKEN_FIELDS.find((name) => typeof body[name] === 'string') : undefined;
  if (field) add(found, 'webhookTokenField', field, `"${field}": "[REDACTED]"`);
}

/** The open points one answer shows (often none). */
export function observeAnswer(answer: ObservedAnswer): Observation[] {
  const found: Found = [];
  const { method, path, status, body } = answer;
  if (status >= 400) refusalPoints(found, answer);
  else if (status < 200 || status >= 300) return found;
  else if (method === 'GET' && PROFILE.test(path)) {
    if (Array.isArray(body)) add(found, 'profile', 'list', 'a one-element list');
    else if (isRecord(body)) add(found, 'profile', 'object', 'an object');
  } else if (method === 'GET' && RESERVATIONS.test(path)) listPoints(found, body);
  else if ((method === 'POST' && RESERVATIONS.test(path)) || RESERVATION.test(path))
    reservationAnswerPoints(found, answer);
  else webhookPoints(found, answer);
  return found;
}
