/**
 * A bound on how deeply JSON may nest, checked before `JSON.parse`. A body within any byte limit
 * can nest millions of levels (`[[[[...` is one level per byte): `JSON.parse` then builds millions
 * of nested values, about 70 bytes of memory per byte of body (a 9 MiB answer peaked at 700 MB),
 * and anything that later walks the value recursively overflows the stack. The scan is linear,
 * one pass without recursion or allocation, and costs a few milliseconds per MiB.
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
 * Whether JSON `text` nests objects and arrays deeper than `limit`. Brackets inside strings do
 * not count (escapes are skipped, so `"\""` ends where JSON says). Text that is not JSON is
 * scanned the same way: the parser refuses it afterwards.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      // A backslash escapes the next character (`\"` does not end the string, `\\` is one).
      if (char === 0x5c) index++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) {
      if (++depth > limit) return true;
    } else if (char === 0x7d || char === 0x5d) depth--;
  }
  return false;
}
