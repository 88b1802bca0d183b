/**
 * What the receiver answers and logs: a refusal (logged, reported to `onError`, published on the
 * diagnostics channel, never quoting a token) or an acceptance.
 * @module
 */
import { publish } from '../transport/diagnostics.js';
import { WebhookConfigurationError, WebhookError, WebhookHandlerError } from './errors.js';
import type { WebhookEvent } from './events.js';
import { redactTokens } from './redaction.js';
import type { WebhookLogger, WebhookReceiverOptions, WebhookResult } from './types.js';

export const asWebhookError = (error: unknown): WebhookError =>
  error instanceof WebhookError
    ? error
    : new WebhookConfigurationError('The webhook receiver failed unexpectedly', { cause: error });

/** The answers of one receiver, logging to `logger` and reporting to `onError`. */
export function createAnswers(
  logger: WebhookLogger | undefined,
  onError: WebhookReceiverOptions['onError'],
): {
  log: (level: keyof WebhookLogger, message: string, details: Record<string, unknown>) => void;
  refusal: (error: WebhookError, tokens: readonly string[], event?: WebhookEvent) => WebhookResult;
  accepted: (event: WebhookEvent, duplicate: boolean) => WebhookResult;
} {
  function log(level: keyof WebhookLogger, message: string, details: Record<string, unknown>): void {
    try {
      logger?.[level]?.(message, details);
    } catch {
      // A broken logger must not turn an answer into a crash.
    }
  }

  function report(error: WebhookError, tokens: readonly string[], event?: WebhookEvent): void {
    const details: Record<string, unknown> = { status: error.status, error: error.name };
    // The delivery's own fields come from a verified sender, yet are text it chose: redacted too.
    if (event)
      Object.assign(details, {
        deliveryId: redactTokens(event.id, tokens),
        event: redactTokens(event.event, tokens),
      });
    if (error.cause instanceof Error)
      details.cause = redactTokens(`${error.cause.name}: ${error.cause.message}`, tokens);
    const line = `Webhook delivery answered ${error.status}: ${redactTokens(error.message, tokens)}`;
    log(error.status >= 500 ? 'error' : 'warn', line, details);
    try {
      onError?.(error, event ? { status: error.status, event } : { status: error.status });
    } catch {
      // Same for onError.
    }
  }

  function refusal(error: WebhookError, tokens: readonly string[], event?: WebhookEvent): WebhookResult {
    report(error, tokens, event);
    publish('webhookDelivery', () => ({
      eventType: event?.type,
      result: error.status >= 500 ? 'failed' : 'refused',
      status: error.status,
      duplicate: false,
    }));
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (error.status === 401) headers['www-authenticate'] = 'Bearer';
    if (error.status === 405) headers.allow = 'POST';
    // The rest of an oversized or trickling body is not worth reading.
    if (error.status === 413 || error.status === 408) headers.connection = 'close';
    // The service stores the answer as `last_response`; the message says what was wrong, never a token.
    const message =
      error instanceof WebhookHandlerError ? 'The webhook handler failed; retry later' : error.message;
    return event
      ? { status: error.status, body: { error: message }, headers, error, event }
      : { status: error.status, body: { error: message }, headers, error };
  }

  const accepted = (event: WebhookEvent, duplicate: boolean): WebhookResult => {
    publish('webhookDelivery', () => ({ eventType: event.type, result: 'accepted', status: 200, duplicate }));
    return duplicate
      ? {
          status: 200,
          body: { received: true, duplicate: true },
          headers: { 'content-type': 'application/json' },
          event,
          duplicate: true,
        }
      : { status: 200, body: { received: true }, headers: { 'content-type': 'application/json' }, event };
  };

  return { log, refusal, accepted };
}
