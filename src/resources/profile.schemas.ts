/** Partner profile schemas. @module */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';

/** Localized descriptions keyed `fr`, `nl`, `en`, `de`. */
export const LocalizedDescription = lazySchema(() => z.looseObject({
  fr: z.string().nullish(),
  nl: z.string().nullish(),
  en: z.string().nullish(),
  de: z.string().nullish(),
}));
export type LocalizedDescription = z.infer<typeof LocalizedDescription>;

/** The partner's profile, shown to restaurants. `description` may be null (the spec's example). */
export const PartnerProfile = lazySchema(() => z.looseObject({
  uuid: z.string(),
  name: z.string().nullish(),
  description: LocalizedDescription.nullish(),
  website_url: z.string().nullish(),
}));
export type PartnerProfile = z.infer<typeof PartnerProfile>;

/** Fields a partner may change; only those present are modified. */
export const PartnerProfileUpdateInput = lazySchema(() => z.strictObject({
  name: z.string().optional(),
  description: z
    .strictObject({ fr: z.string().optional(), nl: z.string().optional(), en: z.string().optional(), de: z.string().optional() })
    .optional(),
  website_url: z.url().nullable().optional(),
}));
export type PartnerProfileUpdateInput = z.infer<typeof PartnerProfileUpdateInput>;
