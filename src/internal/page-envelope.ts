/**
 * The list envelope's schema, for tests that generate answers in it. The client itself reads
 * lists without it (the resources' base class walks the envelope by hand, item by item).
 * @module
 */
import * as z from 'zod/mini';
import { realSchema } from './lazy-schema.js';

/**
 * A paginated list envelope (`{count, next, previous, results}`). The spec does not show how
 * lists are paged, so the client accepts this envelope or a bare array.
 */
export const pageEnvelope = <Item extends z.ZodMiniType>(item: Item) =>
  z.looseObject({
    count: z.optional(z.int().check(z.nonnegative())),
    next: z.optional(z.nullable(z.string())),
    previous: z.optional(z.nullable(z.string())),
    results: z.array(realSchema(item)),
  });
