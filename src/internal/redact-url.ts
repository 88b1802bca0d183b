/**
 * A URL made safe for messages, logs and hook payloads.
 * @module
 */

const SECRET_QUERY_KEY = /token|secret|password|passwd|auth|key|signature|credential/i;

/**
 * The URL with userinfo removed and the values of secret-looking query parameters replaced, so
 * it can go into messages, logs and hook payloads.
 */
export function redactUrl(url: string | URL): string {
  // Every call redacts its URL for errors and hooks; the common case has nothing to hide and is
  // already parsed, so it costs no second parse.
  if (url instanceof URL && !url.username && !url.password && !hasSecretQueryKey(url)) return url.href;
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    return '[unparseable URL]';
  }
  if (parsed.username || parsed.password) {
    parsed.username = '';
    parsed.password = '';
  }
  for (const key of [...new Set(parsed.searchParams.keys())]) {
    if (SECRET_QUERY_KEY.test(key)) parsed.searchParams.set(key, 'REDACTED');
  }
  return parsed.toString();
}

function hasSecretQueryKey(url: URL): boolean {
  for (const key of url.searchParams.keys()) if (SECRET_QUERY_KEY.test(key)) return true;
  return false;
}
