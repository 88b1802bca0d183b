/**
 * Which accepted token a delivery presents: the list given at creation, or the partner's token
 * provider asked on every delivery under its time limit. Answers at once for a list.
 * @module
 */
import { WebhookConfigurationError, WebhookVerificationError } from './errors.js';
import type { HeaderReader } from './headers.js';
import { hasSurroundingWhitespace, paddedTokenProblem } from './options.js';
import { withTimeLimit, type Soon } from './time-limit.js';
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
): (readHeader: HeaderReader) => Soon<Verified> {
  function acceptedTokens(): readonly string[] | Promise<readonly string[]> {
    // A list is used as it is (checked at creation), without a trip through the microtask queue.
    if (typeof tokenSource !== 'function') return tokenSource;
    return providedTokens(tokenSource);
  }

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

  /** The accepted tokens and the one the delivery presented (at once for a token list). */
  function authenticate(readHeader: HeaderReader): Soon<Verified> {
    const presented = presentedTokens(readHeader, tokenHeader);
    // Checked first so that token-less traffic never costs a call to the partner's secret store.
    if (presented.length === 0) throw new WebhookVerificationError('missing');
    const pending = acceptedTokens();
    if (Array.isArray(pending)) return matchToken(presented, pending);
    return matchLater(pending as Promise<readonly string[]>, presented);
  }

  const matchLater = (pending: Promise<readonly string[]>, presented: readonly string[]): Promise<Verified> =>
    pending.then((tokens) => matchToken(presented, tokens));

  function matchToken(presented: readonly string[], tokens: readonly string[]): Verified {
    const index = matchingTokenIndex(presented, tokens);
    if (index === -1) throw new WebhookVerificationError('mismatch');
    return new Verified(tokens, tokens[index]!);
  }

  return authenticate;
}
