/**
 * Finding the token a delivery presents, and comparing it in constant time with Web Crypto only
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

const encoder = new TextEncoder();
const digest = async (value: string): Promise<Uint8Array> =>
  new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(value)));

/**
 * True when one of `presented` equals one of `accepted`. Both sides are hashed first, so the
 * comparison always runs over 32 bytes (the length of a token is not revealed), and every pair is
 * compared to the end without an early exit.
 */
export async function matchesAnyToken(presented: readonly string[], accepted: readonly string[]): Promise<boolean> {
  const [presentedDigests, acceptedDigests] = await Promise.all([
    Promise.all(presented.map(digest)),
    Promise.all(accepted.map(digest)),
  ]);
  let matched = 0;
  for (const left of presentedDigests) {
    for (const right of acceptedDigests) {
      let difference = 0;
      for (let index = 0; index < left.length; index += 1) difference |= left[index]! ^ right[index]!;
      matched |= difference === 0 ? 1 : 0;
    }
  }
  return matched === 1;
}
