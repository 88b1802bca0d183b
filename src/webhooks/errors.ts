/**
 * Errors of the webhook receiver. Each carries the HTTP `status` the receiver answers with, so a
 * partner who calls `verify()` in a framework of its own can answer exactly as `.handle()` does.
 *
 * No message ever contains a token: the receiver says "missing" or "did not match", never what
 * was presented.
 *
 * @example
 * ```ts
 * try {
 *   const event = await receiver.verify({ body: rawBody, headers });
 * } catch (error) {
 *   if (error instanceof WebhookError) return reply.status(error.status).send({ error: error.message });
 *   throw error;
 * }
 * ```
 * @module
 */
import { type FieldIssue, PartnerSdkError } from '../errors.js';
import { isPartnerSdkError, nameErrorClass } from '../errors/base.js';

/**
 * Base of every error the webhook receiver raises. `status` is the HTTP answer it maps to.
 * `retryable` says whether handling the same delivery again can succeed as it is (the service's
 * redelivery, or your own retry of `verify()`): false for a delivery that is refused for what it
 * is (its token, its body, its method), true for a failure of the moment (your handler, a stalled
 * body, another receiver running it, a dependency of the receiver).
 */
export class WebhookError extends PartnerSdkError {
  static {
    nameErrorClass(this, 'WebhookError');
  }
  /** The HTTP status the receiver answers with for this error. */
  readonly status: number;
  constructor(
    message: string,
    status: number,
    options?: { cause?: unknown; retryable?: boolean | undefined },
  ) {
    super(message, options);
    this.status = status;
  }
}

/** 401: the delivery carried no webhook token, or none of the accepted tokens. */
export class WebhookVerificationError extends WebhookError {
  static {
    nameErrorClass(this, 'WebhookVerificationError');
  }
  /** `missing` when no token was presented, `mismatch` when it matched no accepted token. */
  readonly reason: 'missing' | 'mismatch';
  constructor(reason: 'missing' | 'mismatch') {
    super(
      reason === 'missing'
        ? 'Webhook token missing: expected "Authorization: Bearer <token>" or the configured token header'
        : 'Webhook token did not match any accepted token',
      401,
      { retryable: false },
    );
    this.reason = reason;
  }
}

/** 400: the body is empty, not UTF-8, not JSON, or JSON that is not a delivery envelope. */
export class WebhookPayloadError extends WebhookError {
  static {
    nameErrorClass(this, 'WebhookPayloadError');
  }
  /** The envelope fields that broke a rule, when the body was JSON but not an envelope. */
  readonly issues: FieldIssue[];
  constructor(message: string, issues: FieldIssue[] = [], options?: { cause?: unknown }) {
    super(
      issues.length > 0
        ? `${message}: ${issues.map((issue) => `${issue.field || '(root)'}: ${issue.message}`).join('; ')}`
        : message,
      400,
      { cause: options?.cause, retryable: false },
    );
    this.issues = issues;
  }
}

/** 413: the body is larger than `maxBodyBytes`. Raised while reading, before the rest is read. */
export class WebhookPayloadTooLargeError extends WebhookError {
  static {
    nameErrorClass(this, 'WebhookPayloadTooLargeError');
  }
  readonly maxBodyBytes: number;
  constructor(maxBodyBytes: number) {
    super(`Webhook body is larger than the limit of ${maxBodyBytes} bytes (option maxBodyBytes)`, 413, {
      retryable: false,
    });
    this.maxBodyBytes = maxBodyBytes;
  }
}

/**
 * 408: the body did not arrive in full within `bodyTimeoutMs` of the headers (a stalled or
 * trickling sender). Nothing was run; the connection is closed.
 */
export class WebhookBodyTimeoutError extends WebhookError {
  static {
    nameErrorClass(this, 'WebhookBodyTimeoutError');
  }
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(
      `The webhook body did not arrive within ${timeoutMs} ms of the headers (option bodyTimeoutMs)`,
      408,
      // A sender that stalled once may deliver in full the next time.
      { retryable: true },
    );
    this.timeoutMs = timeoutMs;
  }
}

/**
 * 409: another receiver sharing the duplicate store holds this delivery and was still running
 * its handler when this one stopped waiting. Nothing was run here; the service's retry gets 200
 * once the other receiver finished (or runs the handler if it failed).
 */
export class WebhookDeliveryInProgressError extends WebhookError {
  static {
    nameErrorClass(this, 'WebhookDeliveryInProgressError');
  }
  readonly deliveryId: string;
  constructor(deliveryId: string) {
    super(`Delivery ${deliveryId} is being processed by another receiver; retry later`, 409, {
      retryable: true,
    });
    this.deliveryId = deliveryId;
  }
}

/** 415: the delivery declared a `Content-Type` that is not JSON. */
export class WebhookUnsupportedMediaTypeError extends WebhookError {
  static {
    nameErrorClass(this, 'WebhookUnsupportedMediaTypeError');
  }
  readonly contentType: string;
  constructor(contentType: string) {
    super(
      `Webhook body must be JSON (application/json), got Content-Type "${contentType.slice(0, 100)}"`,
      415,
      { retryable: false },
    );
    this.contentType = contentType;
  }
}

/** 405: deliveries are POSTs; anything else is refused. */
export class WebhookMethodNotAllowedError extends WebhookError {
  static {
    nameErrorClass(this, 'WebhookMethodNotAllowedError');
  }
  constructor(method: string) {
    super(`Webhook deliveries are POST requests, got ${method.slice(0, 20)}`, 405, { retryable: false });
  }
}

/**
 * 500: the receiver was handed a parsed object (or nothing) instead of the raw body. The token
 * check and the exact JSON reading need the bytes as sent, so this is a mounting mistake in the
 * partner's app, answered 500 so that a retry (if the service retries) succeeds once it is fixed.
 * Not retryable as it is: the same mounting fails again until the code changes.
 */
export class WebhookRawBodyRequiredError extends WebhookError {
  static {
    nameErrorClass(this, 'WebhookRawBodyRequiredError');
  }
  constructor(received: string) {
    super(
      `The webhook receiver needs the raw request body (string, Uint8Array, Buffer or ArrayBuffer), got ${received}. ` +
        'In Express, register the webhook route before app.use(express.json()), or let the JSON parser keep the bytes: ' +
        'app.use(express.json({ verify: (req, _res, buf) => { req.rawBody = buf; } })) (the receiver reads req.rawBody). ' +
        'In fetch-style frameworks use receiver.handle(request), or pass `await request.text()` to verify().',
      500,
      { retryable: false },
    );
  }
}

/**
 * 500: the partner's handler threw (`cause` is what it threw) or ran past `handlerTimeoutMs`
 * (`timeoutMs` is set). The delivery is not marked as processed, so a retry of it (the fake
 * retries; the spec does not say whether the service does) runs the handler again. Retryable.
 */
export class WebhookHandlerError extends WebhookError {
  static {
    nameErrorClass(this, 'WebhookHandlerError');
  }
  /** The event whose handler failed. */
  readonly eventType: string;
  readonly deliveryId: string;
  /** Set when the handler did not finish in time: the limit it ran past, in milliseconds. */
  readonly timeoutMs: number | undefined;
  constructor(eventType: string, deliveryId: string, cause: unknown, timeoutMs?: number) {
    super(
      timeoutMs === undefined
        ? `The handler for ${eventType} (delivery ${deliveryId}) threw; the delivery was not marked as processed`
        : `The handler for ${eventType} (delivery ${deliveryId}) did not finish within ${timeoutMs} ms (option handlerTimeoutMs); the delivery was not marked as processed`,
      500,
      { cause, retryable: true },
    );
    this.eventType = eventType;
    this.deliveryId = deliveryId;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * 500 (or thrown at creation): the receiver is misconfigured or a dependency of it failed (no
 * token, a token provider that threw, a duplicate store that failed). Retryable when a dependency
 * failed while a delivery was handled (it may be back for the next delivery); not retryable when
 * `createWebhookReceiver` refused its options (the same options are refused again).
 */
export class WebhookConfigurationError extends WebhookError {
  static {
    nameErrorClass(this, 'WebhookConfigurationError');
  }
  constructor(message: string, options?: { cause?: unknown; retryable?: boolean | undefined }) {
    super(message, 500, { cause: options?.cause, retryable: options?.retryable ?? true });
  }
}

/**
 * True for any error raised by the webhook receiver, this copy's or another copy's of the package
 * (where `instanceof` fails); `status` tells them apart.
 */
export const isWebhookError = (error: unknown): error is WebhookError =>
  isPartnerSdkError(error, WebhookError);
