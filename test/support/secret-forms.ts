/**
 * The forms a secret can travel in when a server or a handler echoes it: each letter case,
 * percent-encoded by each encoder (and with lower-case hex), serialized by `new URL()` (which
 * escapes `"` but keeps `\` in a query), and JSON-escaped once and twice. A test holds every text
 * the SDK showed against each of them.
 */
export function secretForms(secret: string): string[] {
  const encoded = encodeURIComponent(secret);
  const inQuery = new URL(`https://echo.test/?t=${secret}`).search.slice(3);
  const inJson = JSON.stringify(secret).slice(1, -1);
  const inJsonTwice = JSON.stringify(JSON.stringify(secret)).slice(2, -2);
  return [
    ...new Set([
      secret,
      secret.toLowerCase(),
      secret.toUpperCase(),
      encoded,
      encoded.toLowerCase(),
      encoded.toUpperCase(),
      new URLSearchParams({ t: secret }).toString().slice(2),
      inQuery,
      inJson,
      inJsonTwice,
      inJson.toUpperCase(),
    ]),
  ];
}

/** Every form of `secret` found in `text`, ignoring letter case (empty when none). */
export function secretFormsIn(text: string, secret: string): string[] {
  const lower = text.toLowerCase();
  return secretForms(secret).filter((form) => lower.includes(form.toLowerCase()));
}
