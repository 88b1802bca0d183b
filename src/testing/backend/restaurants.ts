/**
 * Restaurants: the spec's Restaurant object, and the fake's own configuration of each (timezone,
 * confirmation mode, availability) that the control API sets.
 * @module
 */
import { IANAZone } from 'luxon';
import type { Restaurant } from '../../resources/restaurants.schemas.js';
import { checkAvailabilityConfig, defaultAvailability } from './availability.js';
import {
  linkKey,
  type AvailabilityConfig,
  type ConfirmationModeValue,
  type PartnerRecord,
  type RestaurantRecord,
} from './state.js';
import { FieldCollector, isPlainObject, requireObject } from './validation.js';
import type { World } from './world.js';
import { MAX_RESTAURANTS, limitReached } from './world-limits.js';

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

/** Longest text of each restaurant field the control API takes (`schema_name` from the spec; the rest the fake's). */
export const RESTAURANT_TEXT_LIMITS = {
  display_name: 255,
  schema_name: 63,
  timezone: 64,
  address: 500,
  website: 500,
} as const;

/** The Restaurant object of the spec (the fake's availability configuration stays private). */
export function restaurantView(restaurant: RestaurantRecord): Restaurant {
  return {
    id: restaurant.id,
    display_name: restaurant.display_name,
    schema_name: restaurant.schema_name,
    address: restaurant.address,
    website: restaurant.website,
    latitude: restaurant.latitude,
    longitude: restaurant.longitude,
    timezone: restaurant.timezone,
  };
}

/** Restaurants linked to the partner, by id: "all restaurants accessible to the partner". */
export function linkedRestaurants(world: World, partner: PartnerRecord): RestaurantRecord[] {
  return [...world.state.restaurants.values()]
    .filter((restaurant) => world.state.links.has(linkKey(partner.partnerId, restaurant.id)))
    .sort((a, b) => a.id - b.id);
}

export function describeRestaurant(world: World, restaurant: RestaurantRecord): FakeRestaurant {
  const partnerIds = [...world.state.partners.keys()].filter((partnerId) =>
    world.state.links.has(linkKey(partnerId, restaurant.id)),
  );
  return { ...restaurant, availability: structuredClone(restaurant.availability), partnerIds };
}

export function addRestaurant(world: World, input: unknown = {}): FakeRestaurant {
  const body = requireObject(input, true);
  const fields = new FieldCollector();
  const state = world.state;
  if (state.restaurants.size >= MAX_RESTAURANTS)
    throw limitReached(
      'restaurants in one fake',
      MAX_RESTAURANTS,
      'Reset it (POST /_fake/reset) or use a new one.',
    );
  const id = state.nextRestaurantId;
  const displayName = fields.string(body, 'display_name', { max: RESTAURANT_TEXT_LIMITS.display_name });
  // schema_name: "Unique across the platform. Max 63 characters."
  const schemaName = fields.string(body, 'schema_name', { max: RESTAURANT_TEXT_LIMITS.schema_name });
  if (
    typeof schemaName === 'string' &&
    [...state.restaurants.values()].some((other) => other.schema_name === schemaName)
  ) {
    fields.add('schema_name', 'Must be unique across the platform.');
  }
  const timezone = fields.string(body, 'timezone', { max: RESTAURANT_TEXT_LIMITS.timezone });
  if (typeof timezone === 'string' && !IANAZone.isValidZone(timezone))
    fields.add('timezone', 'Expected an IANA timezone such as Europe/Brussels.');
  let mode: ConfirmationModeValue = 'CONFIRMATION_MODE_SYNCHRONOUS';
  if (body.confirmation_mode !== undefined) {
    if (
      body.confirmation_mode !== 'CONFIRMATION_MODE_SYNCHRONOUS' &&
      body.confirmation_mode !== 'CONFIRMATION_MODE_ASYNCHRONOUS'
    ) {
      fields.add(
        'confirmation_mode',
        'Expected CONFIRMATION_MODE_SYNCHRONOUS or CONFIRMATION_MODE_ASYNCHRONOUS.',
      );
    } else mode = body.confirmation_mode;
  }
  const address = fields.string(body, 'address', { max: RESTAURANT_TEXT_LIMITS.address });
  const website = fields.string(body, 'website', { max: RESTAURANT_TEXT_LIMITS.website });
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
      for (const key of unknown)
        fields.add(
          `availability.${key}`,
          `Unknown setting; expected ${Object.keys(availability).join(', ')}.`,
        );
      availability = {
        ...availability,
        ...(structuredClone(body.availability) as Partial<AvailabilityConfig>),
      };
      for (const [field, messages] of Object.entries(checkAvailabilityConfig(availability)))
        for (const message of messages) fields.add(field, message);
    }
  }
  const partnerIds: string[] = [];
  if (body.partnerIds !== undefined) {
    if (
      !Array.isArray(body.partnerIds) ||
      body.partnerIds.some(
        (partnerId) => typeof partnerId !== 'string' || !state.partners.has(partnerId.toLowerCase()),
      )
    ) {
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
  return describeRestaurant(world, restaurant);
}
