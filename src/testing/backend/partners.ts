/**
 * Partners, their profile ("Information shown to restaurants in their list of partners") and
 * their links to restaurants.
 * @module
 */
import { notFound } from './fake-error.js';
import { linkKey, randomToken, type PartnerRecord } from './state.js';
import { FieldCollector, characterCount, isHttpUrl, isPlainObject, requireObject } from './validation.js';
import type { World } from './world.js';
import { MAX_PARTNERS, limitReached } from './world-limits.js';

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
  /** null (the default) until set; an object with the four languages once set. */
  description?: { fr: string; nl: string; en: string; de: string } | null;
  website_url?: string | null;
}

/** The profile as the partner API shows it. */
export interface ProfileView {
  uuid: string;
  name: string;
  description: { fr: string; nl: string; en: string; de: string } | null;
  website_url: string | null;
}

/** Profile `name` limit (the spec gives none; the fake picks 255, as the reservation names). */
export const MAX_PROFILE_NAME_LENGTH = 255;
/** `website_url` limit (the spec gives none; the fake picks the webhook url's 500). */
export const MAX_WEBSITE_URL_LENGTH = 500;
/** Each `description.<language>` limit (the spec gives none; the fake picks 5000 characters). */
export const MAX_DESCRIPTION_LENGTH = 5000;
export const PROFILE_LANGUAGES = ['fr', 'nl', 'en', 'de'] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function addPartner(world: World, input: unknown = {}): FakePartner {
  const body = requireObject(input, true);
  const fields = new FieldCollector();
  const state = world.state;
  const name = fields.string(body, 'name', { max: MAX_PROFILE_NAME_LENGTH });
  const partnerId = fields.string(body, 'partnerId', { max: 36 });
  if (typeof partnerId === 'string' && !UUID.test(partnerId)) fields.add('partnerId', 'Expected a UUID.');
  else if (typeof partnerId === 'string' && state.partners.has(partnerId.toLowerCase()))
    fields.add('partnerId', 'A partner with this id exists.');
  const apiToken = fields.string(body, 'apiToken', { max: 255 });
  if (apiToken === '') fields.add('apiToken', 'Must not be empty.');
  const websiteUrl = fields.string(body, 'website_url', { max: MAX_WEBSITE_URL_LENGTH, nullable: true });
  if (typeof websiteUrl === 'string' && !isHttpUrl(websiteUrl))
    fields.add('website_url', 'Enter a valid http or https URL.');
  let description: PartnerRecord['description'] = null;
  if (body.description !== undefined && body.description !== null) {
    const given = body.description;
    if (
      !isPlainObject(given) ||
      Object.entries(given).some(
        ([key, value]) =>
          !(PROFILE_LANGUAGES as readonly string[]).includes(key) ||
          typeof value !== 'string' ||
          characterCount(value) > MAX_DESCRIPTION_LENGTH,
      )
    ) {
      fields.add(
        'description',
        `Expected an object with string values of at most ${MAX_DESCRIPTION_LENGTH} characters for fr, nl, en, de.`,
      );
    } else description = { fr: '', nl: '', en: '', de: '', ...(given as Record<string, string>) };
  }
  fields.throwIfAny();
  if (state.partners.size >= MAX_PARTNERS)
    throw limitReached(
      'partners in one fake',
      MAX_PARTNERS,
      'Reset it (POST /_fake/reset) or use a new one.',
    );
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

/** Makes a restaurant accessible to a partner. */
export function link(world: World, input: unknown): { partnerId: string; restaurantId: number } {
  const body = requireObject(input);
  const fields = new FieldCollector();
  const partnerId = fields.string(body, 'partnerId', { required: true, max: 36 });
  const restaurantId = fields.integer(body, 'restaurantId', {
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
    required: true,
  });
  fields.throwIfAny();
  const state = world.state;
  if (!state.partners.has(partnerId!.toLowerCase())) throw notFound(`No partner ${partnerId}.`);
  if (!state.restaurants.has(restaurantId!)) throw notFound(`No restaurant ${restaurantId}.`);
  state.links.add(linkKey(partnerId!.toLowerCase(), restaurantId!));
  return { partnerId: partnerId!.toLowerCase(), restaurantId: restaurantId! };
}

/** Spec, Partner profile: `description` "may also be null"; the fake keeps it null until set. */
export function profileView(partner: PartnerRecord): ProfileView {
  return {
    uuid: partner.partnerId,
    name: partner.name,
    description: partner.description ? { ...partner.description } : null,
    website_url: partner.website_url,
  };
}

/** PATCH `/profile/`: "Only the fields present are modified." */
export function updateProfile(partner: PartnerRecord, input: unknown): ProfileView {
  const body = requireObject(input, true);
  const fields = new FieldCollector();
  for (const key of Object.keys(body)) {
    // uuid is read-only and ignored (a client may send the object back); anything else is unknown.
    if (!['name', 'description', 'website_url', 'uuid'].includes(key))
      fields.add(key, 'Unknown field; expected name, description or website_url.');
  }
  const name = fields.string(body, 'name', { max: MAX_PROFILE_NAME_LENGTH });
  const websiteUrl = fields.string(body, 'website_url', { max: MAX_WEBSITE_URL_LENGTH, nullable: true });
  if (typeof websiteUrl === 'string' && !isHttpUrl(websiteUrl))
    fields.add('website_url', 'Enter a valid http or https URL.');
  let description: Partial<Record<(typeof PROFILE_LANGUAGES)[number], string>> | undefined;
  if (body.description !== undefined) {
    // description: "object with fr, nl, en, de strings".
    if (!isPlainObject(body.description))
      fields.add('description', 'Expected an object with the keys fr, nl, en, de.');
    else {
      description = {};
      for (const [key, value] of Object.entries(body.description)) {
        if (!(PROFILE_LANGUAGES as readonly string[]).includes(key))
          fields.add(`description.${key}`, 'Unknown language; expected fr, nl, en or de.');
        else if (typeof value !== 'string') fields.add(`description.${key}`, 'Expected a string.');
        // Counted in characters (code points), as every other limit and the client.
        else if (characterCount(value) > MAX_DESCRIPTION_LENGTH)
          fields.add(
            `description.${key}`,
            `Ensure this field has no more than ${MAX_DESCRIPTION_LENGTH} characters.`,
          );
        else description[key as (typeof PROFILE_LANGUAGES)[number]] = value;
      }
    }
  }
  fields.throwIfAny();
  if (typeof name === 'string') partner.name = name;
  if (websiteUrl !== undefined) partner.website_url = websiteUrl;
  // Keys given replace their language; the others keep their text (empty when never set).
  if (description)
    partner.description = { ...(partner.description ?? { fr: '', nl: '', en: '', de: '' }), ...description };
  return profileView(partner);
}
