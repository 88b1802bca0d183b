/**
 * One way to read request headers, whatever the framework hands over: a fetch `Headers`, a
 * Map-like object with `get`, or a plain object such as node's `IncomingHttpHeaders` (with
 * `string[]` values for repeated headers).
 * @module
 */

/**
 * Headers as a fetch `Headers`, a `Map` (any case of names), an object with `get`, or a plain
 * object (node's `req.headers`). Names are read case-insensitively in every shape.
 */
export type HeadersInput =
  | Headers
  | { get(name: string): string | string[] | null | undefined }
  | Record<string, string | string[] | number | undefined | null>;

/** Reads every value of a header, whatever its case in the request; asked by its lower-case name. */
export type HeaderReader = (lowerCaseName: string) => string[];

// Only text and numbers are header values; anything else a framework put there is ignored.
const flatten = (value: unknown): string[] => {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number') return [String(value)];
  if (Array.isArray(value)) return value.flatMap(flatten);
  return [];
};

/** Builds a case-insensitive reader over any supported headers shape. */
export function readHeaders(headers: HeadersInput | undefined | null): HeaderReader {
  if (!headers) return () => [];
  const isFetchHeaders = typeof Headers !== 'undefined' && headers instanceof Headers;
  // A Map (or any iterable of [name, value] pairs) keeps its keys' case: index it by lower-case name.
  if (
    !isFetchHeaders &&
    typeof (headers as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function'
  ) {
    return indexByLowerName(headers as Iterable<[unknown, unknown]>);
  }
  if (typeof (headers as { get?: unknown }).get === 'function') {
    const source = headers as { get(name: string): unknown };
    // A fetch Headers reads any case; another `get` is tried lower-case and as given.
    return (name) => {
      const lower = name.toLowerCase();
      const value = source.get(lower) ?? (lower === name ? undefined : source.get(name));
      return flatten(value);
    };
  }
  const record = headers as Record<string, unknown>;
  // node's `req.headers` has lower-case names only: read them directly, without building an index
  // for every delivery. Any other casing gets the index.
  for (const name in record) {
    if (name !== name.toLowerCase()) return indexByLowerName(Object.entries(record));
  }
  return (name) => (Object.hasOwn(record, name) ? flatten(record[name]) : []);
}

function indexByLowerName(entries: Iterable<[unknown, unknown]>): HeaderReader {
  const byLowerName = new Map<string, unknown[]>();
  for (const entry of entries) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string') continue;
    const lower = entry[0].toLowerCase();
    byLowerName.set(lower, [...(byLowerName.get(lower) ?? []), entry[1]]);
  }
  return (name) => flatten(byLowerName.get(name));
}
