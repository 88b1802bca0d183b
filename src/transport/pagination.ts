/**
 * List results. The spec does not say how lists are paged, so a page may be a bare array (the
 * whole list) or a `{count, next, previous, results}` envelope whose `next` is followed. Every
 * page is its own request and passes the throttle like any other; a list reads at most
 * `maxPages` pages and never the same page twice.
 * @module
 */
import { PartnerSdkError, ResponseValidationError } from '../errors.js';
import { ApiPromise, type WithResponse } from './api-promise.js';

/** One page of a list. */
export interface Page<Item> {
  /** Items of this page. */
  readonly items: Item[];
  /** The same array as `items`, under the name openai-node gives a page's items. */
  readonly data: Item[];
  /** Total count when the service gives one (envelope form). */
  readonly count: number | undefined;
  /** The id of the call that read this page, as `callId` in log lines, hook events and spans. */
  readonly callId: string | undefined;
  /** True when another page follows. */
  hasNextPage(): boolean;
  /** Fetches the next page; rejects with a {@link PartnerSdkError} when there is none (see `hasNextPage()`). */
  getNextPage(): Promise<Page<Item>>;
}

/** How the transport fetches one page: `cursor` is undefined for the first page, else the `next` value. */
export type PageFetcher<Item> = (
  cursor: string | number | undefined,
) => Promise<WithResponse<{ items: Item[]; count?: number | undefined; next: string | number | null }>>;

/** What bounds a list: the URL each cursor designates (to see a loop) and the most pages to read. */
export interface PageLimits {
  /** The URL of the page a cursor designates; undefined for the first page. */
  urlOf(cursor: string | number | undefined): string;
  maxPages: number;
}

const unbounded: PageLimits = { urlOf: (cursor) => String(cursor ?? ''), maxPages: Number.POSITIVE_INFINITY };

function pagingError(code: string, message: string): ResponseValidationError {
  return new ResponseValidationError([{ field: 'next', path: ['next'], code, message }]);
}

function buildPage<Item>(
  fetchPage: PageFetcher<Item>,
  result: Awaited<ReturnType<PageFetcher<Item>>>,
  read: readonly string[],
  limits: PageLimits,
): Page<Item> {
  const { items, count, next } = result.data;
  const hasNext = next != null;
  const page = {
    items,
    count,
    callId: result.callId,
    hasNextPage: () => hasNext,
    async getNextPage() {
      // An SDK error, as openai-node throws, so one `catch (error instanceof PartnerSdkError)` covers it.
      if (!hasNext)
        throw new PartnerSdkError(
          'There is no next page: check page.hasNextPage() before calling page.getNextPage()',
        );
      // A `next` that leads back to a page already read (the first one included) would loop
      // forever, and one that never ends would too: both fail the list rather than repeat or
      // silently cut it, so nobody mistakes a partial list for the whole.
      const url = limits.urlOf(next);
      if (read.includes(url))
        throw pagingError(
          'pagination_loop',
          `the next link leads back to page ${read.indexOf(url) + 1}, already read`,
        );
      if (read.length >= limits.maxPages)
        throw pagingError('too_many_pages', `the list has more than ${limits.maxPages} pages (maxPages)`);
      const nextResult = await fetchPage(next);
      return buildPage(fetchPage, nextResult, [...read, url], limits);
    },
  };
  // Not enumerable, so a logged or serialised page shows its items once.
  return Object.defineProperty(page, 'data', { value: items, enumerable: false }) as Page<Item>;
}

/**
 * A list call. Await it for the first page, iterate it with `for await` for every item across
 * pages, or collect everything with `.toArray()`.
 *
 * @example
 * ```ts
 * for await (const reservation of client.reservations.list(restaurantId)) console.log(reservation.id);
 * const all = await client.restaurants.list().toArray();
 * const firstPage = await client.reservations.list(restaurantId); // firstPage.items
 * ```
 */
export class ListPromise<Item> extends ApiPromise<Page<Item>> implements AsyncIterable<Item> {
  constructor(fetchPage: PageFetcher<Item>, limits: PageLimits = unbounded) {
    super(
      fetchPage(undefined).then((result) => ({
        data: buildPage(fetchPage, result, [limits.urlOf(undefined)], limits),
        response: result.response,
        callId: result.callId,
      })),
    );
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Item> {
    let page: Page<Item> = await this;
    for (;;) {
      yield* page.items;
      if (!page.hasNextPage()) return;
      page = await page.getNextPage();
    }
  }

  /** Every item of every page, in order. */
  async toArray(): Promise<Item[]> {
    const all: Item[] = [];
    for await (const item of this) all.push(item);
    return all;
  }
}
