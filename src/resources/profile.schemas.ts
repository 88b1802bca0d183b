/** Partner profile schemas. @module */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';

/** Localized descriptions keyed `fr`, `nl`, `en`, `de`. */
export interface LocalizedDescription {
  fr?: string | null | undefined;
  nl?: string | null | undefined;
  en?: string | null | undefined;
  de?: string | null | undefined;
}
/** The zod schema of {@link LocalizedDescription}: unknown languages are kept at run time. */
export const LocalizedDescription: z.ZodType<LocalizedDescription> = lazySchema(() =>
  z.looseObject({
    fr: z.string().nullish(),
    nl: z.string().nullish(),
    en: z.string().nullish(),
    de: z.string().nullish(),
  }),
);

/**
 * The partner's profile, shown to restaurants. `description` may be null (the spec's example).
 * Fields the service adds beyond these are kept on the object at run time, but are not part of the type.
 */
export interface PartnerProfile {
  /** The partner UUID, also the Basic auth username. */
  uuid: string;
  name?: string | null | undefined;
  description?: LocalizedDescription | null | undefined;
  website_url?: string | null | undefined;
}
/** The zod schema of {@link PartnerProfile}: unknown fields are kept at run time. */
export const PartnerProfile: z.ZodType<PartnerProfile> = lazySchema(() =>
  z.looseObject({
    uuid: z.string(),
    name: z.string().nullish(),
    description: LocalizedDescription.nullish(),
    website_url: z.string().nullish(),
  }),
);

/** Fields a partner may change; only those present are modified. Any other key is refused. */
export interface PartnerProfileUpdateInput {
  name?: string | undefined;
  description?:
    | { fr?: string | undefined; nl?: string | undefined; en?: string | undefined; de?: string | undefined }
    | undefined;
  website_url?: string | null | undefined;
}
/** The zod schema of {@link PartnerProfileUpdateInput}: unknown keys are refused. */
export const PartnerProfileUpdateInput: z.ZodType<PartnerProfileUpdateInput, PartnerProfileUpdateInput> =
  lazySchema(() =>
    z.strictObject({
      name: z.string().optional(),
      description: z
        .strictObject({
          fr: z.string().optional(),
          nl: z.string().optional(),
          en: z.string().optional(),
          de: z.string().optional(),
        })
        .optional(),
      website_url: z.url().nullable().optional(),
    }),
  );
