/**
 * Schema pieces used by several resources. The wire keeps snake_case names, as the spec does.
 * @module
 */
import * as z from 'zod/mini';
import { DURATION_PATTERN, SERVICE_DATE_TIME_PATTERN } from './patterns.js';
import { lazySchema } from '../internal/lazy-schema.js';

/**
 * An ISO 8601 date-time as the service sends it. With or without offset and fractional seconds:
 * the spec only says "ISO 8601 date-time", so the client accepts every form of it.
 */
export const DateTimeString = /* @__PURE__ */ lazySchema(() => z.iso.datetime({ offset: true, local: true }));

/**
 * A date-time in a response. The spec says only "ISO 8601 date-time" and the live service's
 * serialiser is unknown, so answers are read in every common form of it: seconds and fractions
 * optional, the offset as `Z`, `+01:00`, `+0100` or `+01` or absent, and a space instead of `T`.
 * The time helpers (`readStartTime`, `readTimestamp`) read each of them.
 */
export const ServiceDateTimeString = /* @__PURE__ */ lazySchema(() =>
  z.string().check(z.regex(SERVICE_DATE_TIME_PATTERN, 'expected an ISO 8601 date-time')),
);

/**
 * A reservation `duration`. The spec describes ISO 8601 (`PT2H`) while its example shows
 * `HH:MM:SS` (Django's form, which may carry days: `1 02:00:00`). Both are accepted.
 */
export const DurationString = /* @__PURE__ */ lazySchema(() =>
  z.string().check(z.regex(DURATION_PATTERN, 'expected an ISO 8601 duration (PT2H) or HH:MM:SS')),
);

/** A numeric id as it appears in a path: a positive integer, or its decimal string form. */
export const ResourceId = /* @__PURE__ */ lazySchema(() =>
  z.union([
    z.int().check(z.positive()),
    z.string().check(z.regex(/^[1-9]\d*$/, 'expected a positive integer id')),
  ]),
);
export type ResourceId = z.infer<typeof ResourceId>;

/** Keys the partner can attach to a reservation for its own tracking. Stored as given. */
export const Metadata = /* @__PURE__ */ lazySchema(() => z.record(z.string(), z.unknown()));
export type Metadata = z.infer<typeof Metadata>;
