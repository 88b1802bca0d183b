/**
 * HTTP Basic credentials as the service reads them, written once for the whole of test/ (the
 * `Authorization` header a test sends by hand, and the encoded form a leak check searches for).
 * test/house/doubles.test.ts fails when another file encodes them itself.
 */

/** The base64 of `user:password` in UTF-8: what a Basic header carries, and what must never leak. */
export function basicCredentials(user: string, password: string): string {
  return Buffer.from(`${user}:${password}`, 'utf8').toString('base64');
}

/** The `Authorization` value of HTTP Basic auth: a partner id and its API token, as the client sends them. */
export function basicAuthorization(user: string, password: string): string {
  return `Basic ${basicCredentials(user, password)}`;
}
