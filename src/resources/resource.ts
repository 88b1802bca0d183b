/**
 * What every resource class shares: the transport, the client's settings, and the helpers that
 * read lists and single objects tolerantly.
 * @module
 */
import type * as z from 'zod/mini';
import { ResponseValidationError } from '../errors.js';
import { ApiPromise, type WithResponse } from '../transport/api-promise.js';
import { ListPromise, type PageFetcher } from '../transport/pagination.js';
import {
  API_PREFIX,
  type Call,
  type RequestOptions,
  type RequestSpec,
  type Transport,
} from '../transport/transport.js';
import { parseInput, parseOutput } from '../transport/validate.js';
import type { Reservation } from './reservations.schemas.js';
import { ResourceId } from './shared.schemas.js';
import type { BookingLedger } from '../lib/booking-ledger.js';

/** What a resource needs of its client. */
export interface ResourceContext {
  transport: Transport;
  /** Whether creates also carry their idempotency key in `metadata`. */
  idempotencyMetadata: boolean;
  /** Whether the service is declared to honour `Idempotency-Key` (a repeat returns the first booking). */
  idempotencyKeyHonoured: boolean;
  /** How long a create whose outcome is unknown keeps looking its key up. */
  createLookupWindowMs: number;
  /** Where creates with a caller's own key are claimed and their outcomes kept. */
  bookingLedger: BookingLedger;
  /** How long a key whose create ended ambiguous sends nothing. */
  ambiguousHoldMs: number;
  /** The partner UUID: the ledger keeps keys per partner. */
  partnerId: string;
  /** The service, however its base URL is spelt (see `serviceOf`): the ledger keeps keys per service. */
  service: string;
  /** The restaurant's IANA timezone (cached per client; a miss refreshes the list once). */
  timezoneFor(restaurantId: number | string, options?: RequestOptions | Call): Promise<string | null>;
  /** The cached timezone of a restaurant, without any request (undefined when not cached). */
  cachedTimezone(restaurantId: number | string): string | null | undefined;
  /** Records restaurants' timezones seen in any restaurants list. */
  rememberTimezones(restaurants: readonly { id: number; timezone?: string | null | undefined }[]): void;
  /** Who is told of each reservation created (shared with the client's `withOptions` copies). */
  createdListeners: Set<{ listener: (restaurantId: number, reservation: Reservation) => void }>;
}

/** Base of the resource classes: holds only the context. */
export abstract class Resource {
  protected readonly context: ResourceContext;
  constructor(context: ResourceContext) {
    this.context = context;
  }
  protected get transport(): Transport {
    return this.context.transport;
  }

  /**
   * Like {@link apiPromise}, for a method that also throws errors of its own built from what the
   * service answered (a timezone, a list): those are scrubbed of the secrets too.
   */
  protected scrubbed<T>(run: () => Promise<WithResponse<T>>): ApiPromise<T> {
    const secrets = this.transport.secrets;
    return apiPromise(() => run().catch((error: unknown) => Promise.reject(secrets.scrubError(error))));
  }
}

/** Checks an id before it goes into a path. */
export function checkId(value: unknown, field: string): number | string {
  return parseInput(ResourceId, value, [field]);
}

/** Runs an async body and wraps it as an {@link ApiPromise}. */
export function apiPromise<T>(run: () => Promise<WithResponse<T>>): ApiPromise<T> {
  return new ApiPromise(Promise.resolve().then(run));
}

/** Reads the body of an object answer: the object itself, or a one-element list of it. */
export function singleObject(body: unknown, where: { method: string; url: string }): unknown {
  if (!Array.isArray(body)) return body;
  if (body.length === 1) return body[0];
  throw new ResponseValidationError(
    [
      {
        field: '(root)',
        path: [],
        code: 'invalid_type',
        message: `expected one object, got a list of ${body.length}`,
      },
    ],
    { ...where, body },
  );
}

/** Whether a body carries a resource (an object with an `id`), as opposed to an empty or status-only answer. */
export function hasResourceBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && 'id' in body;
}

type Next = string | number | null;

function readPage<Item extends z.core.$ZodType>(
  itemSchema: Item,
  body: unknown,
  where: { method: string; url: string },
) {
  if (Array.isArray(body)) {
    return {
      items: body.map((item, index) => parseOutput(itemSchema, item, where, [index])) as z.output<Item>[],
      next: null as Next,
    };
  }
  if (body && typeof body === 'object' && Array.isArray((body as { results?: unknown }).results)) {
    const envelope = body as { count?: unknown; next?: unknown; results: unknown[] };
    const next = envelope.next;
    if (next != null && typeof next !== 'string' && typeof next !== 'number') {
      throw new ResponseValidationError(
        [
          {
            field: 'next',
            path: ['next'],
            code: 'invalid_type',
            message: 'expected a URL, a page number or null',
          },
        ],
        { ...where, body },
      );
    }
    return {
      items: envelope.results.map((item, index) =>
        parseOutput(itemSchema, item, where, ['results', index]),
      ) as z.output<Item>[],
      count: typeof envelope.count === 'number' ? envelope.count : undefined,
      next: next === '' ? null : (next ?? null),
    };
  }
  throw new ResponseValidationError(
    [
      {
        field: '(root)',
        path: [],
        code: 'invalid_type',
        message: 'expected a list: an array or a {count, next, previous, results} envelope',
      },
    ],
    { ...where, body },
  );
}

/**
 * The URL of the page `next` designates. A page number sets `page` on the first URL; a URL on
 * another origin (a proxy's internal host in a Django `next` link) keeps only its query on our own
 * origin, so the credentials are never sent anywhere but the configured service. So does a link
 * that drops the path prefix of `baseUrl` (a service behind a proxy that adds one builds its links
 * without it, `/api/v1/...` where we call `/prefix/api/v1/...`).
 */
export function nextPageUrl(first: URL, next: string | number): string {
  if (typeof next === 'number' || /^\d+$/.test(next)) {
    const url = new URL(first);
    url.searchParams.set('page', String(next));
    return url.toString();
  }
  const resolved = new URL(next, first);
  const apiRoot = first.pathname.slice(0, first.pathname.indexOf(`${API_PREFIX}/`) + API_PREFIX.length + 1);
  const sameService =
    resolved.origin === first.origin &&
    resolved.protocol === first.protocol &&
    resolved.pathname.startsWith(apiRoot);
  if (sameService) return resolved.toString();
  const url = new URL(first);
  url.search = resolved.search;
  return url.toString();
}

/** A list call whose pages are all requests of the pipeline (each through the throttle). */
export function listOf<Item extends z.core.$ZodType>(
  transport: Transport,
  spec: {
    path: string;
    query?: RequestSpec<unknown>['query'];
    itemSchema: Item;
    options?: RequestOptions | Call | undefined;
    /** The public operation each page is a call of (`reservations.list`), unless `options` is a call already. */
    operation: string;
    /** The restaurant listed, for observers. */
    restaurantId?: number | string | undefined;
    /** Keeps only the items it returns true for. */
    filter?: ((item: z.output<Item>) => boolean) | undefined;
    /** Sees each page's items once they are validated. */
    onItems?: ((items: z.output<Item>[]) => void) | undefined;
    /** Sees each page's body as answered, before it is validated. */
    onBody?: ((body: unknown) => void) | undefined;
  },
): ListPromise<z.output<Item>> {
  const first = transport.urlFor(spec.path, spec.query);
  const fetchPage: PageFetcher<z.output<Item>> = async (cursor) => {
    const result = await transport.request({
      method: 'GET',
      url: cursor === undefined ? first.toString() : nextPageUrl(first, cursor),
      safeToRepeat: true,
      options: spec.options,
      operation: spec.operation,
      restaurantId: spec.restaurantId,
      parse: (body, _response, where) => {
        spec.onBody?.(body);
        return readPage(spec.itemSchema, body, where);
      },
    });
    const page = result.data;
    spec.onItems?.(page.items);
    return {
      data: { ...page, items: spec.filter ? page.items.filter(spec.filter) : page.items },
      response: result.response,
      callId: result.callId,
    };
  };
  return new ListPromise(fetchPage, {
    urlOf: (cursor) => (cursor === undefined ? first.toString() : nextPageUrl(first, cursor)),
    maxPages: transport.maxPages,
  });
}
