/**
 * Reservation rules: partner operations (list, create, retrieve, cancel, arrived, no-show) and the
 * restaurant-side and customer-side actions the control API plays. Each rule quotes the spec
 * line it comes from; where the spec is silent, the fake's documented choice decides (README, "Where the interface spec is silent").
 * @module
 */
import { checkAvailability, formatDuration, formatLocal, readStartTime } from '../availability.js';
import type { FakeInternals, OperationContext } from '../context.js';
import type { Channel, ReservationRecord, RestaurantRecord } from '../state.js';
import { linkKey } from '../state.js';
import {
  FieldCollector,
  badRequest,
  canonicalJson,
  empty,
  errorResponse,
  fail,
  isPlainObject,
  json,
  notFound,
  requireObject,
} from '../wire.js';

/** Largest `comment` accepted ("Maximum length of email and comment: not shown"; the fake picks 10 000). */
const MAX_COMMENT_LENGTH = 10_000;
/** Largest `email` accepted (RFC 5321's path limit). */
const MAX_EMAIL_LENGTH = 254;
/** Largest serialised `metadata` accepted, in characters of JSON. */
const MAX_METADATA_JSON_LENGTH = 16_384;
/** Largest and default page size of the reservation list. */
const MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 50;

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;

/** The reservation as the partner API shows it: local time with offset, duration in the dialect's form. */
export function serializeReservation(record: ReservationRecord, restaurant: RestaurantRecord, form: 'iso' | 'hms'): Record<string, unknown> {
  const zone = restaurant.timezone;
  const at = (millis: number | null) => (millis === null ? null : formatLocal(millis, zone));
  return {
    id: record.id,
    first_name: record.first_name,
    last_name: record.last_name,
    email: record.email,
    phone: record.phone,
    start_time: formatLocal(record.start, zone),
    duration: formatDuration(record.durationMinutes, form),
    adults: record.adults,
    children: record.children,
    comment: record.comment,
    cancelled: record.cancelledAt !== null,
    cancelled_at: at(record.cancelledAt),
    confirmed: record.confirmedAt !== null,
    confirmed_at: at(record.confirmedAt),
    confirmation_mode: record.confirmation_mode,
    arrived: record.arrivedAt !== null,
    arrived_at: at(record.arrivedAt),
    no_show: record.noShowAt !== null,
    no_show_at: at(record.noShowAt),
    language: record.language,
    metadata: record.metadata,
  };
}

// Spec, Authentication 4: "A partner sees only ... restaurants accessible to its account."
// The fake's choice: a restaurant not linked answers 404, never revealing that it exists.
function linkedRestaurant(context: OperationContext): RestaurantRecord {
  const restaurant = context.fake.state.restaurants.get(context.params.restaurantId!);
  if (!restaurant || !context.fake.state.links.has(linkKey(context.partner.partnerId, restaurant.id))) {
    return fail(notFound());
  }
  return restaurant;
}

// Spec, What the service does 5: "A partner only has access to reservations it created through
// this interface. Reservations that come from other channels ... are not visible to it."
function ownReservation(context: OperationContext, restaurant: RestaurantRecord): ReservationRecord {
  const record = context.fake.state.reservations.get(context.params.reservationId!);
  if (!record || record.restaurantId !== restaurant.id || record.channel.kind !== 'partner' || record.channel.partnerId !== context.partner.partnerId) {
    return fail(notFound());
  }
  return record;
}

/** GET `.../restaurants/:rid/reservations/`: own reservations, by start time then id, paged. */
export function listReservations(context: OperationContext): Response {
  const restaurant = linkedRestaurant(context);
  const { fake, partner, url } = context;
  const own = [...fake.state.reservations.values()]
    .filter((record) => record.restaurantId === restaurant.id && record.channel.kind === 'partner' && record.channel.partnerId === partner.partnerId)
    .sort((a, b) => a.start - b.start || a.id - b.id)
    .map((record) => fake.serializeReservation(record));
  if (fake.dialect.list === 'array') return json(200, own);

  const fields = new FieldCollector();
  const page = readPositiveInteger(url.searchParams.get('page'), 'page', fields) ?? 1;
  // A larger page_size is clamped rather than refused (as Django REST framework's max_page_size).
  const pageSize = Math.min(readPositiveInteger(url.searchParams.get('page_size'), 'page_size', fields) ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  fields.throwIfAny();
  const pageCount = Math.max(1, Math.ceil(own.length / pageSize));
  if (page > pageCount) return errorResponse(404, 'Invalid page.');
  const link = (target: number) => {
    const next = new URL(url);
    next.searchParams.set('page', String(target));
    return fake.dialect.pageLinks === 'absolute' ? next.href : `${next.pathname}${next.search}`;
  };
  return json(200, {
    count: own.length,
    next: page < pageCount ? link(page + 1) : null,
    previous: page > 1 ? link(page - 1) : null,
    results: own.slice((page - 1) * pageSize, page * pageSize),
  });
}

function readPositiveInteger(raw: string | null, field: string, fields: FieldCollector): number | undefined {
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    fields.add(field, 'Expected a positive integer.');
    return undefined;
  }
  return Number(raw);
}

/** Guest and party fields as given to create or modify, checked against the spec's limits. */
interface GuestFields {
  start?: number;
  adults?: number;
  children?: number;
  first_name?: string;
  last_name?: string;
  email?: string | null;
  phone?: string | null;
  comment?: string | null;
  language?: string | null;
  metadata?: Record<string, unknown> | null;
}

function readGuestFields(body: Record<string, unknown>, restaurant: RestaurantRecord, mode: 'create' | 'modify'): GuestFields {
  const fields = new FieldCollector();
  const result: GuestFields = {};
  // Reservation table: start_time "required on create"; adults "1 to 50 inclusive", required.
  const startTime = fields.string(body, 'start_time', { required: mode === 'create' });
  if (typeof startTime === 'string') {
    const reading = readStartTime(startTime, restaurant.timezone);
    if (reading.ok) result.start = reading.millis;
    else fields.add('start_time', reading.message);
  }
  result.adults = fields.integer(body, 'adults', { min: 1, max: 50, required: mode === 'create' });
  // children: "0 to 50 inclusive. Defaults to 0 when omitted."
  result.children = fields.integer(body, 'children', { min: 0, max: 50 });
  // first_name, last_name: "Max 255 characters"; phone: "Max 128 characters".
  result.first_name = fields.string(body, 'first_name', { max: 255 }) ?? undefined;
  result.last_name = fields.string(body, 'last_name', { max: 255 }) ?? undefined;
  const phone = fields.string(body, 'phone', { max: 128, nullable: true });
  if (phone !== undefined) result.phone = phone;
  const email = fields.string(body, 'email', { max: MAX_EMAIL_LENGTH, nullable: true });
  if (typeof email === 'string' && email !== '' && !EMAIL.test(email)) fields.add('email', 'Enter a valid email address.');
  else if (email !== undefined) result.email = email;
  const comment = fields.string(body, 'comment', { max: MAX_COMMENT_LENGTH, nullable: true });
  if (comment !== undefined) result.comment = comment;
  const language = fields.string(body, 'language', { max: 35, nullable: true });
  if (typeof language === 'string' && !LANGUAGE_TAG.test(language)) fields.add('language', 'Expected a BCP 47 language tag such as en, fr or nl-BE.');
  else if (language !== undefined) result.language = language;
  if (mode === 'create' && body.metadata !== undefined) {
    // metadata: "Arbitrary key-value pairs ... Stored as given, never interpreted."
    if (body.metadata === null) result.metadata = null;
    else if (!isPlainObject(body.metadata)) fields.add('metadata', 'Expected a JSON object of key-value pairs.');
    else if (JSON.stringify(body.metadata).length > MAX_METADATA_JSON_LENGTH) fields.add('metadata', `Ensure metadata has no more than ${MAX_METADATA_JSON_LENGTH} characters of JSON.`);
    else result.metadata = structuredClone(body.metadata);
  }
  fields.throwIfAny();
  return result;
}

function noAvailability(reason: string): Response {
  // The fake's choice: no availability is 409 with code "no_availability".
  return errorResponse(409, reason, { code: 'no_availability' });
}

/** POST `.../restaurants/:rid/reservations/`. */
export function createReservation(context: OperationContext): Response {
  const restaurant = linkedRestaurant(context);
  const { fake, partner } = context;
  const body = requireObject(context.body);

  // The fake's choice: an Idempotency-Key replays the first answer for the same key and body. The
  // spec does not promise the header, so the `ignored` dialect plays a service that never reads it.
  const key = fake.dialect.idempotencyKey === 'ignored' ? null : context.request.headers.get('idempotency-key');
  const fingerprint = `${restaurant.id} ${canonicalJson(body)}`;
  if (key !== null) {
    if (key.length === 0 || key.length > 255) return badRequest({ 'Idempotency-Key': ['Expected 1 to 255 characters.'] });
    const previous = fake.state.idempotency.get(`${partner.partnerId} ${key}`);
    if (previous) {
      if (previous.fingerprint !== fingerprint) {
        return errorResponse(422, 'This Idempotency-Key was already used with a different request.', { code: 'idempotency_key_reused' });
      }
      return new Response(previous.body, { status: previous.status, headers: { 'content-type': 'application/json', 'idempotent-replayed': 'true' } });
    }
  }

  const guest = readGuestFields(body, restaurant, 'create');
  const record = bookIfAvailable(fake, restaurant, { kind: 'partner', partnerId: partner.partnerId }, guest, true);
  const answer = JSON.stringify(fake.serializeReservation(record));
  if (key !== null) fake.state.idempotency.set(`${partner.partnerId} ${key}`, { fingerprint, status: fake.dialect.createStatus, body: answer });
  return new Response(answer, { status: fake.dialect.createStatus, headers: { 'content-type': 'application/json' } });
}

/** Books for a partner or another channel when there is room; otherwise a 409 `no_availability`. */
function bookIfAvailable(fake: FakeInternals, restaurant: RestaurantRecord, channel: Channel, guest: GuestFields, enforceLeadTimeAndHorizon: boolean): ReservationRecord {
  const adults = guest.adults!;
  const children = guest.children ?? 0;
  const now = fake.clock.now();
  const verdict = checkAvailability(restaurant, { start: guest.start!, partySize: adults + children, now, enforceLeadTimeAndHorizon }, fake.state.reservations.values());
  if (!verdict.available) return fail(noAvailability(verdict.reason));
  // The server decides id, duration, timestamps, confirmation_mode and every state boolean,
  // "even if a client sends them" (spec, Reservation): only guest fields are read from the body.
  const synchronous = restaurant.confirmation_mode === 'CONFIRMATION_MODE_SYNCHRONOUS';
  const record: ReservationRecord = {
    id: fake.state.nextReservationId++,
    restaurantId: restaurant.id,
    channel,
    first_name: guest.first_name ?? '',
    last_name: guest.last_name ?? '',
    email: guest.email ?? null,
    phone: guest.phone ?? null,
    start: guest.start!,
    durationMinutes: verdict.durationMinutes,
    adults,
    children,
    comment: guest.comment ?? null,
    language: guest.language ?? null,
    metadata: guest.metadata ?? null,
    confirmation_mode: restaurant.confirmation_mode,
    createdAt: now,
    cancelledAt: null,
    // "CONFIRMATION_MODE_SYNCHRONOUS: confirmed at creation, confirmed is true in the creation response."
    confirmedAt: synchronous ? now : null,
    arrivedAt: null,
    noShowAt: null,
  };
  fake.state.reservations.set(record.id, record);
  return record;
}

/** GET `.../reservations/:id/` (the spec names no retrieve; by REST convention). */
export function retrieveReservation(context: OperationContext): Response {
  const record = ownReservation(context, linkedRestaurant(context));
  return json(200, context.fake.serializeReservation(record));
}

/** PATCH `.../reservations/:id/?action=cancel`. */
export function cancelReservation(context: OperationContext): Response {
  const record = ownReservation(context, linkedRestaurant(context));
  const { fake } = context;
  // Spec, States: cancel applies to "created or confirmed ... before arrival".
  if (record.arrivedAt !== null || record.noShowAt !== null) {
    return errorResponse(409, 'A reservation cannot be cancelled after the guest arrived or was marked as a no-show.', { code: 'invalid_transition' });
  }
  // The fake's choice: a repeated cancel is a 200 with no second event.
  if (record.cancelledAt === null) {
    record.cancelledAt = fake.clock.now();
    fake.emit('RESERVATION_CANCELLED', record);
  }
  if (fake.dialect.cancelBody === 'empty') return empty(204);
  return json(200, fake.serializeReservation(record));
}

/** PATCH `.../reservations/:id/` with `{"arrived": true}` or `{"no_show": true}`. */
export function markReservation(context: OperationContext): Response {
  const restaurant = linkedRestaurant(context);
  const body = requireObject(context.body, true);
  const fields = new FieldCollector();
  for (const key of Object.keys(body)) {
    if (key !== 'arrived' && key !== 'no_show') fields.add(key, 'Only arrived or no_show can be set by PATCH; cancel with ?action=cancel.');
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
  const record = ownReservation(context, restaurant);
  const { fake } = context;
  const state = stateOf(record);
  if (arrived) {
    // Spec, States: "confirmed | PATCH setting arrived to true | guest checked in | arrived".
    if (state !== 'confirmed') return invalidTransition(`Only a confirmed reservation can be marked as arrived (this one is ${state}).`);
    record.arrivedAt = fake.clock.now();
  } else {
    // Spec, States: "created or confirmed | PATCH setting no_show to true".
    if (state !== 'created' && state !== 'confirmed') return invalidTransition(`Only a created or confirmed reservation can be marked as a no-show (this one is ${state}).`);
    record.noShowAt = fake.clock.now();
  }
  // No event: the spec's events are confirmed, modified and cancelled only.
  return json(200, fake.serializeReservation(record));
}

const invalidTransition = (detail: string) => errorResponse(409, detail, { code: 'invalid_transition' });

/** The reservation's state by its booleans (spec, States and transitions). */
function stateOf(record: ReservationRecord): 'created' | 'confirmed' | 'cancelled' | 'arrived' | 'no-show' {
  if (record.arrivedAt !== null) return 'arrived';
  if (record.noShowAt !== null) return 'no-show';
  if (record.cancelledAt !== null) return 'cancelled';
  return record.confirmedAt !== null ? 'confirmed' : 'created';
}

// ---- Restaurant-side and customer-side actions (control API only) ----

/** Any reservation of the restaurant, whatever its channel (the control API sees everything). */
function anyReservation(fake: FakeInternals, restaurantId: number, reservationId: number): { restaurant: RestaurantRecord; record: ReservationRecord } {
  const restaurant = fake.state.restaurants.get(restaurantId);
  const record = fake.state.reservations.get(reservationId);
  if (!restaurant) return fail(notFound(`No restaurant ${restaurantId}.`));
  if (!record || record.restaurantId !== restaurantId) return fail(notFound(`No reservation ${reservationId} at restaurant ${restaurantId}.`));
  return { restaurant, record };
}

/** The restaurant confirms an asynchronous reservation: "confirmed_at set; event RESERVATION_CONFIRMED is sent". */
export function confirmAsRestaurant(fake: FakeInternals, restaurantId: number, reservationId: number): ReservationRecord {
  const { record } = anyReservation(fake, restaurantId, reservationId);
  const state = stateOf(record);
  if (state !== 'created') return fail(invalidTransition(`Only a created (unconfirmed) reservation can be confirmed (this one is ${state}).`));
  record.confirmedAt = fake.clock.now();
  fake.emit('RESERVATION_CONFIRMED', record);
  return record;
}

/** Cancellation "by the restaurant or the customer": before arrival; a repeat is a no-op without event. */
export function cancelAsRestaurantOrCustomer(fake: FakeInternals, restaurantId: number, reservationId: number): ReservationRecord {
  const { record } = anyReservation(fake, restaurantId, reservationId);
  if (record.arrivedAt !== null || record.noShowAt !== null) {
    return fail(invalidTransition('A reservation cannot be cancelled after the guest arrived or was marked as a no-show.'));
  }
  if (record.cancelledAt === null) {
    record.cancelledAt = fake.clock.now();
    fake.emit('RESERVATION_CANCELLED', record);
  }
  return record;
}

/**
 * "Modification by the restaurant or the customer ... event RESERVATION_MODIFIED is sent". Time
 * and party changes re-check availability (opening periods, slots and capacity; lead time and
 * horizon bind only new bookings).
 */
export function modifyAsRestaurantOrCustomer(fake: FakeInternals, restaurantId: number, reservationId: number, changes: unknown): ReservationRecord {
  const { restaurant, record } = anyReservation(fake, restaurantId, reservationId);
  const body = requireObject(changes);
  const allowed = new Set(['start_time', 'adults', 'children', 'first_name', 'last_name', 'email', 'phone', 'comment', 'language', 'by']);
  const unknown = Object.keys(body).filter((key) => !allowed.has(key));
  if (unknown.length > 0) return fail(badRequest(Object.fromEntries(unknown.map((key) => [key, ['This field cannot be modified.']]))));
  const guest = readGuestFields(body, restaurant, 'modify');
  const state = stateOf(record);
  if (state !== 'created' && state !== 'confirmed') return fail(invalidTransition(`A ${state} reservation cannot be modified.`));
  const start = guest.start ?? record.start;
  const adults = guest.adults ?? record.adults;
  const children = guest.children ?? record.children;
  let durationMinutes = record.durationMinutes;
  if (start !== record.start || adults + children !== record.adults + record.children) {
    const verdict = checkAvailability(
      restaurant,
      { start, partySize: adults + children, now: fake.clock.now(), excludeReservationId: record.id, enforceLeadTimeAndHorizon: false },
      fake.state.reservations.values(),
    );
    if (!verdict.available) return fail(noAvailability(verdict.reason));
    durationMinutes = verdict.durationMinutes;
  }
  Object.assign(record, {
    start,
    adults,
    children,
    durationMinutes,
    first_name: guest.first_name ?? record.first_name,
    last_name: guest.last_name ?? record.last_name,
    email: guest.email !== undefined ? guest.email : record.email,
    phone: guest.phone !== undefined ? guest.phone : record.phone,
    comment: guest.comment !== undefined ? guest.comment : record.comment,
    language: guest.language !== undefined ? guest.language : record.language,
  });
  fake.emit('RESERVATION_MODIFIED', record);
  return record;
}

/** A booking from another channel: uses capacity, invisible to every partner, sends no event. */
export function bookFromOtherChannel(fake: FakeInternals, restaurantId: number, input: unknown): ReservationRecord {
  const restaurant = fake.state.restaurants.get(restaurantId);
  if (!restaurant) return fail(notFound(`No restaurant ${restaurantId}.`));
  const body = requireObject(input);
  const channelName = body.channel === undefined ? 'restaurant' : body.channel;
  if (typeof channelName !== 'string' || channelName.length > 100) return fail(badRequest({ channel: ['Expected a channel name of at most 100 characters.'] }));
  const guest = readGuestFields(body, restaurant, 'create');
  return bookIfAvailable(fake, restaurant, { kind: 'other', name: channelName }, guest, false);
}
