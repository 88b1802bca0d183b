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

const allowedValues: { [Key in keyof Dialect]: readonly Dialect[Key][] } = {
  list: ['envelope', 'array'],
  profile: ['object', 'list'],
  duration: ['iso', 'hms'],
  createStatus: [201, 200],
  deleteStatus: [204, 200],
  cancelBody: ['reservation', 'empty'],
  pageLinks: ['absolute', 'relative'],
  idempotencyKey: ['honoured', 'ignored'],
};

/**
 * Checks a partial dialect (values may be strings, as from the command line) and fills the
 * defaults. Throws a RangeError naming the key and the allowed values.
 */
export function resolveDialect(input: Partial<Record<keyof Dialect, unknown>> = {}): Dialect {
  const dialect: Record<string, unknown> = { ...defaultDialect };
  for (const [key, raw] of Object.entries(input)) {
    if (raw === undefined) continue;
    const allowed = (allowedValues as Record<string, readonly unknown[]>)[key];
    if (!allowed) {
      throw new RangeError(`unknown dialect key "${key}"; known keys: ${Object.keys(allowedValues).join(', ')}`);
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
