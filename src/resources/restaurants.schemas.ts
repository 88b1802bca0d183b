/** Restaurant schemas. @module */
import { z } from 'zod';
import { lazySchema } from '../lazy-schema.js';

/** A restaurant accessible to the partner. All fields are read-only; unknown fields are kept. */
export const Restaurant = lazySchema(() => z.looseObject({
  id: z.int(),
  display_name: z.string().nullish(),
  schema_name: z.string(),
  address: z.string().nullish(),
  website: z.string().nullish(),
  latitude: z.number().nullish(),
  longitude: z.number().nullish(),
  /** IANA timezone; every reservation `start_time` is read in it. */
  timezone: z.string().nullish(),
}));
export type Restaurant = z.infer<typeof Restaurant>;
