/**
 * The metrics of the `/otel` entry: each instrument named once, with its unit and what it counts.
 * Their attributes are all of bounded cardinality: operations, priorities, outcomes, statuses,
 * event types, change kinds; never an id, a key or a URL with ids in it.
 * @module
 */
import type { Counter, Histogram, Meter, ObservableUpDownCounter } from '@opentelemetry/api';

/** The instruments, made once per `instrument()`. */
export interface Instruments {
  callDuration: Histogram;
  callAttempts: Counter;
  attemptDuration: Histogram;
  waitDuration: Histogram;
  /** Read at collection (see Observer.observeQueueDepth): nothing is recorded per call. */
  queueDepth: ObservableUpDownCounter;
  throttled: Counter;
  createOutcomes: Counter;
  webhookDeliveries: Counter;
  syncLag: Histogram;
}

/** Metric names, as the documentation lists them. */
export const METRIC = {
  callDuration: 'restaurant_partner.client.call.duration',
  callAttempts: 'restaurant_partner.client.call.attempts',
  attemptDuration: 'http.client.request.duration',
  waitDuration: 'restaurant_partner.rate_limit.wait.duration',
  queueDepth: 'restaurant_partner.rate_limit.queue_depth',
  throttled: 'restaurant_partner.rate_limit.throttled',
  createOutcomes: 'restaurant_partner.create.outcomes',
  webhookDeliveries: 'restaurant_partner.webhook.deliveries',
  syncLag: 'restaurant_partner.sync.lag',
} as const;

export function createInstruments(meter: Meter): Instruments {
  return {
    callDuration: meter.createHistogram(METRIC.callDuration, {
      unit: 's',
      description: 'Duration of each public call, its waits, attempts, retries and look-ups included',
    }),
    callAttempts: meter.createCounter(METRIC.callAttempts, {
      unit: '{attempt}',
      description: 'HTTP requests sent, by the operation they served (retries, pages and look-ups included)',
    }),
    attemptDuration: meter.createHistogram(METRIC.attemptDuration, {
      unit: 's',
      description: 'Duration of each HTTP request, until its answer was read',
    }),
    waitDuration: meter.createHistogram(METRIC.waitDuration, {
      unit: 's',
      description: 'Time each request waited for the rate-limit budget',
    }),
    queueDepth: meter.createObservableUpDownCounter(METRIC.queueDepth, {
      unit: '{request}',
      description: 'Requests of this process waiting for the rate-limit budget now',
    }),
    throttled: meter.createCounter(METRIC.throttled, {
      unit: '{response}',
      description: 'Answers 429 from the service (each pauses every caller of the budget)',
    }),
    createOutcomes: meter.createCounter(METRIC.createOutcomes, {
      unit: '{create}',
      description:
        'How reservations.create calls ended: created, replayed, recovered_by_lookup, ambiguous, reuse_refused',
    }),
    webhookDeliveries: meter.createCounter(METRIC.webhookDeliveries, {
      unit: '{delivery}',
      description: 'Webhook deliveries answered, by result',
    }),
    syncLag: meter.createHistogram(METRIC.syncLag, {
      unit: 's',
      description: 'How long after the sync could first have seen it each change was handed to onChange',
    }),
  };
}
