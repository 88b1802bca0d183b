/**
 * Secret-named fields of an answer body, redacted before the body is kept on an error.
 * @module
 */

// Names under which an answer may carry a secret: a webhook's token (the spec does not name its
// field, so every name the client reads it from) or a credential echoed back.
const SECRET_FIELD = /^(?:auth_?token|authToken|token|secret|api_?token|apiToken|password)$/i;

// Deeper parts of a body are dropped rather than walked: a hostile answer must not overflow the stack.
const MAX_REDACTION_DEPTH = 64;

/** A copy of `value` with the values of secret-named fields replaced, for bodies kept on errors. */
export function redactSecretFields(value: unknown, seen = new WeakSet<object>(), depth = 0): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_REDACTION_DEPTH) return '[Truncated]';
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => redactSecretFields(item, seen, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value))
    copy[key] =
      SECRET_FIELD.test(key) && item != null ? '[REDACTED]' : redactSecretFields(item, seen, depth + 1);
  return copy;
}
