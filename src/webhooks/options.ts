/**
 * The receiver's defaults and the checks of its options, made once when it is created.
 * @module
 */
import type { DuplicateStore } from './duplicates.js';
import { WebhookConfigurationError } from './errors.js';
import type { TokenSource } from './tokens.js';
import type { WebhookReceiverOptions } from './types.js';

/** Default `maxBodyBytes`: 1 MiB, far above any reservation event. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Default `handlerTimeoutMs`: 30 seconds for all the handlers of one delivery. */
export const DEFAULT_HANDLER_TIMEOUT_MS = 30_000;
/** Default `tokensTimeoutMs`: 10 seconds for the token provider to answer. */
export const DEFAULT_TOKENS_TIMEOUT_MS = 10_000;
/** Default `bodyTimeoutMs`: 10 seconds from the headers to the body's last byte. */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;
/**
 * How much longer than `handlerTimeoutMs` a duplicate store's claim must last: the claim starts
 * at the store before its answer reaches the receiver, and the handler's outcome is written after
 * the handler's time is up.
 */
export const CLAIM_MARGIN_MS = 5_000;

/** `createWebhookReceiver` refusing its options: the same options are refused again, so not retryable. */
const optionsRefused = (message: string): WebhookConfigurationError =>
  new WebhookConfigurationError(message, { retryable: false });

/**
 * A store with leases must hold a claim longer than a handler may run, or one delivery could run
 * twice; one that renews its claims holds them as long as the handler runs, whatever their length.
 */
export function checkClaimLength(store: DuplicateStore | undefined, handlerTimeoutMs: number): void {
  if (!store?.claim) return;
  const claimTtlMs = store.claimTtlMs;
  if (typeof claimTtlMs !== 'number' || !(claimTtlMs > 0)) {
    throw optionsRefused(
      'createWebhookReceiver: a duplicateStore with claim() must say how long a claim lasts (claimTtlMs)',
    );
  }
  if (store.renewsClaims !== true && claimTtlMs < handlerTimeoutMs + CLAIM_MARGIN_MS) {
    throw optionsRefused(
      `createWebhookReceiver: the duplicate store's claims last ${claimTtlMs} ms (claimTtlMs), less than handlerTimeoutMs (${handlerTimeoutMs} ms) + ${CLAIM_MARGIN_MS} ms: ` +
        'a claim that ends while its handler runs lets another receiver run the same delivery. Raise claimTtlMs or lower handlerTimeoutMs',
    );
  }
}

// A presented token never has surrounding whitespace (headers are trimmed), so an accepted one
// that has it could never match: every delivery would get 401 with nothing saying why.
export const hasSurroundingWhitespace = (token: string): boolean => token.trim() !== token;
export const paddedTokenProblem = (index: number): string =>
  `tokens[${index}] with leading or trailing whitespace, which no delivery can match (a token read from a file often ends with a newline: trim it)`;

const RECEIVER_OPTIONS: ReadonlySet<string> = new Set<keyof WebhookReceiverOptions>([
  'tokens',
  'tokenHeader',
  'maxBodyBytes',
  'bodyTimeoutMs',
  'duplicateStore',
  'logger',
  'handlerTimeoutMs',
  'tokensTimeoutMs',
  'onError',
  'webhookId',
]);

export function validateOptions(options: WebhookReceiverOptions): TokenSource {
  if (!options || typeof options !== 'object')
    throw optionsRefused('createWebhookReceiver(options): options are required');
  // A misspelt option (`tokenheader`) would otherwise be ignored without a word.
  const unknown = Object.keys(options).filter((key) => !RECEIVER_OPTIONS.has(key));
  if (unknown.length > 0) {
    throw optionsRefused(
      `createWebhookReceiver: unknown option ${unknown.map((key) => JSON.stringify(key)).join(', ')}; expected ${[...RECEIVER_OPTIONS].join(', ')}`,
    );
  }
  const { tokens, maxBodyBytes, tokenHeader, handlerTimeoutMs, tokensTimeoutMs, bodyTimeoutMs } = options;
  if (typeof tokens === 'string') {
    throw optionsRefused(
      'createWebhookReceiver: tokens must be a list of strings or a function, got a single string; wrap it in [ ]',
    );
  }
  if (typeof tokens !== 'function') {
    if (!Array.isArray(tokens) || tokens.length === 0) {
      throw optionsRefused(
        'createWebhookReceiver: tokens must be a non-empty list of tokens or a function returning one',
      );
    }
    const badIndex = tokens.findIndex((token) => typeof token !== 'string' || token === '');
    if (badIndex !== -1)
      throw optionsRefused(`createWebhookReceiver: tokens[${badIndex}] must be a non-empty string`);
    const padded = tokens.findIndex(hasSurroundingWhitespace);
    if (padded !== -1) throw optionsRefused(`createWebhookReceiver: ${paddedTokenProblem(padded)}`);
  }
  if (maxBodyBytes !== undefined && (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 1)) {
    throw optionsRefused('createWebhookReceiver: maxBodyBytes must be a positive integer');
  }
  for (const [name, value] of [
    ['handlerTimeoutMs', handlerTimeoutMs],
    ['tokensTimeoutMs', tokensTimeoutMs],
    ['bodyTimeoutMs', bodyTimeoutMs],
  ] as const) {
    // setTimeout cannot wait longer than 2^31 - 1 ms; a larger value would fire at once.
    if (value !== undefined && !(typeof value === 'number' && value > 0 && value <= 2_147_483_647)) {
      throw optionsRefused(
        `createWebhookReceiver: ${name} must be a number of milliseconds between 1 and 2147483647`,
      );
    }
  }
  const { webhookId } = options;
  if (
    webhookId !== undefined &&
    !((typeof webhookId === 'string' && webhookId !== '') || Number.isSafeInteger(webhookId))
  ) {
    throw new WebhookConfigurationError(
      "createWebhookReceiver: webhookId must be the webhook's id (a non-empty string or an integer)",
    );
  }
  if (tokenHeader !== undefined && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(tokenHeader)) {
    throw optionsRefused('createWebhookReceiver: tokenHeader must be a valid header name');
  }
  // Kept by reference: a partner who edits the list in place rotates without a new receiver.
  return tokens;
}
