/**
 * The partner API's reservation routes (mirrors the client's `reservations` resource): list with
 * paging, create with `Idempotency-Key`, retrieve, and the PATCH forms (cancel, arrived, no-show).
 * The rules themselves are in the backend and its transition table.
 * @module
 */
import { invalid } from '../backend/fake-error.js';
import * as reservations from '../backend/reservations.js';
import { DEFAULT_PAGE_SIZE, MAX_IDEMPOTENCY_KEY_LENGTH, MAX_PAGE_SIZE } from '../backend/reservations.js';
import { FieldCollector, canonicalJson, characterCount, requireObject } from '../backend/validation.js';
import { JsonResponse, empty, errorResponse, json } from '../http.js';
import type { ApiCall } from './call.js';

/** GET `.../restaurants/:rid/reservations/`: own reservations, by start time then id, paged. */
export function listReservations(call: ApiCall): Response {
  const { backend, url } = call;
  const own = reservations.listOwnReservations(backend, call.partner, call.params.restaurantId!);
  const items = (records: typeof own) => `[${records.map((record) => backend.viewJson(record)).join(',')}]`;
  if (backend.dialect.list === 'array') return new JsonResponse(200, items(own), {});
  const fields = new FieldCollector();
  const page = readPositiveInteger(url.searchParams.get('page'), 'page', fields) ?? 1;
  // A larger page_size is clamped rather than refused (as Django REST framework's max_page_size).
  const pageSize = Math.min(
    readPositiveInteger(url.searchParams.get('page_size'), 'page_size', fields) ?? DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
  );
  fields.throwIfAny();
  const pageCount = Math.max(1, Math.ceil(own.length / pageSize));
  if (page > pageCount) return errorResponse(404, 'Invalid page.');
  // Links name the server's own origin: the adapters build the URL from it, never from the request.
  const link = (target: number) => {
    const next = new URL(url);
    next.searchParams.set('page', String(target));
    return backend.dialect.pageLinks === 'absolute' ? next.href : `${next.pathname}${next.search}`;
  };
  const next = page < pageCount ? link(page + 1) : null;
  const previous = page > 1 ? link(page - 1) : null;
  // The envelope written as text around the cached items, in the order DRF writes it.
  const envelope = `{"count":${own.length},"next":${JSON.stringify(next)},"previous":${JSON.stringify(previous)},"results":${items(own.slice((page - 1) * pageSize, page * pageSize))}}`;
  return new JsonResponse(200, envelope, {});
}

function readPositiveInteger(raw: string | null, field: string, fields: FieldCollector): number | undefined {
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    fields.add(field, 'Expected a positive integer.');
    return undefined;
  }
  return Number(raw);
}

/** POST `.../restaurants/:rid/reservations/`. */
export function createReservation(call: ApiCall): Response {
  const { backend, partner } = call;
  const restaurant = reservations.linkedRestaurant(backend, partner, call.params.restaurantId!);
  const body = requireObject(call.body);
  // "Idempotency-Key replays the first answer for the same key and body." The spec does not
  // promise the header, so the `ignored` dialect plays a service that never reads it.
  const key =
    backend.dialect.idempotencyKey === 'ignored' ? null : call.request.headers.get('idempotency-key');
  const fingerprint = `${restaurant.id} ${canonicalJson(body)}`;
  if (key !== null) {
    if (key.length === 0 || characterCount(key) > MAX_IDEMPOTENCY_KEY_LENGTH)
      throw invalid({ 'Idempotency-Key': [`Expected 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`] });
    const previous = backend.state.idempotency.get(`${partner.partnerId} ${key}`);
    if (previous) {
      if (previous.fingerprint !== fingerprint) {
        return errorResponse(422, 'This Idempotency-Key was already used with a different request.', {
          code: 'idempotency_key_reused',
        });
      }
      return new JsonResponse(previous.status, previous.body, { 'idempotent-replayed': 'true' });
    }
  }
  const record = reservations.createReservation(backend, partner, restaurant.id, body);
  const answer = JSON.stringify(backend.view(record));
  if (key !== null)
    backend.state.idempotency.set(`${partner.partnerId} ${key}`, {
      fingerprint,
      status: backend.dialect.createStatus,
      body: answer,
    });
  return new JsonResponse(backend.dialect.createStatus, answer, {});
}

/** GET `.../reservations/:id/` (the spec names no retrieve; REST convention). */
export function retrieveReservation(call: ApiCall): Response {
  return json(
    200,
    call.backend.view(
      reservations.ownReservation(
        call.backend,
        call.partner,
        call.params.restaurantId!,
        call.params.reservationId!,
      ),
    ),
  );
}

/** The operation a PATCH on a reservation stands for: `?action=cancel`, or a body marking arrived / no-show. */
export function patchOperation(
  url: URL,
  body: unknown,
): 'reservations.cancel' | 'reservations.markArrived' | 'reservations.markNoShow' | 'reservations.update' {
  if (url.searchParams.has('action')) return 'reservations.cancel';
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  if (fields.arrived !== undefined) return 'reservations.markArrived';
  if (fields.no_show !== undefined) return 'reservations.markNoShow';
  return 'reservations.update';
}

/** PATCH `.../reservations/:id/?action=cancel`, or with `{"arrived": true}` / `{"no_show": true}`. */
export function patchReservation(call: ApiCall): Response {
  const { backend, partner, params, url } = call;
  if (url.searchParams.has('action')) {
    if (url.searchParams.get('action') !== 'cancel')
      throw invalid({
        action: [`Unknown action "${url.searchParams.get('action')}"; the only action is cancel.`],
      });
    const record = reservations.cancelOwnReservation(
      backend,
      partner,
      params.restaurantId!,
      params.reservationId!,
    );
    if (backend.dialect.cancelBody === 'empty') return empty(204);
    return json(200, backend.view(record));
  }
  const body = requireObject(call.body, true);
  const fields = new FieldCollector();
  for (const key of Object.keys(body)) {
    if (key !== 'arrived' && key !== 'no_show')
      fields.add(key, 'Only arrived or no_show can be set by PATCH; cancel with ?action=cancel.');
  }
  const arrived = fields.boolean(body, 'arrived');
  const noShow = fields.boolean(body, 'no_show');
  if (arrived === false) fields.add('arrived', 'Only true is accepted.');
  if (noShow === false) fields.add('no_show', 'Only true is accepted.');
  if (arrived === undefined && noShow === undefined && !fields.hasErrors) {
    fields.add('action', 'Expected ?action=cancel, or a body {"arrived": true} or {"no_show": true}.');
  }
  if (arrived && noShow) fields.add('non_field_errors', 'Set either arrived or no_show, not both.');
  fields.throwIfAny();
  // No event for these: the spec's events are confirmed, modified and cancelled only.
  const record = reservations.markOwnReservation(
    backend,
    partner,
    params.restaurantId!,
    params.reservationId!,
    arrived ? 'markArrived' : 'markNoShow',
  );
  return json(200, backend.view(record));
}
