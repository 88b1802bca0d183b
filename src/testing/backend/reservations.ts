/**
 * Reservation rules: booking (partner or another channel), scoping, and every move through the
 * transition table. Each rule quotes the spec line it comes from; where the spec is silent, the
 * fake's documented choice decides. The wire shape of a reservation is `reservation-view.ts`.
 * @module
 */
import { MODIFIABLE_FIELDS } from '../../resources/reservation-fields.js';
import { checkAvailability } from './availability.js';
import { FakeError, invalid, notFound } from './fake-error.js';
import { applyGuestTexts, newGuestTexts, readGuestTexts, type GuestTexts } from './guest-texts.js';
import {
  linkKey,
  type Channel,
  type PartnerRecord,
  type ReservationRecord,
  type RestaurantRecord,
} from './state.js';
import { applyTransition, transitionFor, type ReservationAction } from './transitions.js';
import { FieldCollector, characterCount, isPlainObject, requireObject } from './validation.js';
import type { World } from './world.js';

/** Spec: adults 1 to 50; children 0 to 50 (the text fields' limits: see guest-texts.ts). */
export const ADULTS = { min: 1, max: 50 } as const;
export const CHILDREN = { min: 0, max: 50 } as const;
/** Longest `Idempotency-Key` accepted. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** Longest other-channel name (`channel` of a control booking). */
export const MAX_CHANNEL_NAME_LENGTH = 100;
/** Largest serialised `metadata` accepted, in characters of JSON. */
export const MAX_METADATA_JSON_LENGTH = 16_384;
/** Largest and default page size of the reservation list. */
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 50;

// Spec, Authentication 4: "A partner sees only ... restaurants accessible to its account."
// A restaurant not linked answers 404, "never revealing that it exists".
export function linkedRestaurant(
  world: World,
  partner: PartnerRecord,
  restaurantId: number,
): RestaurantRecord {
  const restaurant = world.state.restaurants.get(restaurantId);
  if (!restaurant || !world.state.links.has(linkKey(partner.partnerId, restaurant.id))) throw notFound();
  return restaurant;
}

// Spec, What the service does 5: "A partner only has access to reservations it created through
// this interface. Reservations that come from other channels ... are not visible to it."
export function ownReservation(
  world: World,
  partner: PartnerRecord,
  restaurantId: number,
  reservationId: number,
): ReservationRecord {
  const restaurant = linkedRestaurant(world, partner, restaurantId);
  const record = world.state.reservations.get(reservationId);
  if (
    !record ||
    record.restaurantId !== restaurant.id ||
    record.channel.kind !== 'partner' ||
    record.channel.partnerId !== partner.partnerId
  )
    throw notFound();
  return record;
}

/** The partner's own reservations of a linked restaurant, by start time then id. */
export function listOwnReservations(
  world: World,
  partner: PartnerRecord,
  restaurantId: number,
): ReservationRecord[] {
  const restaurant = linkedRestaurant(world, partner, restaurantId);
  return [...world.state.reservations.values()]
    .filter(
      (record) =>
        record.restaurantId === restaurant.id &&
        record.channel.kind === 'partner' &&
        record.channel.partnerId === partner.partnerId,
    )
    .sort((a, b) => a.start - b.start || a.id - b.id);
}

/** Guest and party fields as given to create or modify, checked against the spec's limits. */
interface GuestFields {
  start?: number;
  adults?: number;
  children?: number;
  texts: Partial<GuestTexts>;
  metadata?: Record<string, unknown> | null;
}

function readGuestFields(
  world: World,
  body: Record<string, unknown>,
  restaurant: RestaurantRecord,
  mode: 'create' | 'modify',
): GuestFields {
  const fields = new FieldCollector();
  const result: GuestFields = { texts: {} };
  // Reservation table: start_time "required on create"; adults "1 to 50 inclusive", required.
  const startTime = fields.string(body, 'start_time', { required: mode === 'create' });
  if (typeof startTime === 'string') {
    const reading = world.times.readStartTime(startTime, restaurant.timezone);
    if (reading.ok) result.start = reading.millis;
    else fields.add('start_time', reading.message);
  }
  result.adults = fields.integer(body, 'adults', { ...ADULTS, required: mode === 'create' });
  // children: "0 to 50 inclusive. Defaults to 0 when omitted."
  result.children = fields.integer(body, 'children', CHILDREN);
  // first_name, last_name: "Max 255 characters"; phone: "Max 128 characters"; and the fake's own.
  result.texts = readGuestTexts(body, fields);
  if (mode === 'create' && body.metadata !== undefined) {
    // metadata: "Arbitrary key-value pairs ... Stored as given, never interpreted."
    if (body.metadata === null) result.metadata = null;
    else if (!isPlainObject(body.metadata))
      fields.add('metadata', 'Expected a JSON object of key-value pairs.');
    else if (characterCount(JSON.stringify(body.metadata)) > MAX_METADATA_JSON_LENGTH)
      fields.add(
        'metadata',
        `Ensure metadata has no more than ${MAX_METADATA_JSON_LENGTH} characters of JSON.`,
      );
    else result.metadata = structuredClone(body.metadata);
  }
  fields.throwIfAny();
  return result;
}

// "No availability: 409 with code: "no_availability"."
const noAvailability = (reason: string) => new FakeError(409, reason, { code: 'no_availability' });

/** Books for a partner or another channel when there is room; otherwise a 409 `no_availability`. */
function bookIfAvailable(
  world: World,
  restaurant: RestaurantRecord,
  channel: Channel,
  guest: GuestFields,
  enforceLeadTimeAndHorizon: boolean,
): ReservationRecord {
  const adults = guest.adults!;
  const children = guest.children ?? 0;
  const now = world.clock.now();
  const verdict = checkAvailability(
    restaurant,
    { start: guest.start!, partySize: adults + children, now, enforceLeadTimeAndHorizon },
    (from, to) => world.holdingTables(restaurant.id, from, to),
    world.times,
  );
  if (!verdict.available) throw noAvailability(verdict.reason);
  world.checkRoomForReservation();
  // The server decides id, duration, timestamps, confirmation_mode and every state boolean,
  // "even if a client sends them" (spec, Reservation): only guest fields are read from the body.
  const synchronous = restaurant.confirmation_mode === 'CONFIRMATION_MODE_SYNCHRONOUS';
  const record: ReservationRecord = {
    id: world.state.nextReservationId++,
    restaurantId: restaurant.id,
    channel,
    ...newGuestTexts(guest.texts),
    start: guest.start!,
    durationMinutes: verdict.durationMinutes,
    adults,
    children,
    metadata: guest.metadata ?? null,
    confirmation_mode: restaurant.confirmation_mode,
    createdAt: now,
    cancelledAt: null,
    cancelledBy: null,
    // "CONFIRMATION_MODE_SYNCHRONOUS: confirmed at creation, confirmed is true in the creation response."
    confirmedAt: synchronous ? now : null,
    arrivedAt: null,
    noShowAt: null,
  };
  world.state.reservations.set(record.id, record);
  world.changed(record);
  return record;
}

/** A partner's create: availability from the restaurant's configuration, lead time and horizon enforced. */
export function createReservation(
  world: World,
  partner: PartnerRecord,
  restaurantId: number,
  input: unknown,
): ReservationRecord {
  const restaurant = linkedRestaurant(world, partner, restaurantId);
  const guest = readGuestFields(world, requireObject(input), restaurant, 'create');
  return bookIfAvailable(world, restaurant, { kind: 'partner', partnerId: partner.partnerId }, guest, true);
}

/** Applies one row of the transition table and sends its event. */
function move(world: World, record: ReservationRecord, action: ReservationAction): ReservationRecord {
  const event = applyTransition(record, action, world.clock.now());
  world.changed(record);
  if (event) world.emit(event, record);
  return record;
}

/** PATCH `?action=cancel` by the partner (a repeat is a 200 without a second event). */
export function cancelOwnReservation(
  world: World,
  partner: PartnerRecord,
  restaurantId: number,
  reservationId: number,
): ReservationRecord {
  return cancelledBy(
    move(world, ownReservation(world, partner, restaurantId, reservationId), 'cancel'),
    'partner',
  );
}

/** Notes who cancelled, the first time only (a repeated cancel changes nothing). */
function cancelledBy(
  record: ReservationRecord,
  by: NonNullable<ReservationRecord['cancelledBy']>,
): ReservationRecord {
  if (record.cancelledAt !== null && record.cancelledBy === null) record.cancelledBy = by;
  return record;
}

/** PATCH `{"arrived": true}` or `{"no_show": true}` by the partner. */
export function markOwnReservation(
  world: World,
  partner: PartnerRecord,
  restaurantId: number,
  reservationId: number,
  mark: 'markArrived' | 'markNoShow',
): ReservationRecord {
  return move(world, ownReservation(world, partner, restaurantId, reservationId), mark);
}

// ---- Restaurant-side and customer-side actions (control API only) ----

/** Any reservation of the restaurant, whatever its channel (the control API sees everything). */
export function anyReservation(
  world: World,
  restaurantId: number,
  reservationId: number,
): { restaurant: RestaurantRecord; record: ReservationRecord } {
  const restaurant = world.state.restaurants.get(restaurantId);
  const record = world.state.reservations.get(reservationId);
  if (!restaurant) throw notFound(`No restaurant ${restaurantId}.`);
  if (!record || record.restaurantId !== restaurantId)
    throw notFound(`No reservation ${reservationId} at restaurant ${restaurantId}.`);
  return { restaurant, record };
}

/** The restaurant confirms an asynchronous reservation. */
export function confirmAsRestaurant(
  world: World,
  restaurantId: number,
  reservationId: number,
): ReservationRecord {
  return move(world, anyReservation(world, restaurantId, reservationId).record, 'confirm');
}

/** The guest arrives, or never comes, as the restaurant records it (no event: the spec names none). */
export function markAsRestaurant(
  world: World,
  restaurantId: number,
  reservationId: number,
  mark: 'markArrived' | 'markNoShow',
): ReservationRecord {
  return move(world, anyReservation(world, restaurantId, reservationId).record, mark);
}

/** Cancellation "by the restaurant or the customer". */
export function cancelAsRestaurantOrCustomer(
  world: World,
  restaurantId: number,
  reservationId: number,
  by: 'restaurant' | 'customer' = 'restaurant',
): ReservationRecord {
  return cancelledBy(move(world, anyReservation(world, restaurantId, reservationId).record, 'cancel'), by);
}

/** Fields a restaurant or customer may change, and who changed them. */
const MODIFIABLE: ReadonlySet<string> = new Set([...MODIFIABLE_FIELDS, 'by']);

/**
 * "Modification by the restaurant or the customer ... event RESERVATION_MODIFIED is sent". Time
 * and party changes re-check availability (opening periods, slots and capacity; lead time and
 * horizon bind only new bookings).
 */
export function modifyAsRestaurantOrCustomer(
  world: World,
  restaurantId: number,
  reservationId: number,
  changes: unknown,
): ReservationRecord {
  const { restaurant, record } = anyReservation(world, restaurantId, reservationId);
  const body = requireObject(changes);
  const unknown = Object.keys(body).filter((key) => !MODIFIABLE.has(key));
  if (unknown.length > 0)
    throw invalid(Object.fromEntries(unknown.map((key) => [key, ['This field cannot be modified.']])));
  const guest = readGuestFields(world, body, restaurant, 'modify');
  transitionFor(record, 'modify');
  // A modification can grow a booking (a longer comment): refused once the world is full.
  world.checkRoom();
  const start = guest.start ?? record.start;
  const adults = guest.adults ?? record.adults;
  const children = guest.children ?? record.children;
  let durationMinutes = record.durationMinutes;
  if (start !== record.start || adults + children !== record.adults + record.children) {
    const verdict = checkAvailability(
      restaurant,
      {
        start,
        partySize: adults + children,
        now: world.clock.now(),
        excludeReservationId: record.id,
        enforceLeadTimeAndHorizon: false,
      },
      (from, to) => world.holdingTables(restaurant.id, from, to),
      world.times,
    );
    if (!verdict.available) throw noAvailability(verdict.reason);
    durationMinutes = verdict.durationMinutes;
  }
  Object.assign(record, {
    start,
    adults,
    children,
    durationMinutes,
  });
  applyGuestTexts(record, guest.texts);
  world.changed(record);
  return move(world, record, 'modify');
}

/** A booking from another channel: uses capacity, invisible to every partner, sends no event. */
export function bookFromOtherChannel(world: World, restaurantId: number, input: unknown): ReservationRecord {
  const restaurant = world.state.restaurants.get(restaurantId);
  if (!restaurant) throw notFound(`No restaurant ${restaurantId}.`);
  const body = requireObject(input);
  const channelName = body.channel === undefined ? 'restaurant' : body.channel;
  if (typeof channelName !== 'string' || characterCount(channelName) > MAX_CHANNEL_NAME_LENGTH)
    throw invalid({ channel: [`Expected a channel name of at most ${MAX_CHANNEL_NAME_LENGTH} characters.`] });
  const { channel: _channel, ...rest } = body;
  const guest = readGuestFields(world, rest, restaurant, 'create');
  return bookIfAvailable(world, restaurant, { kind: 'other', name: channelName }, guest, false);
}
