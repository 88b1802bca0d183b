/**
 * The control API: one set of functions behind both the JS methods of {@link FakeService} and the
 * HTTP routes under `/_fake/` (README, "Standalone, for suites in any language"), so a suite in another language can do
 * everything a vitest suite can.
 * @module
 */
import { IANAZone } from 'luxon';
import { checkAvailabilityConfig, defaultAvailability } from './availability.js';
import { parseFault } from './faults.js';
import {
  bookFromOtherChannel,
  cancelAsRestaurantOrCustomer,
  confirmAsRestaurant,
  modifyAsRestaurantOrCustomer,
} from './resources/reservations.js';
import { serializeRestaurant } from './resources/restaurants.js';
import type { FakeService } from './service.js';
import { linkKey, randomToken, type AvailabilityConfig, type ConfirmationModeValue, type PartnerRecord, type RestaurantRecord } from './state.js';
import { FieldCollector, HttpProblem, badRequest, empty, errorResponse, fail, isHttpUrl, isPlainObject, json, notFound, parseJsonBody, readBodyText, requireObject } from './wire.js';

/** Credentials of a partner added to the fake. */
export interface FakePartner {
  partnerId: string;
  apiToken: string;
  name: string;
}

/** Input of `fake.addPartner()` and `POST /_fake/partners`. Everything is optional. */
export interface AddPartnerInput {
  name?: string;
  /** A UUID; random by default. */
  partnerId?: string;
  /** Random by default. */
  apiToken?: string;
  description?: { fr: string; nl: string; en: string; de: string } | null;
  website_url?: string | null;
}

/** Input of `fake.addRestaurant()` and `POST /_fake/restaurants`. Everything is optional. */
export interface AddRestaurantInput {
  display_name?: string;
  schema_name?: string;
  /** IANA zone; default `Europe/Brussels`. */
  timezone?: string;
  /** Default synchronous. */
  confirmation_mode?: ConfirmationModeValue;
  /** Merged over the default configuration (see `defaultAvailability`). */
  availability?: Partial<AvailabilityConfig>;
  address?: string;
  website?: string;
  latitude?: number;
  longitude?: number;
  /** Partners that get access to it at once. */
  partnerIds?: string[];
}

/** A restaurant as the control API shows it: the spec's fields plus the fake's configuration. */
export interface FakeRestaurant extends RestaurantRecord {
  partnerIds: string[];
}

/**
 * Control input keys are camelCase (as the JS API writes them); the snake_case spelling a suite in
 * Python or Ruby reaches for first is accepted too.
 */
const KEY_ALIASES: Record<string, string> = {
  partner_id: 'partnerId',
  restaurant_id: 'restaurantId',
  api_token: 'apiToken',
  partner_ids: 'partnerIds',
  latency_ms: 'latencyMs',
  network_error: 'networkError',
  commit_delay_ms: 'commitDelayMs',
  opening_periods: 'openingPeriods',
  slot_interval_minutes: 'slotIntervalMinutes',
  capacity_covers: 'capacityCovers',
  horizon_days: 'horizonDays',
  minimum_lead_time_minutes: 'minimumLeadTimeMinutes',
  max_party_size: 'maxPartySize',
};

/** Renames snake_case control keys to their camelCase names, in nested objects and lists too. */
function normaliseControlKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normaliseControlKeys);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [KEY_ALIASES[key] ?? key, normaliseControlKeys(inner)]));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function addPartner(fake: FakeService, input: unknown = {}): FakePartner {
  const body = requireObject(input, true);
  const fields = new FieldCollector();
  const state = fake.internals.state;
  const name = fields.string(body, 'name', { max: 255 });
  const partnerId = fields.string(body, 'partnerId', { max: 36 });
  if (typeof partnerId === 'string' && !UUID.test(partnerId)) fields.add('partnerId', 'Expected a UUID.');
  else if (typeof partnerId === 'string' && state.partners.has(partnerId.toLowerCase())) fields.add('partnerId', 'A partner with this id exists.');
  const apiToken = fields.string(body, 'apiToken', { max: 255 });
  if (apiToken === '') fields.add('apiToken', 'Must not be empty.');
  const websiteUrl = fields.string(body, 'website_url', { max: 500, nullable: true });
  if (typeof websiteUrl === 'string' && !isHttpUrl(websiteUrl)) fields.add('website_url', 'Enter a valid http or https URL.');
  let description: PartnerRecord['description'] = null;
  if (body.description !== undefined && body.description !== null) {
    const given = body.description;
    if (!isPlainObject(given) || Object.entries(given).some(([key, value]) => !['fr', 'nl', 'en', 'de'].includes(key) || typeof value !== 'string')) {
      fields.add('description', 'Expected an object with string values for fr, nl, en, de.');
    } else description = { fr: '', nl: '', en: '', de: '', ...(given as Record<string, string>) };
  }
  fields.throwIfAny();
  const partner: PartnerRecord = {
    partnerId: (partnerId ?? crypto.randomUUID()).toLowerCase(),
    apiToken: apiToken ?? randomToken('rpt_'),
    name: name ?? `Partner ${state.partners.size + 1}`,
    description,
    website_url: websiteUrl ?? null,
  };
  state.partners.set(partner.partnerId, partner);
  return { partnerId: partner.partnerId, apiToken: partner.apiToken, name: partner.name };
}

export function addRestaurant(fake: FakeService, input: unknown = {}): FakeRestaurant {
  const body = requireObject(input, true);
  const fields = new FieldCollector();
  const state = fake.internals.state;
  const id = state.nextRestaurantId;
  const displayName = fields.string(body, 'display_name', { max: 255 });
  // schema_name: "Unique across the platform. Max 63 characters."
  const schemaName = fields.string(body, 'schema_name', { max: 63 });
  if (typeof schemaName === 'string' && [...state.restaurants.values()].some((other) => other.schema_name === schemaName)) {
    fields.add('schema_name', 'Must be unique across the platform.');
  }
  const timezone = fields.string(body, 'timezone', { max: 64 });
  if (typeof timezone === 'string' && !IANAZone.isValidZone(timezone)) fields.add('timezone', 'Expected an IANA timezone such as Europe/Brussels.');
  let mode: ConfirmationModeValue = 'CONFIRMATION_MODE_SYNCHRONOUS';
  if (body.confirmation_mode !== undefined) {
    if (body.confirmation_mode !== 'CONFIRMATION_MODE_SYNCHRONOUS' && body.confirmation_mode !== 'CONFIRMATION_MODE_ASYNCHRONOUS') {
      fields.add('confirmation_mode', 'Expected CONFIRMATION_MODE_SYNCHRONOUS or CONFIRMATION_MODE_ASYNCHRONOUS.');
    } else mode = body.confirmation_mode;
  }
  const address = fields.string(body, 'address', { max: 500 });
  const website = fields.string(body, 'website', { max: 500 });
  const coordinate = (field: string, limit: number) => {
    const value = body[field];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > limit) {
      fields.add(field, `Expected a number between -${limit} and ${limit}.`);
      return undefined;
    }
    return value;
  };
  const latitude = coordinate('latitude', 90);
  const longitude = coordinate('longitude', 180);
  let availability = defaultAvailability();
  if (body.availability !== undefined) {
    if (!isPlainObject(body.availability)) fields.add('availability', 'Expected an object.');
    else {
      const unknown = Object.keys(body.availability).filter((key) => !(key in availability));
      for (const key of unknown) fields.add(`availability.${key}`, `Unknown setting; expected ${Object.keys(availability).join(', ')}.`);
      availability = { ...availability, ...(structuredClone(body.availability) as Partial<AvailabilityConfig>) };
      for (const [field, messages] of Object.entries(checkAvailabilityConfig(availability))) for (const message of messages) fields.add(field, message);
    }
  }
  const partnerIds: string[] = [];
  if (body.partnerIds !== undefined) {
    if (!Array.isArray(body.partnerIds) || body.partnerIds.some((partnerId) => typeof partnerId !== 'string' || !state.partners.has(partnerId.toLowerCase()))) {
      fields.add('partnerIds', 'Expected a list of ids of partners added to the fake.');
    } else partnerIds.push(...(body.partnerIds as string[]).map((partnerId) => partnerId.toLowerCase()));
  }
  fields.throwIfAny();
  const restaurant: RestaurantRecord = {
    id,
    display_name: displayName ?? `Restaurant ${id}`,
    schema_name: schemaName ?? `restaurant_${id}`,
    address: address ?? '',
    website: website ?? '',
    latitude: latitude ?? 50.8467,
    longitude: longitude ?? 4.3525,
    timezone: timezone ?? 'Europe/Brussels',
    confirmation_mode: mode,
    availability,
  };
  state.nextRestaurantId += 1;
  state.restaurants.set(id, restaurant);
  for (const partnerId of partnerIds) state.links.add(linkKey(partnerId, id));
  return describeRestaurant(fake, restaurant);
}

export function describeRestaurant(fake: FakeService, restaurant: RestaurantRecord): FakeRestaurant {
  const partnerIds = [...fake.internals.state.partners.keys()].filter((partnerId) => fake.internals.state.links.has(linkKey(partnerId, restaurant.id)));
  return {
    ...(serializeRestaurant(restaurant) as Omit<FakeRestaurant, 'confirmation_mode' | 'availability' | 'partnerIds'>),
    confirmation_mode: restaurant.confirmation_mode,
    availability: structuredClone(restaurant.availability),
    partnerIds,
  };
}

export function link(fake: FakeService, input: unknown): void {
  const body = requireObject(input);
  const fields = new FieldCollector();
  const partnerId = fields.string(body, 'partnerId', { required: true, max: 36 });
  const restaurantId = fields.integer(body, 'restaurantId', { min: 1, max: Number.MAX_SAFE_INTEGER, required: true });
  fields.throwIfAny();
  const state = fake.internals.state;
  if (!state.partners.has(partnerId!.toLowerCase())) fail(notFound(`No partner ${partnerId}.`));
  if (!state.restaurants.has(restaurantId!)) fail(notFound(`No restaurant ${restaurantId}.`));
  state.links.add(linkKey(partnerId!.toLowerCase(), restaurantId!));
}

function actor(body: Record<string, unknown>): 'restaurant' | 'customer' {
  if (body.by === undefined || body.by === 'restaurant') return 'restaurant';
  if (body.by === 'customer') return 'customer';
  return fail(badRequest({ by: ['Expected "restaurant" or "customer".'] }));
}

const positiveId = (raw: string | undefined): number => (raw && /^\d{1,15}$/.test(raw) && Number(raw) > 0 ? Number(raw) : fail(notFound()));

/**
 * Serves `/_fake/...`. `route` is the path after `/_fake/`. JSON in, JSON out, no auth.
 */
export async function handleControl(fake: FakeService, request: Request, route: string): Promise<Response> {
  const method = request.method.toUpperCase();
  const body = method === 'GET' || method === 'HEAD' ? undefined : normaliseControlKeys(parseJsonBody(await readBodyText(request)));
  const segments = route.split('/').filter((segment) => segment !== '');
  const [first, second, third, fourth, fifth] = segments;
  const allow = (allowed: string[]) => (allowed.includes(method) ? undefined : errorResponse(405, `Method "${method}" not allowed.`, {}, { allow: allowed.join(', ') }));
  const internals = fake.internals;

  switch (first) {
    case undefined:
      return json(200, { routes: CONTROL_ROUTES });
    case 'partners':
      if (segments.length !== 1) break;
      return allow(['POST']) ?? json(201, addPartner(fake, body ?? {}));
    case 'restaurants': {
      if (segments.length === 1) {
        if (method === 'GET') return json(200, [...internals.state.restaurants.values()].map((restaurant) => describeRestaurant(fake, restaurant)));
        return allow(['GET', 'POST']) ?? json(201, addRestaurant(fake, body ?? {}));
      }
      const restaurantId = positiveId(second);
      if (third !== 'reservations') break;
      if (segments.length === 3) {
        if (method === 'GET') {
          if (!internals.state.restaurants.has(restaurantId)) return notFound(`No restaurant ${restaurantId}.`);
          return json(200, fake.allReservations(restaurantId));
        }
        return allow(['GET', 'POST']) ?? json(201, fake.internals.serializeReservation(bookFromOtherChannel(internals, restaurantId, body)));
      }
      const reservationId = positiveId(fourth);
      if (segments.length !== 5) break;
      const refused = allow(['POST']);
      if (refused) return refused;
      const input = requireObject(body, true);
      let record;
      if (fifth === 'confirm') record = confirmAsRestaurant(internals, restaurantId, reservationId);
      else if (fifth === 'modify') {
        actor(input);
        record = modifyAsRestaurantOrCustomer(internals, restaurantId, reservationId, input);
      } else if (fifth === 'cancel') {
        actor(input);
        record = cancelAsRestaurantOrCustomer(internals, restaurantId, reservationId);
      } else break;
      await fake.flush();
      return json(200, internals.serializeReservation(record));
    }
    case 'links':
      if (segments.length !== 1) break;
      return allow(['POST']) ?? (link(fake, body), json(201, { ...requireObject(body) }));
    case 'clock': {
      if (segments.length === 1) return allow(['GET']) ?? json(200, clockView(fake));
      const refused = allow(['POST']);
      if (refused) return refused;
      const input = requireObject(body);
      try {
        if (second === 'advance') {
          if (typeof input.duration !== 'string' && typeof input.milliseconds !== 'number') fail(badRequest({ duration: ['Expected an ISO 8601 duration such as PT1H (or milliseconds).'] }));
          await fake.clock.advance((input.duration as string | undefined) ?? (input.milliseconds as number));
        } else if (second === 'set') {
          if (typeof input.now !== 'string') fail(badRequest({ now: ['Expected an ISO 8601 date-time.'] }));
          await fake.clock.set(input.now as string);
        } else break;
      } catch (error) {
        if (error instanceof RangeError) return badRequest({ [second === 'set' ? 'now' : 'duration']: [error.message] });
        throw error;
      }
      return json(200, clockView(fake));
    }
    case 'deliveries':
      if (segments.length === 1) return allow(['GET']) ?? json(200, fake.deliveries);
      if (second === 'flush' && segments.length === 2) return allow(['POST']) ?? (await fake.flush(), json(200, fake.deliveries));
      break;
    case 'faults':
      if (segments.length !== 1) break;
      if (method === 'GET') return json(200, fake.faults);
      if (method === 'DELETE') return (fake.clearFaults(), empty(204));
      return allow(['GET', 'POST', 'DELETE']) ?? (fake.internalFaults.add(parseFault(body)), json(201, fake.faults));
    case 'reset':
      if (segments.length !== 1) break;
      return allow(['POST']) ?? (fake.reset(), json(200, fake.describeSeed()));
    case 'snapshots': {
      const refused = allow(['POST']);
      if (refused) return refused;
      if (segments.length === 1) {
        const input = requireObject(body);
        if (typeof input.name !== 'string' || input.name === '' || input.name.length > 100) return badRequest({ name: ['Expected a name of 1 to 100 characters.'] });
        fake.namedSnapshots.set(input.name, fake.snapshot());
        return json(201, { name: input.name });
      }
      if (segments.length === 3 && third === 'restore') {
        const snapshot = fake.namedSnapshots.get(decodeURIComponent(second!));
        if (!snapshot) return notFound(`No snapshot named ${second}.`);
        fake.restore(snapshot);
        return json(200, { name: decodeURIComponent(second!) });
      }
      break;
    }
    case 'rate-limit': {
      if (segments.length !== 1) break;
      if (method === 'GET') return json(200, { requestsPerSecond: fake.rateLimit });
      const refused = allow(['GET', 'POST']);
      if (refused) return refused;
      const input = requireObject(body);
      const value = input.requestsPerSecond;
      if (value !== false && (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value))) {
        return badRequest({ requestsPerSecond: ['Expected a positive number, or false for no limit.'] });
      }
      fake.setRateLimit(value as number | false);
      return json(200, { requestsPerSecond: fake.rateLimit });
    }
  }
  return notFound(`No control route ${method} /_fake/${route}. GET /_fake/ lists them.`);
}

function clockView(fake: FakeService) {
  return { now: new Date(fake.clock.now()).toISOString(), frozen: fake.clock.frozen };
}

/** Every control route, as `GET /_fake/` lists them. */
export const CONTROL_ROUTES = [
  'POST /_fake/partners {name?, partnerId?, apiToken?}',
  'POST /_fake/restaurants {display_name?, timezone?, confirmation_mode?, availability?, partnerIds?}',
  'GET /_fake/restaurants',
  'POST /_fake/links {partnerId, restaurantId}',
  'GET /_fake/restaurants/:rid/reservations (every channel)',
  'POST /_fake/restaurants/:rid/reservations {start_time, adults, ...} (a booking from another channel)',
  'POST /_fake/restaurants/:rid/reservations/:id/confirm',
  'POST /_fake/restaurants/:rid/reservations/:id/modify {by?, start_time?, adults?, children?, ...}',
  'POST /_fake/restaurants/:rid/reservations/:id/cancel {by?: "restaurant" | "customer"}',
  'GET /_fake/clock',
  'POST /_fake/clock/advance {duration: "PT1H"}',
  'POST /_fake/clock/set {now}',
  'GET /_fake/deliveries',
  'POST /_fake/deliveries/flush',
  'GET /_fake/faults',
  'POST /_fake/faults {operation?, status?, latencyMs?, networkError?, times?, phase?, commitDelayMs?, headers?, body?}',
  'DELETE /_fake/faults',
  'GET /_fake/rate-limit',
  'POST /_fake/rate-limit {requestsPerSecond: number | false}',
  'POST /_fake/snapshots {name}',
  'POST /_fake/snapshots/:name/restore',
  'POST /_fake/reset',
] as const;

/** Turns a refusal inside a control function into the error thrown to JS callers. */
export class FakeControlError extends Error {
  override name = 'FakeControlError';
  constructor(
    /** The HTTP status the control route would answer. */
    readonly status: number,
    /** The body it would answer (`{"detail": ..., field: [messages]}`). */
    readonly body: unknown,
  ) {
    super(`${status}: ${describeBody(body)}`);
  }
}
/** True when a control call of the fake was refused. */
export const isFakeControlError = (error: unknown): error is FakeControlError => error instanceof FakeControlError;

function describeBody(body: unknown): string {
  if (!isPlainObject(body)) return String(body);
  const { detail, ...fields } = body;
  const extra = Object.entries(fields)
    .filter(([key]) => key !== 'code')
    .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(' ') : String(value)}`);
  return [detail, ...extra].filter(Boolean).join('; ');
}

/** Runs a control function for a JS caller, turning an HTTP refusal into {@link FakeControlError}. */
export function asControlCall<Result>(run: () => Result): Result {
  try {
    return run();
  } catch (error) {
    if (error instanceof HttpProblem) {
      throw new FakeControlError(error.response.status, (error.response as { payload?: unknown }).payload);
    }
    throw error;
  }
}
