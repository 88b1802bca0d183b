/** Partner profile schemas. @module */
import * as z from 'zod/mini';
import { lazySchema, realSchema } from '../internal/lazy-schema.js';

/** Localized descriptions keyed `fr`, `nl`, `en`, `de`. */
export interface LocalizedDescription {
  fr?: string | null | undefined;
  nl?: string | null | undefined;
  en?: string | null | undefined;
  de?: string | null | undefined;
}
/** The zod schema of {@link LocalizedDescription}: unknown languages are kept at run time. */
export const LocalizedDescription: z.ZodMiniType<LocalizedDescription> = /* @__PURE__ */ lazySchema(() =>
  z.looseObject({
    fr: z.nullish(z.string()),
    nl: z.nullish(z.string()),
    en: z.nullish(z.string()),
    de: z.nullish(z.string()),
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
export const PartnerProfile: z.ZodMiniType<PartnerProfile> = /* @__PURE__ */ lazySchema(() =>
  z.looseObject({
    uuid: z.string(),
    name: z.nullish(z.string()),
    description: z.nullish(realSchema(LocalizedDescription)),
    website_url: z.nullish(z.string()),
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
export const PartnerProfileUpdateInput: z.ZodMiniType<PartnerProfileUpdateInput, PartnerProfileUpdateInput> =
  /* @__PURE__ */ lazySchema(() =>
    z.strictObject({
      name: z.optional(z.string()),
      description: z.optional(
        z.strictObject({
          fr: z.optional(z.string()),
          nl: z.optional(z.string()),
          en: z.optional(z.string()),
          de: z.optional(z.string()),
        }),
      ),
      website_url: z.optional(z.nullable(z.url())),
    }),
  );
