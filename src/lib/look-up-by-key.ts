/**
 * The look-up by idempotency key: does a reservation carrying the key exist? It reads the whole
 * list of the restaurant's reservations (the partner's own), and says "absent" only when two
 * complete reads agree; anything else it cannot tell.
 * @module
 */
import { ResponseValidationError } from '../errors.js';
import type { ApiPromise } from '../transport/api-promise.js';
import type { ListPromise } from '../transport/pagination.js';
import type { Call, RequestOptions } from '../transport/transport.js';
import type { Reservation, ReservationListFilters } from '../resources/reservations.schemas.js';

/**
 * The `metadata` key under which every create stores its idempotency key, so the reservation can
 * be found again after a failure that left its fate unknown.
 */
export const IDEMPOTENCY_METADATA_KEY = 'restaurant_partner_sdk.idempotency_key';

/** Most reads of the whole list one look-up makes, waiting for two that agree. */
const MAX_PASSES = 3;
/**
 * The page size a look-up asks for: the most the service is known to give (the fake clamps larger
 * ones to it), so a restaurant with n of your bookings costs ceil(n / 100) requests a read.
 */
export const LOOK_UP_PAGE_SIZE = 100;
/**
 * A list without counts whose last page holds this many items (or as many as its first page) may
 * have been cut short by the server: the look-up cannot tell. The service's page size is not
 * documented; 50 is the most common default.
 */
const COUNTLESS_FULL_PAGE = 50;

/** The reads of the reservations resource a create and a look-up use. */
export interface ReservationReads {
  list(
    restaurantId: number | string,
    filters?: ReservationListFilters,
    options?: RequestOptions,
  ): ListPromise<Reservation>;
  retrieve(
    restaurantId: number | string,
    id: number | string,
    options?: RequestOptions,
  ): ApiPromise<Reservation>;
}

/** What a look-up by key can tell: found, absent (a complete and consistent read), or it cannot tell. */
export type LookUp =
  { state: 'found'; reservation: Reservation } | { state: 'absent' } | { state: 'unknown'; cause: unknown };

/** One read of the whole list for a key, and whether it saw a stable list. */
type Pass =
  | { state: 'found'; reservation: Reservation }
  | {
      state: 'read';
      /** Every page consistent with the others and the list not cut short. */
      complete: boolean;
      /** The ids read, sorted: two reads agree when they list the same reservations. */
      ids: string[];
      /** How many pages the read took: one page is one answer, which cannot shift while it is read. */
      pages: number;
      why: { code: string; message: string } | undefined;
    };

async function readPass(
  reads: ReservationReads,
  rid: number | string,
  key: string,
  call: Call,
  afterSend: boolean,
): Promise<Pass> {
  let page = await reads.list(rid, { page_size: LOOK_UP_PAGE_SIZE }, call);
  const counts: (number | undefined)[] = [];
  const sizes: number[] = [];
  const ids: string[] = [];
  const seenIds = new Set<string>();
  let duplicate = false;
  // Whether the list shows `metadata` at all: a list that leaves it out cannot show the key.
  let showsMetadata = false;
  for (;;) {
    counts.push(page.count);
    sizes.push(page.items.length);
    for (const reservation of page.items) {
      const id = String(reservation.id);
      // A reservation read twice: the list moved between pages, or a page came back under another URL.
      if (seenIds.has(id)) duplicate = true;
      // After this client's own create may have committed (with its metadata), a list where no
      // reservation carries any (a list view that drops it) cannot show the key. Before any send,
      // such a list is a partner's bookings made without metadata: nothing to tell from it.
      if (!afterSend || reservation.metadata != null) showsMetadata = true;
      seenIds.add(id);
      ids.push(id);
      if (reservation.metadata?.[IDEMPOTENCY_METADATA_KEY] === key) return { state: 'found', reservation };
    }
    if (!page.hasNextPage()) break;
    page = await page.getNextPage();
  }
  const counted = counts.every((count) => count !== undefined);
  const sameCount = counted && counts.every((count) => count === counts[0]);
  const count = counts[0];
  let why: { code: string; message: string } | undefined;
  if (duplicate) why = { code: 'pagination_repeat', message: 'a reservation was listed twice' };
  else if (ids.length > 0 && !showsMetadata)
    why = {
      code: 'list_without_metadata',
      message: 'no reservation in the list shows its metadata, so the list cannot show the key',
    };
  else if (!counted && counts.some((each) => each !== undefined))
    why = { code: 'list_without_count', message: 'some pages report no count' };
  else if (counted && !sameCount)
    why = {
      code: 'list_changed',
      message: `the count changed while the pages were read (${counts.join(', ')})`,
    };
  else if (count !== undefined && ids.length !== count)
    why = {
      code: 'list_ended_early',
      message: `the list ended after ${ids.length} of ${count} reservations`,
    };
  else if (counts.every((each) => each === undefined) && cutShort(sizes))
    why = {
      code: 'list_maybe_cut_short',
      message: `the list reports no count and its last page is full (${sizes.at(-1)} reservations), so it may have been cut short`,
    };
  return { state: 'read', complete: why === undefined, ids: ids.sort(), pages: sizes.length, why };
}

/** Whether a list without counts may have been cut short: its last page is as full as a page gets. */
function cutShort(sizes: number[]): boolean {
  const last = sizes.at(-1) ?? 0;
  return (
    last > 0 && last >= Math.min(COUNTLESS_FULL_PAGE, sizes.length > 1 ? sizes[0]! : COUNTLESS_FULL_PAGE)
  );
}

/**
 * Looks one key up, read after read: each {@link KeySearch.look} reads the whole list once. It
 * answers "absent" only when this read and the one before it each read the whole list
 * consistently and list the same reservations: a list that shifted between pages (an item leaving
 * page 1 as another arrives, the count unchanged) shows as two reads that disagree. A listing that
 * loops, runs past its page limit or fails means "cannot tell", never "absent".
 */
export class KeySearch {
  readonly #reads: ReservationReads;
  readonly #rid: number | string;
  readonly #key: string;
  readonly #call: Call;
  readonly #afterSend: boolean;
  #last: Extract<Pass, { state: 'read' }> | undefined;

  /** `afterSend`: this client's create with the key may have committed (see {@link readPass}). */
  constructor(reads: ReservationReads, rid: number | string, key: string, call: Call, afterSend = false) {
    this.#reads = reads;
    this.#rid = rid;
    this.#key = key;
    this.#call = call;
    this.#afterSend = afterSend;
  }

  /** One more read. `final` says whether another read could change the answer. */
  async look(): Promise<LookUp & { final: boolean }> {
    let pass: Pass;
    try {
      pass = await readPass(this.#reads, this.#rid, this.#key, this.#call, this.#afterSend);
    } catch (error) {
      this.#last = undefined;
      return { state: 'unknown', cause: error, final: true };
    }
    if (pass.state === 'found') return { ...pass, final: true };
    const before = this.#last;
    this.#last = pass;
    if (pass.complete && before?.complete && before.ids.join(',') === pass.ids.join(','))
      return { state: 'absent', final: true };
    // Before any send, a list answered whole in one page is one snapshot: nothing in it can have
    // shifted between pages, so one read tells. After a send, reads spread over time must agree.
    if (pass.complete && pass.pages === 1 && !this.#afterSend) return { state: 'absent', final: true };
    const message = !pass.complete
      ? (pass.why?.message ?? 'the list could not be read whole')
      : before === undefined
        ? 'one read of the list is not enough to say the key is absent'
        : !before.complete
          ? `the read before could not see the whole list (${before.why?.message ?? 'incomplete'})`
          : 'two reads of the list listed other reservations';
    return {
      state: 'unknown',
      final: false,
      cause: new ResponseValidationError([
        {
          field: 'count',
          path: ['count'],
          code: pass.why?.code ?? 'list_changed',
          message: `the list could not be read whole and consistently: ${message}`,
        },
      ]),
    };
  }
}

/** Reads the list for the key until two reads agree (at most three): found, absent or cannot tell. */
export async function lookUpByKey(
  reads: ReservationReads,
  rid: number | string,
  key: string,
  call: Call,
): Promise<LookUp> {
  const search = new KeySearch(reads, rid, key, call);
  let result: LookUp & { final: boolean } = { state: 'unknown', cause: undefined, final: false };
  for (let pass = 0; pass < MAX_PASSES && !result.final; pass++) result = await search.look();
  const { final: _final, ...answer } = result;
  return answer;
}
