/**
 * "The same service", decided once. Two base URLs name the same service when they differ only in
 * spelling: the case of the host, a trailing dot or slash, a default port left out or written,
 * or which loopback name (`localhost`, `127.0.0.1`, `[::1]`) points at this machine. The shared
 * rate limit, the booking ledger and the fake's hold on every client all key on it, so a client
 * given `http://localhost:8080/` and one given `http://127.0.0.1:8080` share one budget and one
 * ledger.
 * @module
 */

/**
 * Loopback host names as `URL#hostname` spells them: `localhost` (with or without its trailing
 * dot), 127.0.0.0/8, `[::1]`, and IPv4-mapped 127.0.0.0/8 (which `URL` writes in hex).
 */
const LOOPBACK_HOSTS =
  /^(?:localhost\.?|127(?:\.\d{1,3}){3}|\[::1\]|\[::ffff:127(?:\.\d{1,3}){3}\]|\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\])$/i;
const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/** Whether `hostname` (as `URL#hostname` gives it) names this machine. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.test(hostname);
}

const toUrl = (baseUrl: string | URL): URL => (typeof baseUrl === 'string' ? new URL(baseUrl) : baseUrl);

/**
 * The server a URL reaches: scheme, host (lower case, no trailing dot, every loopback name as
 * `loopback`) and port (the default written out). A fake answers on a whole origin, so this is
 * what a fake's hold on clients keys on.
 */
export function serviceOrigin(baseUrl: string | URL): string {
  const url = toUrl(baseUrl);
  const host = isLoopbackHost(url.hostname) ? 'loopback' : url.hostname.toLowerCase().replace(/\.$/, '');
  const port = url.port || DEFAULT_PORTS[url.protocol] || '';
  return `${url.protocol}//${host}:${port}`;
}

/**
 * The service a base URL designates: its {@link serviceOrigin} and its path prefix without
 * trailing slashes (two sandboxes of one fake server are two services). Clients of the same
 * partner on the same service share one rate limit and one booking ledger.
 */
export function serviceOf(baseUrl: string | URL): string {
  const url = toUrl(baseUrl);
  return `${serviceOrigin(url)}${url.pathname.replace(/\/+$/, '')}`;
}
