import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PartnerApiError, PartnerClient, silentLogger, type Logger } from 'restaurant-partner-sdk';

describe('secrets of 4 characters or more are scrubbed in any letter case', () => {
  it('a short token echoed as a lower-cased header name and upper-cased in a body appears nowhere', async () => {
    const apiToken = 'Ab3x';
    const lines: string[] = [];
    const logger: Logger = {
      ...silentLogger,
      warn: (message, details) => lines.push(message, JSON.stringify(details)),
      info: (message, details) => lines.push(message, JSON.stringify(details)),
      debug: (message, details) => lines.push(message, JSON.stringify(details)),
    };
    const hooks: string[] = [];
    const fetch = (async () =>
      new Response(
        JSON.stringify({ detail: `token ${apiToken.toUpperCase()} refused`, echoed: apiToken.toLowerCase() }),
        {
          status: 400,
          headers: { 'content-type': 'application/json', [`x-${apiToken}`]: apiToken.toUpperCase() },
        },
      )) as typeof globalThis.fetch;
    const client = new PartnerClient({
      baseUrl: 'https://api.partner.test',
      partnerId: 'partner',
      apiToken,
      rateLimit: false,
      maxRetries: 0,
      fetch,
      logger,
      logLevel: 'debug',
      hooks: { onResponse: (event) => hooks.push(JSON.stringify(event)) },
    });
    const error = (await client.profile.retrieve().catch((caught: unknown) => caught)) as PartnerApiError;
    expect(error).toBeInstanceOf(PartnerApiError);
    const texts = [
      error.message,
      String(error.stack),
      JSON.stringify(error.headers),
      JSON.stringify(error.body),
      JSON.stringify(error),
      inspect(error, { depth: 10 }),
      ...lines,
      ...hooks,
    ];
    for (const text of texts) expect(text.toLowerCase()).not.toContain(apiToken.toLowerCase());
    expect(error.headers).toHaveProperty('x-[REDACTED]', '[REDACTED]');
  });
});
