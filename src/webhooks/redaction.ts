/**
 * Keeping webhook tokens out of what the receiver logs and reports.
 * @module
 */
import {
  rememberedWebhookTokens,
  rememberedWebhookTokensVersion,
  secretsPattern,
} from '../transport/secrets.js';

// The pattern of the last token list seen: the list rarely changes, and redacting is for refusals only.
let redaction: { tokens: readonly string[]; key: string; version: number; pattern: RegExp | undefined } = {
  tokens: [],
  key: '',
  version: -1,
  pattern: undefined,
};

/**
 * `text` without the accepted tokens, nor any webhook token the client read from the service, in
 * any letter case, percent-encoded or JSON-escaped (a handler's error may quote a token as a URL
 * or a JSON body quoted it). Accepted tokens are redacted whatever their length: they are known
 * to be secrets.
 */
export const redactTokens = (text: string, tokens: readonly string[]): string => {
  const version = rememberedWebhookTokensVersion();
  if (redaction.tokens !== tokens || redaction.version !== version) {
    const key = tokens.join('\n');
    if (redaction.key !== key || redaction.version !== version) {
      redaction = {
        tokens,
        key,
        version,
        pattern: secretsPattern([...tokens, ...rememberedWebhookTokens()], 1),
      };
    } else redaction = { ...redaction, tokens };
  }
  return redaction.pattern ? text.replace(redaction.pattern, '[redacted]') : text;
};
