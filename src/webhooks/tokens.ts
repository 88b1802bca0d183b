/**
 * Finding the token a delivery presents, and comparing it in constant time with plain JavaScript
 * (no `node:crypto`: the receiver's core runs on edge runtimes, Deno and Bun too).
 * @module
 */
import type { HeaderReader } from './headers.js';

/** The accepted tokens: a list, or a function asked once per delivery (for rotation). */
export type TokenSource = readonly string[] | (() => readonly string[] | Promise<readonly string[]>);

// The spec does not say how the token is presented (Authentication, point 5). `Bearer` is what the
// fake sends; `Token` is Django REST framework's scheme, a plausible choice of the live service.
const AUTHORIZATION_SCHEME = /^(?:bearer|token)\s+(\S+)\s*$/i;
// A bare token with no scheme (`Authorization: <t>`, as some services send): one word, no spaces.
const BARE_TOKEN = /^\S+$/;

/**
 * Every token the request presents: from `Authorization: Bearer <t>` (or `Token <t>`, or the bare
 * token with no scheme) and from the configured token header (its raw value, or a `Bearer <t>`
 * value). Another scheme (`Basic ...`) presents no token.
 */
export function presentedTokens(readHeader: HeaderReader, tokenHeader: string | undefined): string[] {
  const tokens: string[] = [];
  for (const value of readHeader('authorization')) {
    const trimmed = value.trim();
    const match = AUTHORIZATION_SCHEME.exec(trimmed);
    if (match?.[1]) tokens.push(match[1]);
    else if (BARE_TOKEN.test(trimmed)) tokens.push(trimmed);
  }
  if (tokenHeader) {
    for (const value of readHeader(tokenHeader)) {
      const trimmed = value.trim();
      const match = AUTHORIZATION_SCHEME.exec(trimmed);
      const token = match?.[1] ?? trimmed;
      if (token) tokens.push(token);
    }
  }
  return tokens;
}

/**
 * The index in `accepted` of the token one of `presented` equals, or -1. Every pair is compared
 * to the end of the presented token, without an early exit, and the accepted token is read
 * cyclically (`index % length`), so the time taken depends on the presented tokens only: neither
 * the content nor the length of an accepted token shows in it. No hashing: this runs on every
 * delivery and must stay cheap.
 */
export function matchingTokenIndex(presented: readonly string[], accepted: readonly string[]): number {
  let found = -1;
  for (const left of presented) {
    for (let index = 0; index < accepted.length; index += 1) {
      const right = accepted[index]!;
      // Lengths differ: not equal, whatever the characters say (the loop still runs to the end).
      let difference = left.length ^ right.length;
      for (let position = 0; position < left.length; position += 1) {
        difference |= left.charCodeAt(position) ^ right.charCodeAt(position % right.length);
      }
      // 1 when difference is 0, else 0, without a branch on the secret.
      const equal = ((difference | -difference) >>> 31) ^ 1;
      found += (index - found) * equal;
    }
  }
  return found;
}
