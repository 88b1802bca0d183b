/**
 * The request journal: what one fake world received and answered, oldest first, bounded, with
 * nothing secret in it (no header is kept; query values whose names suggest a secret are hidden).
 * @module
 */

/** One request as the journal shows it (`fake.requests`, `GET /_fake/requests`). */
export interface JournalEntry {
  /** Sequence number in this world, from 1. */
  sequence: number;
  /** Time of the answer on the fake's clock (ISO 8601, UTC). */
  at: string;
  method: string;
  /** Path and query as received (secret-looking query values replaced by `[redacted]`). */
  path: string;
  /** Status answered, or null when the connection was dropped (an injected network error). */
  status: number | null;
  /** `partner` for the partner API, `control` for `/_fake/`, `other` for anything else. */
  face: 'partner' | 'control' | 'other';
  /** The partner API operation (`reservations.create`, ...), when the path named one. */
  operation: string | null;
  /** The authenticated partner's id (the Basic username, never the token), when authentication passed. */
  partnerId: string | null;
}

/** Default number of entries kept per world. */
export const DEFAULT_JOURNAL_LIMIT = 500;

const SECRET_NAME = /token|secret|password|passwd|key|auth|signature|credential/i;

/** The path and query of `url`, secret-looking query values hidden. */
export function redactedPath(url: URL): string {
  if (url.search === '' || !SECRET_NAME.test(url.search)) return `${url.pathname}${url.search}`;
  const query = new URLSearchParams(url.search);
  for (const name of new Set(query.keys())) if (SECRET_NAME.test(name)) query.set(name, '[redacted]');
  return `${url.pathname}?${query.toString()}`;
}

/** A ring of the latest entries. */
export class Journal {
  #entries: (Omit<JournalEntry, 'at'> & { at: number })[] = [];
  #sequence = 0;

  constructor(readonly limit = DEFAULT_JOURNAL_LIMIT) {}

  /** Records a request; `at` is epoch milliseconds on the fake's clock (formatted when read). */
  record(entry: Omit<JournalEntry, 'sequence' | 'at'> & { at: number }): void {
    this.#entries.push({ sequence: ++this.#sequence, ...entry });
    // Dropped in batches, so a full journal does not shift its array on every request.
    if (this.#entries.length > this.limit * 1.25) this.#entries.splice(0, this.#entries.length - this.limit);
  }

  /** A copy, oldest first. */
  get entries(): JournalEntry[] {
    return this.#entries
      .slice(-this.limit)
      .map((entry) => ({ ...entry, at: new Date(entry.at).toISOString() }));
  }

  clear(): void {
    this.#entries = [];
  }
}
