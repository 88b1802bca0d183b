/**
 * A booking's trace, printed: the OpenTelemetry SDK with an in-memory exporter, `instrument()`
 * from `restaurant-partner-sdk/otel`, and a booking on the embedded fake whose gateway answers
 * 504 while the restaurant's system commits 3 s later. The trace shows where the time went: the
 * wait for the rate-limit budget (one request per second, shared with a second booking), each
 * request (the timezone read, the POST answered 504, the look-ups that found the booking) and the
 * create's outcome. In production, swap the in-memory exporter for an OTLP one (docs/observability.md).
 *
 *   npx tsx examples/otel.ts
 */
import { SpanKind } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { PartnerClient, silentLogger } from 'restaurant-partner-sdk';
import { instrument } from 'restaurant-partner-sdk/otel';
import { createFakeService } from 'restaurant-partner-sdk/testing';

const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const stop = instrument({ tracerProvider });

// A fake on a frozen clock (the waits below are its seconds, not yours) that ignores Idempotency-Key.
const fake = createFakeService({ clock: { frozen: true }, dialect: { idempotencyKey: 'ignored' } });
const partner = fake.addPartner();
const restaurant = fake.addRestaurant({ partnerIds: [partner.partnerId], timezone: 'Europe/Brussels' });
const client = new PartnerClient({ ...fake.clientOptions(partner), logger: silentLogger });
fake.injectFault({ operation: 'reservations.create', status: 504, commitDelayMs: 3000 });

const start_time = { date: '2026-12-05', time: '19:30' };
await Promise.all([
  client.reservations.create(restaurant.id, { start_time, adults: 2, first_name: 'Ada' }),
  client.reservations.create(restaurant.id, { start_time, adults: 4, first_name: 'Grace' }),
]);
stop();
fake.dispose();

const spans = exporter.getFinishedSpans();
const byStart = (a: ReadableSpan, b: ReadableSpan) =>
  a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1];
const childrenOf = (parent: ReadableSpan) =>
  spans.filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId).sort(byStart);

function describe(span: ReadableSpan): string {
  const a = span.attributes;
  if (span.kind === SpanKind.CLIENT) {
    const resend = a['http.request.resend_count'] ? `, resend ${String(a['http.request.resend_count'])}` : '';
    return `${span.name} -> ${String(a['http.response.status_code'] ?? a['error.type'])}${resend}`;
  }
  if (span.name === 'restaurant_partner.rate_limit.wait')
    return `wait for the budget: ${String(a['restaurant_partner.rate_limit.waited_ms'])} ms (place ${String(a['restaurant_partner.rate_limit.queue_position'])}, ${String(a['restaurant_partner.priority'])})`;
  return `${span.name} [call ${String(a['restaurant_partner.call.id'])}] outcome ${String(a['restaurant_partner.create.outcome'])}, ${String(a['restaurant_partner.create.requests'])} requests`;
}

function print(span: ReadableSpan, depth: number): void {
  console.log(`${'  '.repeat(depth)}${describe(span)}`);
  for (const child of childrenOf(span)) print(child, depth + 1);
}

for (const call of spans.filter((span) => span.name === 'reservations.create').sort(byStart)) print(call, 0);
