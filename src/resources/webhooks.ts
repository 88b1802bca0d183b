/**
 * Webhooks. The spec documents regenerate-token, test and delete; create, list, retrieve and
 * update are inferred by REST convention (`/webhooks/` and `/webhooks/:id/`).
 * @module
 */
import { NotFoundError } from '../errors.js';
import type { ApiPromise } from '../transport/api-promise.js';
import type { ListPromise } from '../transport/pagination.js';
import { path } from '../transport/path.js';
import { outcomeUnknown, type RequestOptions } from '../transport/transport.js';
import { rememberWebhookToken } from '../transport/secrets.js';
import { parseInput, parseOutput } from '../transport/validate.js';
import { apiPromise, checkId, listOf, Resource, singleObject } from './resource.js';
import { Webhook, WebhookCreateInput, WebhookUpdateInput } from './webhooks.schemas.js';

// The spec does not name the token field; these are the names a service plausibly uses.
const TOKEN_FIELDS = ['auth_token', 'token', 'secret', 'authToken'] as const;

// Node's `util.inspect` looks this symbol up; through `Symbol.for` the core entry imports no `node:` module.
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/** The webhook as shown: everything but its token. */
function withoutToken(this: Record<string, unknown>): Record<string, unknown> {
  const { auth_token: token, ...shown } = this;
  return token === undefined ? shown : { ...shown, auth_token: '[hidden: store it when you receive it]' };
}

/**
 * Normalises the token to `auth_token`, a plain field, so the obvious ways of keeping it work:
 * `webhook.auth_token`, `{ ...webhook }`, `structuredClone(webhook)`, destructuring. It is shown
 * only once, so losing it on a copy would cost a regeneration. What prints the webhook itself
 * (`JSON.stringify(webhook)`, `console.log(webhook)`, `util.inspect`) shows it hidden, through
 * non-enumerable `toJSON` and inspect methods that copies do not carry.
 */
function hideWebhookToken(webhook: Webhook): Webhook {
  const record = webhook as unknown as Record<string, unknown>;
  let token: string | undefined;
  for (const field of TOKEN_FIELDS) {
    if (typeof record[field] === 'string' && token === undefined) token = record[field];
    if (field in record) delete record[field];
  }
  // Registered with the transport's secret registry: redacted by value from errors and logs.
  rememberWebhookToken(token);
  if (token === undefined) return webhook;
  record.auth_token = token;
  Object.defineProperty(record, 'toJSON', {
    value: withoutToken,
    enumerable: false,
    configurable: true,
    writable: true,
  });
  Object.defineProperty(record, INSPECT, {
    value(
      this: Record<string, unknown>,
      _depth: number,
      options: object,
      inspect: (value: unknown, options: object) => string,
    ) {
      return inspect(withoutToken.call(this), options);
    },
    enumerable: false,
    configurable: true,
    writable: true,
  });
  return webhook;
}

/**
 * Remembers every webhook token an answer carries (a webhook, a list of them, a list envelope)
 * before the answer is checked: one outside the contract must not leave its token free to leak
 * through a later error or log line.
 */
function rememberTokensIn(body: unknown, depth = 0): void {
  if (depth > 2 || typeof body !== 'object' || body === null) return;
  if (Array.isArray(body)) {
    for (const item of body) rememberTokensIn(item, depth + 1);
    return;
  }
  const record = body as Record<string, unknown>;
  for (const field of TOKEN_FIELDS) rememberWebhookToken(record[field]);
  if (Array.isArray(record.results)) rememberTokensIn(record.results, depth + 1);
}

const parseWebhook = (body: unknown, where: { method: string; url: string }) => {
  rememberTokensIn(body);
  return hideWebhookToken(parseOutput(Webhook, singleObject(body, where), where));
};

/** `client.webhooks` */
export class Webhooks extends Resource {
  /**
   * Registers a webhook (`POST /webhooks/`, inferred). The answer carries `auth_token`, the
   * token deliveries will present: store it, it is shown only now and on regeneration.
   * @example const webhook = await client.webhooks.create({ url: 'https://partner.example/hooks' });
   */
  create(input: WebhookCreateInput, options?: RequestOptions): ApiPromise<Webhook> {
    return apiPromise(async () => {
      const body = parseInput(WebhookCreateInput, input);
      return this.transport.request({
        method: 'POST',
        path: '/webhooks/',
        body,
        // A repeated create would register a second webhook.
        safeToRepeat: false,
        options,
        operation: 'webhooks.create',
        parse: (answer, _response, where) => parseWebhook(answer, where),
      });
    });
  }

  /** Every webhook of the partner (`GET /webhooks/`, inferred). */
  list(options?: RequestOptions): ListPromise<Webhook> {
    return listOf(this.transport, {
      path: '/webhooks/',
      itemSchema: Webhook,
      options,
      operation: 'webhooks.list',
      onBody: rememberTokensIn,
      onItems: (webhooks) => webhooks.forEach(hideWebhookToken),
    });
  }

  /** One webhook (`GET /webhooks/:id/`, inferred). */
  retrieve(id: number | string, options?: RequestOptions): ApiPromise<Webhook> {
    return this.#call(
      'GET',
      (webhookId) => path`/webhooks/${webhookId}/`,
      id,
      undefined,
      options,
      'webhooks.retrieve',
    );
  }

  /** Changes the fields given (`PATCH /webhooks/:id/`, inferred). */
  update(id: number | string, patch: WebhookUpdateInput, options?: RequestOptions): ApiPromise<Webhook> {
    return apiPromise(async () => {
      const body = parseInput(WebhookUpdateInput, patch);
      return this.#call(
        'PATCH',
        (webhookId) => path`/webhooks/${webhookId}/`,
        id,
        body,
        options,
        'webhooks.update',
      ).withResponse();
    });
  }

  /** Deletes a webhook for good (`DELETE /webhooks/:id/`). Answered 200 or 204, with or without a body. */
  delete(id: number | string, options?: RequestOptions): ApiPromise<void> {
    return apiPromise(async () => {
      const webhookId = checkId(id, 'id');
      // Set once an attempt failed in a way that may have deleted the webhook all the same.
      let mayBeDeleted = false;
      return this.transport.request({
        method: 'DELETE',
        path: path`/webhooks/${webhookId}/`,
        safeToRepeat: true,
        options,
        operation: 'webhooks.delete',
        parse: () => undefined,
        recover: (error) => {
          // A retry answered 404 after an attempt whose outcome is unknown: that attempt deleted it.
          if (mayBeDeleted && error instanceof NotFoundError) return Promise.resolve({ body: undefined });
          if (outcomeUnknown(error)) mayBeDeleted = true;
          return Promise.resolve(undefined);
        },
      });
    });
  }

  /** Issues a new token (`POST /webhooks/:id/auth-token/`); the old one stops working at once. */
  regenerateToken(id: number | string, options?: RequestOptions): ApiPromise<Webhook> {
    return this.#call(
      'POST',
      (webhookId) => path`/webhooks/${webhookId}/auth-token/`,
      id,
      {},
      options,
      'webhooks.regenerateToken',
    );
  }

  /** Sends a test delivery (`POST /webhooks/:id/test/`) and answers the webhook with its delivery record. */
  test(id: number | string, options?: RequestOptions): ApiPromise<Webhook> {
    return this.#call(
      'POST',
      (webhookId) => path`/webhooks/${webhookId}/test/`,
      id,
      {},
      options,
      'webhooks.test',
    );
  }

  #call(
    method: 'GET' | 'POST' | 'PATCH',
    route: (id: number | string) => string,
    id: number | string,
    body: unknown,
    options: RequestOptions | undefined,
    operation: string,
  ): ApiPromise<Webhook> {
    return apiPromise(async () => {
      const webhookId = checkId(id, 'id');
      return this.transport.request({
        method,
        path: route(webhookId),
        body,
        // Reads, updates to given values, a new token and a test delivery: repeating them does no harm.
        safeToRepeat: true,
        options,
        operation,
        parse: (answer, _response, where) => parseWebhook(answer, where),
      });
    });
  }
}
