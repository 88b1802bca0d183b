/**
 * Partner profile rules: "Information shown to restaurants in their list of partners."
 * @module
 */
import type { OperationContext } from '../context.js';
import type { PartnerRecord } from '../state.js';
import { FieldCollector, isHttpUrl, isPlainObject, json, requireObject } from '../wire.js';

const LANGUAGES = ['fr', 'nl', 'en', 'de'] as const;

function serializeProfile(partner: PartnerRecord): Record<string, unknown> {
  return {
    uuid: partner.partnerId,
    name: partner.name,
    description: partner.description ? { ...partner.description } : null,
    website_url: partner.website_url,
  };
}

/**
 * GET `/profile/` ("also reached without the trailing slash"). The spec's prose says "a list of
 * profile objects" while its example shows one object: the `profile` dialect picks.
 */
export function retrieveProfile(context: OperationContext): Response {
  const profile = serializeProfile(context.partner);
  return json(200, context.fake.dialect.profile === 'list' ? [profile] : profile);
}

/** PATCH `/profile/`: "Only the fields present are modified." */
export function updateProfile(context: OperationContext): Response {
  const body = requireObject(context.body, true);
  const fields = new FieldCollector();
  for (const key of Object.keys(body)) {
    // uuid is read-only and ignored (a client may send the object back); anything else is unknown.
    if (!['name', 'description', 'website_url', 'uuid'].includes(key)) fields.add(key, 'Unknown field; expected name, description or website_url.');
  }
  const name = fields.string(body, 'name', { max: 255 });
  const websiteUrl = fields.string(body, 'website_url', { max: 500, nullable: true });
  if (typeof websiteUrl === 'string' && !isHttpUrl(websiteUrl)) fields.add('website_url', 'Enter a valid http or https URL.');
  let description: Partial<Record<(typeof LANGUAGES)[number], string>> | undefined;
  if (body.description !== undefined) {
    // description: "object with fr, nl, en, de strings".
    if (!isPlainObject(body.description)) fields.add('description', 'Expected an object with the keys fr, nl, en, de.');
    else {
      description = {};
      for (const [key, value] of Object.entries(body.description)) {
        if (!(LANGUAGES as readonly string[]).includes(key)) fields.add(`description.${key}`, 'Unknown language; expected fr, nl, en or de.');
        else if (typeof value !== 'string') fields.add(`description.${key}`, 'Expected a string.');
        else if (value.length > 5000) fields.add(`description.${key}`, 'Ensure this field has no more than 5000 characters.');
        else description[key as (typeof LANGUAGES)[number]] = value;
      }
    }
  }
  fields.throwIfAny();
  const partner = context.partner;
  if (typeof name === 'string') partner.name = name;
  if (websiteUrl !== undefined) partner.website_url = websiteUrl;
  // Keys given replace their language; the others keep their text.
  if (description) partner.description = { ...(partner.description ?? { fr: '', nl: '', en: '', de: '' }), ...description };
  return json(200, serializeProfile(partner));
}
