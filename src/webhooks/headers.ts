/**
 * One way to read request headers, whatever the framework hands over: a fetch `Headers`, a
 * Map-like object with `get`, or a plain object such as node's `IncomingHttpHeaders` (with
 * `string[]` values for repeated headers).
 * @module
 */

/** Headers as a fetch `Headers`, a `Map`-like object, or a plain object (node's `req.headers`). */
export type HeadersInput =
  | Headers
  | { get(name: string): string | string[] | null | undefined }
  | Record<string, string | string[] | number | undefined | null>;

/** Reads every value of a header, case-insensitively. */
export type HeaderReader = (name: string) => string[];

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
  if (typeof (headers as { get?: unknown }).get === 'function') {
    const source = headers as { get(name: string): unknown };
    // A Map keeps its keys' case, so try the lower-case spelling and the name as given.
    return (name) => {
      const lower = name.toLowerCase();
      const value = source.get(lower) ?? (lower === name ? undefined : source.get(name));
      return flatten(value);
    };
  }
  const byLowerName = new Map<string, unknown[]>();
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    const lower = key.toLowerCase();
    byLowerName.set(lower, [...(byLowerName.get(lower) ?? []), value]);
  }
  return (name) => flatten(byLowerName.get(name.toLowerCase()));
}
