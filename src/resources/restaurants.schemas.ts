/** Restaurant schemas. @module */
import * as z from 'zod/mini';
import { lazySchema } from '../internal/lazy-schema.js';

/**
 * A restaurant accessible to the partner. All fields are read-only. Fields the service adds
 * beyond these are kept on the object at run time, but are not part of the type.
 */
export interface Restaurant {
  /** Assigned by the server; the `restaurantId` of the reservation methods. */
  id: number;
  /** Human-readable name. */
  display_name?: string | null | undefined;
  /** Internal tenant identifier, unique across the platform. */
  schema_name: string;
  address?: string | null | undefined;
  website?: string | null | undefined;
  /** WGS 84 decimal degrees. */
  latitude?: number | null | undefined;
  /** WGS 84 decimal degrees. */
  longitude?: number | null | undefined;
  /** IANA timezone; every reservation `start_time` is read in it. */
  timezone?: string | null | undefined;
}
/** The zod schema of {@link Restaurant}: unknown fields are kept at run time. */
export const Restaurant: z.ZodMiniType<Restaurant> = /* @__PURE__ */ lazySchema(() =>
  z.looseObject({
    id: z.int(),
    display_name: z.nullish(z.string()),
    schema_name: z.string(),
    address: z.nullish(z.string()),
    website: z.nullish(z.string()),
    latitude: z.nullish(z.number()),
    longitude: z.nullish(z.number()),
    timezone: z.nullish(z.string()),
  }),
);
