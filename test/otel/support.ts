/**
 * The OpenTelemetry SDK as a partner sets it up, with in-memory exporters: spans kept by a
 * SimpleSpanProcessor, metrics read on demand, the AsyncLocalStorage context manager, and
 * `instrument()` subscribed. `stop()` undoes all of it (the fast lane shares workers between files).
 */
import { context, type Attributes, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type DataPoint,
  type Histogram,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { instrument, type InstrumentOptions } from 'restaurant-partner-sdk/otel';
import type { Logger } from 'restaurant-partner-sdk';

/** A reader collected by hand (cumulative): what a Prometheus scrape would see now. */
class CollectedReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface Point {
  attributes: Attributes;
  /** A counter's or up-down counter's value; a histogram's sum. */
  value: number;
  /** A histogram's count. */
  count?: number;
}

export interface Telemetry {
  /** A tracer of the same provider, for the partner's own spans. */
  tracer: Tracer;
  spans(): ReadableSpan[];
  /** Data points of one metric, by name. */
  metric(name: string): Promise<Point[]>;
  /** Every metric name with points. */
  metricNames(): Promise<string[]>;
  stop(): Promise<void>;
}

export function startTelemetry(
  options: Omit<InstrumentOptions, 'tracerProvider' | 'meterProvider'> = {},
): Telemetry {
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new CollectedReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const stopInstrument = instrument({ ...options, tracerProvider, meterProvider });
  const collect = async () => {
    const { resourceMetrics } = await reader.collect();
    return resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
  };
  return {
    tracer: tracerProvider.getTracer('partner-app'),
    spans: () => exporter.getFinishedSpans(),
    async metric(name) {
      const found = (await collect()).find((metric) => metric.descriptor.name === name);
      if (!found) return [];
      return (found.dataPoints as DataPoint<number | Histogram>[]).map((point) =>
        typeof point.value === 'number'
          ? { attributes: point.attributes, value: point.value }
          : { attributes: point.attributes, value: point.value.sum ?? 0, count: point.value.count },
      );
    },
    async metricNames() {
      return (await collect())
        .filter((metric) => metric.dataPoints.length > 0)
        .map((metric) => metric.descriptor.name);
    },
    async stop() {
      stopInstrument();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      context.disable();
    },
  };
}

/** A logger keeping every line (message and details), as a structured logger would receive them. */
export function keepingLogger(): Logger & { lines: { level: string; message: string; details?: unknown }[] } {
  const lines: { level: string; message: string; details?: unknown }[] = [];
  const at =
    (level: string) =>
    (message: string, details?: Record<string, unknown>): void =>
      void lines.push({ level, message, details });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** The spans whose parent is `parent`. */
export function childrenOf(spans: ReadableSpan[], parent: ReadableSpan): ReadableSpan[] {
  return spans.filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId);
}
