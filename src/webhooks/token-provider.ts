/**
 * Which accepted token a delivery presents: the list given at creation, or the partner's token
 * provider asked on every delivery under its time limit.
 * @module
 */
import { WebhookConfigurationError, WebhookVerificationError } from './errors.js';
import type { HeaderReader } from './headers.js';
import { hasSurroundingWhitespace, paddedTokenProblem } from './options.js';
import { withTimeLimit } from './time-limit.js';
import { matchingTokenIndex, presentedTokens, type TokenSource } from './tokens.js';

/** The accepted tokens of one delivery, and the one it presented. */
export class Verified {
  constructor(
    readonly tokens: readonly string[],
    readonly token: string,
  ) {}
}

export const NO_TOKENS: readonly string[] = [];

/** The token check of one receiver: `authenticate(readHeader)` answers the delivery's {@link Verified}, or throws. */
export function createAuthenticator(
  tokenSource: TokenSource,
  tokenHeader: string | undefined,
  tokensTimeoutMs: number,
): (readHeader: HeaderReader) => Promise<Verified> {
  async function providedTokens(
    provider: Exclude<TokenSource, readonly string[]>,
  ): Promise<readonly string[]> {
    let tokens: unknown;
    try {
      tokens = await withTimeLimit(
        provider,
        tokensTimeoutMs,
        () =>
          new WebhookConfigurationError(
            `The webhook token provider did not answer within ${tokensTimeoutMs} ms (option tokensTimeoutMs)`,
          ),
      );
    } catch (error) {
      if (error instanceof WebhookConfigurationError) throw error;
      throw new WebhookConfigurationError('The webhook token provider failed', { cause: error });
    }
    if (
      !Array.isArray(tokens) ||
      tokens.length === 0 ||
      !tokens.every((token) => typeof token === 'string' && token !== '')
    ) {
      throw new WebhookConfigurationError(
        'The webhook token provider must return a non-empty list of non-empty strings',
      );
    }
    const padded = tokens.findIndex(hasSurroundingWhitespace);
    if (padded !== -1)
      throw new WebhookConfigurationError(
        `The webhook token provider returned ${paddedTokenProblem(padded)}`,
      );
    // Checked above: a list of non-empty strings.
    return tokens as string[];
  }

  /** The accepted tokens and the one the delivery presented. */
  async function authenticate(readHeader: HeaderReader): Promise<Verified> {
    const presented = presentedTokens(readHeader, tokenHeader);
    // Checked first so that token-less traffic never costs a call to the partner's secret store.
    if (presented.length === 0) throw new WebhookVerificationError('missing');
    // A list is used as it is (checked at creation).
    const tokens = typeof tokenSource === 'function' ? await providedTokens(tokenSource) : tokenSource;
    const index = matchingTokenIndex(presented, tokens);
    if (index === -1) throw new WebhookVerificationError('mismatch');
    return new Verified(tokens, tokens[index]!);
  }

  return authenticate;
}
