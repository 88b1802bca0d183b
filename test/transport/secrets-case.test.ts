import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PartnerApiError, PartnerClient, silentLogger, type Logger } from 'restaurant-partner-sdk';
import { webhookBody } from '../support/hostile-server.js';
import { secretForms, secretFormsIn } from '../support/secret-forms.js';

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

describe('secrets with characters encoders treat differently are scrubbed in every encoded form', () => {
  // `"` and `\`: JSON escapes both; `new URL()` percent-encodes `"` in a query but keeps `\`.
  const apiToken = 'Api"Tok\\en/7+x';
  const webhookToken = 'whk_Hook"Back\\slash_9c2e';

  /** A client whose every call is answered by `answer`, with every text it shows collected. */
  function clientAnswering(answer: (url: string) => Response) {
    const lines: string[] = [];
    const logger: Logger = {
      ...silentLogger,
      warn: (message, details) => lines.push(message, JSON.stringify(details)),
      info: (message, details) => lines.push(message, JSON.stringify(details)),
      debug: (message, details) => lines.push(message, JSON.stringify(details)),
    };
    const hooks: string[] = [];
    const client = new PartnerClient({
      baseUrl: 'https://api.partner.test',
      partnerId: 'partner',
      apiToken,
      rateLimit: false,
      maxRetries: 0,
      fetch: async (input: RequestInfo | URL) => answer(input instanceof Request ? input.url : String(input)),
      logger,
      logLevel: 'debug',
      hooks: { onResponse: (event) => hooks.push(JSON.stringify(event)) },
    });
    return { client, lines, hooks };
  }

  /** A 400 quoting `secret` in every form: as a URL, percent-encoded, JSON inside a JSON string, any case. */
  const echoingAnswer = (secret: string) =>
    new Response(
      JSON.stringify({
        detail: `refused ${secretForms(secret).join(' , ')}`,
        next: new URL(`https://api.partner.test/next?token=${secret}`).href,
        nested: JSON.stringify({ token: secret, again: JSON.stringify({ token: secret }) }),
      }),
      { status: 400, headers: { 'content-type': 'application/json', 'x-echo': encodeURI(secret) } },
    );

  const shown = (error: PartnerApiError, lines: string[], hooks: string[]): string[] => [
    error.message,
    String(error.stack),
    JSON.stringify(error.headers),
    JSON.stringify(error.body),
    JSON.stringify(error),
    inspect(error, { depth: 10 }),
    ...lines,
    ...hooks,
  ];

  it('the API token, echoed URL-encoded and JSON-escaped, appears in no error, log line or hook', async () => {
    const { client, lines, hooks } = clientAnswering(() => echoingAnswer(apiToken));
    const error = (await client.profile.retrieve().catch((caught: unknown) => caught)) as PartnerApiError;
    expect(error).toBeInstanceOf(PartnerApiError);
    for (const text of shown(error, lines, hooks)) expect(secretFormsIn(text, apiToken)).toEqual([]);
    expect(JSON.stringify(error.body)).toContain('[REDACTED]');
  });

  it('a webhook token read from an answer, echoed later in every form, appears in no error, log line or hook', async () => {
    const { client, lines, hooks } = clientAnswering((url) =>
      url.includes('/webhooks/')
        ? new Response(JSON.stringify(webhookBody({ auth_token: webhookToken })), {
            status: 200,
            headers: { 'content-type': 'application/json' },
          })
        : echoingAnswer(webhookToken),
    );
    await client.webhooks.retrieve(3);
    lines.length = 0;
    hooks.length = 0;
    const error = (await client.profile.retrieve().catch((caught: unknown) => caught)) as PartnerApiError;
    expect(error).toBeInstanceOf(PartnerApiError);
    for (const text of shown(error, lines, hooks)) expect(secretFormsIn(text, webhookToken)).toEqual([]);
    expect(JSON.stringify(error.body)).toContain('[REDACTED]');
  });
});
