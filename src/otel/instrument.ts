/**
 * `instrument()`: subscribes to the SDK's diagnostics channels and turns what they publish into
 * OpenTelemetry spans and metrics. A call is an INTERNAL span named by its operation; each HTTP
 * request of it a CLIENT child span (HTTP client semantic conventions), whose `traceparent` the
 * request carries; each wait for the rate-limit budget an INTERNAL child span.
 * @module
 */
import type * as DiagnosticsChannel from 'node:diagnostics_channel';
import { metrics, trace, type MeterProvider, type TracerProvider } from '@opentelemetry/api';
import { InputValidationError } from '../errors.js';
import { CHANNELS } from '../transport/diagnostics.js';
import { GUEST_DATA_FIELDS, type GuestDataField } from './attributes.js';
import { createInstruments } from './metrics.js';
import { Observer } from './observer.js';

/** Options of {@link instrument}. */
export interface InstrumentOptions {
  /** Where spans go. Default: the global tracer provider (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider | undefined;
  /** Where metrics go. Default: the global meter provider (`metrics.getMeterProvider()`). */
  meterProvider?: MeterProvider | undefined;
  /**
   * Guest details to record on `reservations.create` spans, by name (`['email']`), as
   * `restaurant_partner.guest.<field>`. Default none: guests' personal data stays out of traces.
   */
  recordGuestData?: readonly GuestDataField[] | undefined;
}

const SCOPE = 'restaurant-partner-sdk';

function invalid(field: string, message: string): never {
  throw new InputValidationError([{ field, path: field.split('.'), code: 'invalid_option', message }]);
}

function checkOptions(options: unknown): InstrumentOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null)
    invalid('options', 'expected { tracerProvider?, meterProvider?, recordGuestData? }');
  const { tracerProvider, meterProvider, recordGuestData } = options as Record<string, unknown>;
  if (tracerProvider !== undefined && typeof (tracerProvider as TracerProvider)?.getTracer !== 'function')
    invalid('tracerProvider', 'expected an OpenTelemetry TracerProvider (with getTracer)');
  if (meterProvider !== undefined && typeof (meterProvider as MeterProvider)?.getMeter !== 'function')
    invalid('meterProvider', 'expected an OpenTelemetry MeterProvider (with getMeter)');
  if (recordGuestData !== undefined) {
    if (!Array.isArray(recordGuestData))
      invalid('recordGuestData', `expected an array of ${GUEST_DATA_FIELDS.join(', ')}`);
    recordGuestData.forEach((field: unknown, index) => {
      if (!(GUEST_DATA_FIELDS as readonly unknown[]).includes(field))
        invalid(
          `recordGuestData.${index}`,
          `unknown guest field ${JSON.stringify(field) ?? String(field)}: expected one of ${GUEST_DATA_FIELDS.join(', ')}`,
        );
    });
  }
  return options;
}

/** `node:diagnostics_channel`, as the SDK loads it (a bundler keeps no `node:` import to rewrite). */
function loadDiagnostics(): typeof DiagnosticsChannel {
  const load = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    ?.getBuiltinModule;
  const module = load?.('node:diagnostics_channel') as typeof DiagnosticsChannel | undefined;
  if (!module)
    throw new TypeError(
      'instrument() needs node:diagnostics_channel (Node 22.3 or later, Bun, Deno, or Workers with nodejs_compat): the SDK publishes nothing here',
    );
  return module;
}

/**
 * Sends the SDK's calls, requests, waits and outcomes to OpenTelemetry. Returns a function that
 * stops it (spans of calls still running are then not ended).
 *
 * @example
 * ```ts
 * import { instrument } from 'restaurant-partner-sdk/otel';
 * const stop = instrument(); // the global tracer and meter providers
 * ```
 */
export function instrument(options?: InstrumentOptions): () => void {
  const { tracerProvider, meterProvider, recordGuestData = [] } = checkOptions(options);
  const diagnostics = loadDiagnostics();
  const tracer = (tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE);
  const meter = (meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE);
  const instruments = createInstruments(meter);
  const observer = new Observer(tracer, instruments, [...recordGuestData]);
  const plain: [string, (message: never) => void][] = [
    [CHANNELS.rateLimitPause, observer.pause],
    [CHANNELS.createOutcome, observer.createOutcome],
    [CHANNELS.webhookDelivery, observer.webhookDelivery],
    [CHANNELS.syncChange, observer.syncChange],
  ];
  const tracing: [string, object][] = [
    [CHANNELS.call, { start: observer.callStart, end: observer.callEnd, asyncEnd: observer.callAsyncEnd }],
    [CHANNELS.attempt, { start: observer.attemptStart, asyncEnd: observer.attemptEnd }],
    [CHANNELS.rateLimitWait, { start: observer.waitStart, asyncEnd: observer.waitEnd }],
  ];
  for (const [name, handlers] of tracing) diagnostics.tracingChannel(name).subscribe(handlers as never);
  for (const [name, handler] of plain) diagnostics.subscribe(name, handler as never);
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    for (const [name, handlers] of tracing) diagnostics.tracingChannel(name).unsubscribe(handlers as never);
    for (const [name, handler] of plain) diagnostics.unsubscribe(name, handler as never);
    observer.clear();
  };
}
