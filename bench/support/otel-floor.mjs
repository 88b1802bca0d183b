/**
 * The OpenTelemetry SDK's own floor for what `instrument()` records per call of one request, done
 * by hand with the same providers, for `otel_sdk_floor_us_subscribed`: an INTERNAL call span (4
 * attributes), its wait child (5 attributes, then `waited_ms`) and its CLIENT attempt child (7
 * attributes, then the status), ended in that order around the call, and the 4 records of one call
 * (call duration, attempts, request duration, wait duration) on attribute sets made once. Nothing
 * of ours runs: no channel, no message, no attribute checks, no traceparent.
 */
import { context, SpanKind, trace } from '@opentelemetry/api';

const OPERATION = 'restaurant_partner.operation';
const CALL_ID = 'restaurant_partner.call.id';
const PRIORITY = 'restaurant_partner.priority';

/** Returns `around(call)`: runs `call` inside the SDK work of one instrumented call. */
export function sdkFloor(tracerProvider, meterProvider) {
  const tracer = tracerProvider.getTracer('sdk-floor');
  const meter = meterProvider.getMeter('sdk-floor');
  const callDuration = meter.createHistogram('floor.call.duration', { unit: 's' });
  const attempts = meter.createCounter('floor.call.attempts');
  const attemptDuration = meter.createHistogram('floor.request.duration', { unit: 's' });
  const waitDuration = meter.createHistogram('floor.wait.duration', { unit: 's' });
  const byOperation = Object.freeze({ [OPERATION]: 'reservations.retrieve' });
  const byRequest = Object.freeze({
    'http.request.method': 'GET',
    'url.template': '/api/v1/partnership/restaurants/{restaurant_id}/reservations/{reservation_id}/',
    [OPERATION]: 'reservations.retrieve',
    'http.response.status_code': 200,
  });
  const byWait = Object.freeze({
    [PRIORITY]: 'interactive',
    'restaurant_partner.rate_limit.limiter': 'process',
  });
  let calls = 0;
  return async (call) => {
    const callId = `floor-${(calls += 1)}`;
    const parent = context.active();
    const startedAt = performance.now();
    const span = tracer.startSpan(
      'reservations.retrieve',
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [OPERATION]: 'reservations.retrieve',
          [CALL_ID]: callId,
          [PRIORITY]: 'interactive',
          'restaurant_partner.restaurant.id': 12,
        },
      },
      parent,
    );
    const inCall = trace.setSpan(parent, span);
    const wait = tracer.startSpan(
      'restaurant_partner.rate_limit.wait',
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [PRIORITY]: 'interactive',
          'restaurant_partner.rate_limit.queue_position': 0,
          'restaurant_partner.rate_limit.limiter': 'process',
          [OPERATION]: 'reservations.retrieve',
          [CALL_ID]: callId,
        },
      },
      inCall,
    );
    wait.setAttribute('restaurant_partner.rate_limit.waited_ms', 0);
    wait.end();
    const attemptStartedAt = performance.now();
    const attempt = tracer.startSpan(
      'GET /api/v1/partnership/restaurants/{restaurant_id}/reservations/{reservation_id}/',
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': 'GET',
          'url.template': byRequest['url.template'],
          'url.full': 'https://partner-api.bench.invalid/api/v1/partnership/restaurants/12/reservations/7/',
          'server.address': 'partner-api.bench.invalid',
          'server.port': 443,
          [OPERATION]: 'reservations.retrieve',
          [CALL_ID]: callId,
        },
      },
      inCall,
    );
    attempts.add(1, byOperation);
    waitDuration.record(0, byWait);
    const result = await call();
    attempt.setAttribute('http.response.status_code', 200);
    attempt.end();
    attemptDuration.record((performance.now() - attemptStartedAt) / 1000, byRequest);
    span.end();
    callDuration.record((performance.now() - startedAt) / 1000, byOperation);
    return result;
  };
}
