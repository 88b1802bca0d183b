/**
 * A bound on how deeply JSON may nest, checked before `JSON.parse`. A body within any byte limit
 * can nest millions of levels (`[[[[...` is one level per byte): `JSON.parse` then builds millions
 * of nested values, about 70 bytes of memory per byte of body (a 9 MiB answer peaked at 700 MB),
 * and anything that later walks the value recursively overflows the stack. A body can also be
 * wide: 9 MiB of `[{},{},...]` is three million objects, over a gigabyte once parsed. The scan is
 * linear, one pass without recursion or allocation, and costs a few milliseconds per MiB.
 * @module
 */

/**
 * Deepest nesting of objects and arrays the fake accepts in a request body: a partner's reservation
 * `metadata` lives there, and the service's own objects nest 3 or 4 levels.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * Deepest nesting of the JSON the SDK reads: the service's answers and webhook deliveries. Above
 * {@link MAX_JSON_DEPTH}, so that a body the fake accepted, read back inside a page of reservations
 * (page, results, reservation, metadata), still reads; and low enough that the largest answer
 * allowed (`maxResponseBytes`) costs little memory.
 */
export const MAX_READ_JSON_DEPTH = 128;

/**
 * Most objects and arrays one answer or delivery the SDK reads may hold: a page of 100
 * reservations holds about 200, a bare list of every reservation of a busy restaurant some tens of
 * thousands; 200 000 empty objects parse to under 100 MB.
 */
export const MAX_READ_JSON_CONTAINERS = 200_000;

/**
 * Why JSON `text` is not read (nested deeper than {@link MAX_READ_JSON_DEPTH}, or holding more
 * than {@link MAX_READ_JSON_CONTAINERS} objects and arrays), or undefined when it may be parsed.
 */
export function unreadableJson(text: string): { code: string; message: string } | undefined {
  // One pass decides; a second, on refusal only, says why.
  if (!nestsDeeperThan(text, MAX_READ_JSON_DEPTH, MAX_READ_JSON_CONTAINERS)) return undefined;
  if (nestsDeeperThan(text, MAX_READ_JSON_DEPTH))
    return {
      code: 'too_deep',
      message: `JSON nested more than ${MAX_READ_JSON_DEPTH} levels deep: refused unparsed (the service's answers nest 3 or 4 levels)`,
    };
  return {
    code: 'too_many_values',
    message: `JSON holding more than ${MAX_READ_JSON_CONTAINERS} objects and arrays: refused unparsed`,
  };
}

/**
 * Whether JSON `text` nests objects and arrays deeper than `limit`, or holds more than
 * `maxContainers` of them. Brackets inside strings do
 * not count (escapes are skipped, so `"\""` ends where JSON says). Text that is not JSON is
 * scanned the same way: the parser refuses it afterwards.
 */
export function nestsDeeperThan(
  text: string,
  limit: number,
  maxContainers = Number.POSITIVE_INFINITY,
): boolean {
  let depth = 0;
  let containers = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      // A backslash escapes the next character (`\"` does not end the string, `\\` is one).
      if (char === 0x5c) index++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) {
      if (++depth > limit || ++containers > maxContainers) return true;
    } else if (char === 0x7d || char === 0x5d) depth--;
  }
  return false;
}
