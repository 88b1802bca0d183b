/**
 * Everything a secret could leak through, rendered as text: an error's message, stack,
 * JSON.stringify and util.inspect (hidden properties and the whole `cause` chain included), log
 * lines and hook payloads. Security proofs collect these from real failure paths and search them.
 */
import { inspect } from 'node:util';
import type { ClientHooks, Logger } from 'restaurant-partner-sdk';
import { basicCredentials } from '../../support/basic-auth.js';

/** The forms a partner credential can take on the wire or in memory. */
export function secretForms(partnerId: string, apiToken: string): string[] {
  const basic = basicCredentials(partnerId, apiToken);
  return [apiToken, basic, encodeURIComponent(apiToken)];
}

const safeStringify = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? '';
  } catch (error) {
    return `[unserialisable: ${String(error)}]`;
  }
};

/** Every rendering of an error and of each error in its `cause` chain. */
export function renderError(error: unknown): string[] {
  const texts: string[] = [];
  const seen = new Set<unknown>();
  for (
    let current: unknown = error;
    current !== undefined && current !== null && !seen.has(current);
    current = (current as { cause?: unknown }).cause
  ) {
    seen.add(current);
    if (current instanceof Error) texts.push(current.message, current.stack ?? '');
    texts.push(
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- every way an error is printed, String() included
      String(current),
      safeStringify(current),
      inspect(current, { depth: Infinity, showHidden: true, getters: true }),
    );
  }
  return texts;
}

/** A logger that keeps every line with its context rendered in full. */
export function capturingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const line = (level: string) => (message: string, context?: Record<string, unknown>) => {
    lines.push(
      `${level} ${message} ${inspect(context, { depth: Infinity, showHidden: true })} ${safeStringify(context)}`,
    );
  };
  return { lines, debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}

/** Hooks that keep every payload rendered in full. */
export function capturingHooks(): ClientHooks & { payloads: string[] } {
  const payloads: string[] = [];
  const keep = (name: string) => (event: unknown) => {
    payloads.push(`${name} ${inspect(event, { depth: Infinity, showHidden: true })} ${safeStringify(event)}`);
  };
  return {
    payloads,
    onRequest: keep('onRequest'),
    onResponse: keep('onResponse'),
    onRetry: keep('onRetry'),
    onRateLimited: keep('onRateLimited'),
  };
}

/** The secrets found in `texts`, with a short excerpt around each hit (empty when clean). */
export function findSecrets(texts: readonly string[], secrets: readonly string[]): string[] {
  const hits: string[] = [];
  for (const text of texts) {
    for (const secret of secrets) {
      const at = text.indexOf(secret);
      if (at !== -1) hits.push(`…${text.slice(Math.max(0, at - 120), at + secret.length + 20)}…`);
    }
  }
  return hits;
}
