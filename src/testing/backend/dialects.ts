/**
 * Dialect switches: one per point the interface spec leaves open (README, "Where the interface spec is silent"), so a
 * partner can prove its code survives every plausible answer of the live service.
 * @module
 */

/** How the fake answers where the spec is silent. Every key is optional; defaults are marked. */
export interface Dialect {
  /** Reservation list: `envelope` (default) `{count, next, previous, results}` paged by `page`/`page_size`, or a bare `array` of every item. */
  list: 'envelope' | 'array';
  /** Profile retrieve: one `object` (default, as the spec's example) or a one-element `list` (as the spec's prose). */
  profile: 'object' | 'list';
  /** Reservation `duration`: `iso` (default, `PT2H`) or `hms` (`02:00:00`, the spec's example). */
  duration: 'iso' | 'hms';
  /** Status of a successful reservation or webhook creation: 201 (default) or 200. */
  createStatus: 201 | 200;
  /** Status of a successful webhook deletion: 204 (default) or 200 (both without a body). */
  deleteStatus: 204 | 200;
  /** Cancel answer: `reservation` (default, 200 with the reservation) or `empty` (204, no body). */
  cancelBody: 'reservation' | 'empty';
  /** Envelope `next`/`previous` links: `absolute` (default) URLs or `relative` (path and query). */
  pageLinks: 'absolute' | 'relative';
  /**
   * `Idempotency-Key` on reservation creates: `honoured` (default; the same key and body replay
   * the first answer) or `ignored` (every POST books anew whatever the header says, as a service
   * that does not know the header would).
   */
  idempotencyKey: 'honoured' | 'ignored';
}

/** The default dialect: the most likely behaviour of the live service. */
export const defaultDialect: Readonly<Dialect> = Object.freeze({
  list: 'envelope',
  profile: 'object',
  duration: 'iso',
  createStatus: 201,
  deleteStatus: 204,
  cancelBody: 'reservation',
  pageLinks: 'absolute',
  idempotencyKey: 'honoured',
});

/** Every dialect key with its values, the default first (`--help` and the README are made from it). */
export const DIALECT_VALUES: { readonly [Key in keyof Dialect]: readonly Dialect[Key][] } = {
  list: ['envelope', 'array'],
  profile: ['object', 'list'],
  duration: ['iso', 'hms'],
  createStatus: [201, 200],
  deleteStatus: [204, 200],
  cancelBody: ['reservation', 'empty'],
  pageLinks: ['absolute', 'relative'],
  idempotencyKey: ['honoured', 'ignored'],
};

/** What each key decides, for `--help`-like listings and the README. */
export const DIALECT_DESCRIPTIONS: { readonly [Key in keyof Dialect]: string } = {
  list: 'reservation list: `{count, next, previous, results}` paged by `page`/`page_size`, or a bare array of every item',
  profile: "profile: one object (the spec's example) or a one-element list (the spec's prose)",
  duration: 'reservation `duration`: `PT2H` or `02:00:00`',
  createStatus: 'status of a successful reservation or webhook create',
  deleteStatus: 'status of a webhook delete (no body either way)',
  cancelBody: 'cancel answer: 200 with the reservation, or 204 without a body',
  pageLinks: 'envelope `next`/`previous`: absolute URLs or path and query',
  idempotencyKey:
    '`Idempotency-Key` on creates: the same key and body replay the first answer, or every POST books anew',
};

/**
 * Checks a partial dialect (values may be strings, as from the command line) and fills the
 * defaults. Throws a RangeError naming the key and the allowed values.
 */
export function resolveDialect(input: Partial<Record<keyof Dialect, unknown>> = {}): Dialect {
  const dialect: Record<string, unknown> = { ...defaultDialect };
  for (const [key, raw] of Object.entries(input)) {
    if (raw === undefined) continue;
    const allowed = (DIALECT_VALUES as Record<string, readonly unknown[]>)[key];
    if (!allowed) {
      throw new RangeError(
        `unknown dialect key "${key}"; known keys: ${Object.keys(DIALECT_VALUES).join(', ')}`,
      );
    }
    const value = allowed.find((candidate) => String(candidate) === String(raw));
    if (value === undefined) {
      throw new RangeError(`dialect ${key} must be one of ${allowed.join(', ')} (got "${String(raw)}")`);
    }
    dialect[key] = value;
  }
  return dialect as unknown as Dialect;
}

/** Parses command-line `key=value` pairs into a dialect. */
export function parseDialectArguments(pairs: readonly string[]): Dialect {
  const input: Record<string, string> = {};
  for (const pair of pairs) {
    const separator = pair.indexOf('=');
    if (separator <= 0) throw new RangeError(`--dialect expects key=value (got "${pair}")`);
    input[pair.slice(0, separator)] = pair.slice(separator + 1);
  }
  return resolveDialect(input as Partial<Record<keyof Dialect, unknown>>);
}
