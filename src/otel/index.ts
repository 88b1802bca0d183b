/**
 * `restaurant-partner-sdk/otel`: OpenTelemetry traces and metrics from the SDK's diagnostics
 * channels. Needs `@opentelemetry/api` (an optional peer dependency of the SDK).
 *
 * @example
 * ```ts
 * import { instrument } from 'restaurant-partner-sdk/otel';
 * const stop = instrument({ tracerProvider, meterProvider });
 * ```
 * @module
 */
export { instrument, type InstrumentOptions } from './instrument.js';
export { ATTR, GUEST_DATA_FIELDS, type GuestDataField } from './attributes.js';
export { METRIC } from './metrics.js';
export { CHANNELS, CHANNEL_PREFIX, type CreateOutcome } from '../transport/diagnostics.js';
