/**
 * The hooks a partner gives the client (`hooks: { onRequest, ... }`) and how the pipeline calls
 * them: apart from the attempt loop, which only says when each one fires.
 * @module
 */
import type { Logger } from '../logger.js';
import type { Secrets } from './secrets.js';

/** What hooks receive. Never headers: the request's carry the credentials. */
export interface RequestEvent {
  /** The public call this request belongs to: `reservations.create`, `restaurants.list`, ... */
  operation: string;
  /** The call's id, shared by all its requests (a create's look-ups included) and its warnings. */
  callId: string;
  method: string;
  /** The URL with credentials and secret query values removed. */
  url: string;
  /** 1 for the first attempt, 2 for the first retry, ... */
  attempt: number;
  /** HTTP status, when there is an answer. */
  status?: number | undefined;
  /** Wait before the next attempt, in milliseconds (onRetry, onRateLimited). */
  delayMs?: number | undefined;
  /** Name of the error class that caused a retry (onRetry). */
  error?: string | undefined;
  /** How long the attempt took (onResponse). */
  durationMs?: number | undefined;
}

/** Observers of the pipeline. A hook that throws is logged and ignored: it never breaks a call. */
export interface ClientHooks {
  /** Before each attempt is sent (after its rate-limit wait). */
  onRequest?(event: RequestEvent): void;
  /** After each attempt is answered, whatever the status. */
  onResponse?(event: RequestEvent): void;
  /** Before each retry sleep. */
  onRetry?(event: RequestEvent): void;
  /** When the service answers 429 (the whole bucket pauses for `delayMs`). */
  onRateLimited?(event: RequestEvent): void;
}

/** Calls one hook, if given. A hook that throws is logged (scrubbed) and ignored: it never breaks a call. */
export function callHook(
  hooks: ClientHooks,
  logger: Logger,
  secrets: Secrets,
  name: keyof ClientHooks,
  event: RequestEvent,
): void {
  if (!hooks[name]) return;
  try {
    // Called on the hooks object: a partner's hooks written as a class keep their `this`.
    hooks[name](event);
  } catch (error) {
    logger.warn(`hook ${name} threw; ignored`, {
      error: secrets.scrubText(error instanceof Error ? error.message : String(error)),
    });
  }
}
