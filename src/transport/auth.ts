/**
 * HTTP Basic authentication (spec: "Authorization: Basic <base64(uuid:token)>"). The header value
 * lives only inside this closure: nothing else in the SDK can read it back, so it cannot leak
 * through an object dump. What a server echoes back is scrubbed by value in `secrets.ts`.
 * @module
 */

/** Builds the Authorization header on demand; exposes nothing else. */
export interface BasicAuth {
  /** The `Authorization` header value. */
  header(): string;
}

/** Base64 of the UTF-8 bytes of `text` (the Basic credential's encoding). */
export function base64(text: string): string {
  // btoa takes Latin-1 only; encode as UTF-8 first so any partner id or token survives.
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Creates the Basic credentials of one partner. */
export function createBasicAuth(partnerId: string, apiToken: string): BasicAuth {
  const value = `Basic ${base64(`${partnerId}:${apiToken}`)}`;
  return { header: () => value };
}
