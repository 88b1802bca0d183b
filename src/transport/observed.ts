/**
 * The transport's two observed steps: the wait for a rate-limit slot and the send of one request,
 * each published on its diagnostics channel when someone listens (and run bare otherwise), and a
 * wait past `slowWaitWarnMs` told in one warning naming the operation and the call id.
 * @module
 */
import type { Logger } from '../logger.js';
import type { Call } from './call.js';
import type { Clock } from './clock.js';
import {
  isTraced,
  traceContextHeaders,
  traced,
  urlTemplate,
  type AttemptMessage,
  type RateLimitWaitMessage,
} from './diagnostics.js';
import type { HttpAnswer } from './http.js';
import type { RateLimiter } from './rate-limiter.js';

/** What the wait needs besides the acquire itself. */
export interface ObservedWait {
  limiter: RateLimiter;
  call: Call;
  clock: Clock;
  slowWaitWarnMs: number;
  logger: Logger;
  /** The request's log details (operation, call id, method, URL), for the slow wait's warning only. */
  said: Readonly<Record<string, unknown>>;
  attempt: number;
}

/** Waits for a slot with `acquire`, observed. */
export async function waitObserved(
  wait: ObservedWait,
  acquire: () => Promise<RateLimiter.Slot | void>,
): Promise<RateLimiter.Slot | void> {
  const { limiter, call, clock } = wait;
  const startedAt = clock.now();
  let slot: RateLimiter.Slot | void;
  if (isTraced('rateLimitWait')) {
    const message: RateLimitWaitMessage = {
      callId: call.id,
      operation: call.operation,
      priority: call.priority,
      queuePosition: limiter.queueDepth,
      limiter: limiter.kind ?? 'custom',
    };
    slot = await traced('rateLimitWait', message, async () => {
      try {
        return await acquire();
      } finally {
        message.waitedMs = clock.now() - startedAt;
      }
    });
  } else slot = await acquire();
  const waitedMs = clock.now() - startedAt;
  if (waitedMs > wait.slowWaitWarnMs)
    wait.logger.warn(
      `${call.operation} waited ${waitedMs} ms for the rate-limit budget (call ${call.id}, ${call.priority}): more calls are queued than the budget serves`,
      { ...wait.said, attempt: wait.attempt, waitedMs, priority: call.priority },
    );
  return slot;
}

/** One request as observers see it: never its headers or body. */
export interface ObservedRequest {
  method: string;
  /** The redacted URL. */
  url: string;
  target: URL;
  attempt: number;
  resendCount: number;
}

/**
 * Sends one request with `send`, observed. `send` receives the trace-context headers a
 * subscriber set (only `traceparent`, `tracestate`, `baggage`); it adds the credentials itself,
 * so they never reach an observer.
 */
export async function sendObserved(
  call: Call,
  request: ObservedRequest,
  send: (traceHeaders: Record<string, string> | undefined) => Promise<HttpAnswer>,
): Promise<HttpAnswer> {
  if (!isTraced('attempt')) return send(undefined);
  const message: AttemptMessage = {
    callId: call.id,
    operation: call.operation,
    method: request.method,
    url: request.url,
    urlTemplate: urlTemplate(request.target.pathname),
    attempt: request.attempt,
    resendCount: request.resendCount,
    traceHeaders: {},
  };
  // Observers get the status, never the answer's body (a server may echo anything in it).
  let answer: HttpAnswer | undefined;
  await traced('attempt', message, async () => {
    answer = await send(traceContextHeaders(message.traceHeaders));
    message.statusCode = answer.response.status;
  });
  return answer!;
}
