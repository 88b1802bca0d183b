import { describe, expect, it } from 'vitest';
import { ConnectionError, InputValidationError } from 'restaurant-partner-sdk';
import { redactUrl } from '../../src/internal/redact-url.js';
import { parseRetryAfter, RETRY_AFTER_CAP_MS } from '../../src/transport/error-from-response.js';
import { path } from '../../src/transport/path.js';
import { retryDelayMs } from '../../src/transport/retry.js';
import { createBasicAuth } from '../../src/transport/auth.js';
import { createSecrets, rememberWebhookToken } from '../../src/transport/secrets.js';
import { basicAuthorization, basicCredentials } from '../support/basic-auth.js';

describe('path', () => {
  it('percent-encodes ids and refuses . and ..', () => {
    expect(path`/webhooks/${'a/b?c'}/`).toBe('/webhooks/a%2Fb%3Fc/');
    expect(() => path`/webhooks/${'..'}/`).toThrow(InputValidationError);
    expect(() => path`/webhooks/${'.'}/`).toThrow(InputValidationError);
    expect(() => path`/webhooks/${''}/`).toThrow(InputValidationError);
  });
});

describe('redactUrl', () => {
  it('removes userinfo and secret query values', () => {
    const redacted = redactUrl('https://user:pass@api.test/x/?token=abc&page=2&api_key=k&secret=s');
    expect(redacted).toBe('https://api.test/x/?token=REDACTED&page=2&api_key=REDACTED&secret=REDACTED');
  });
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2026, 10, 23, 12);
  it('reads seconds and HTTP dates, caps, and ignores garbage', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(new Date(now + 7000).toUTCString(), now)).toBe(7000);
    expect(parseRetryAfter(new Date(now - 7000).toUTCString(), now)).toBe(0);
    expect(parseRetryAfter('999999', now)).toBe(RETRY_AFTER_CAP_MS);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe('retryDelayMs', () => {
  it('is full jitter below an exponentially growing ceiling', () => {
    expect(retryDelayMs(new Error('x'), 0, () => 0.999)).toBeLessThan(500);
    expect(retryDelayMs(new Error('x'), 3, () => 0.999)).toBeGreaterThan(3000);
    expect(retryDelayMs(new Error('x'), 20, () => 0.999)).toBeLessThan(8000);
    expect(retryDelayMs(new Error('x'), 2, () => 0)).toBe(0);
  });
});

describe('createBasicAuth and createSecrets', () => {
  it('encodes uuid:token as UTF-8 base64 and exposes nothing but the header', () => {
    const auth = createBasicAuth('p', 'tökén');
    expect(auth.header()).toBe(basicAuthorization('p', 'tökén'));
    expect(Object.keys(auth)).toEqual(['header']);
    expect(JSON.stringify(auth)).not.toContain('tökén');
  });

  it('scrubs the credentials by value wherever an answer echoes them, in every form, and leaves other text alone', () => {
    const secrets = createSecrets('partner-1', 'tok-123456/+=');
    const encoded = basicCredentials('partner-1', 'tok-123456/+=');
    const answer = {
      detail: 'bad token tok-123456/+=',
      nested: [{ header: `Basic ${encoded}` }, 'partner-1:tok-123456/+='],
      link: `https://x.test/?t=${encodeURIComponent('tok-123456/+=')}`,
      ['tok-123456/+=']: 'as a key',
      count: 3,
      code: 'no_availability',
    };
    const scrubbed = secrets.scrub(answer);
    expect(JSON.stringify(scrubbed)).not.toContain('tok-123456');
    expect(JSON.stringify(scrubbed)).not.toContain(encoded);
    expect(scrubbed).toMatchObject({
      detail: 'bad token [REDACTED]',
      nested: [{ header: 'Basic [REDACTED]' }, '[REDACTED]'],
      link: 'https://x.test/?t=[REDACTED]',
      '[REDACTED]': 'as a key',
      count: 3,
    });
    expect(answer.detail).toBe('bad token tok-123456/+=');
    expect(secrets.scrub('plain text')).toBe('plain text');
  });

  it('scrubs a webhook token once any client has seen it', () => {
    const secrets = createSecrets('partner-1', 'tok-123456');
    expect(secrets.scrubText('whk-token-abcdef echoed')).toBe('whk-token-abcdef echoed');
    rememberWebhookToken('whk-token-abcdef');
    expect(secrets.scrubText('whk-token-abcdef echoed')).toBe('[REDACTED] echoed');
  });

  it('scrubs an answer nested far deeper than the stack allows without throwing', () => {
    const secrets = createSecrets('partner-1', 'tok-123456');
    const answer = JSON.parse(`${'{"a":'.repeat(100_000)}"tok-123456"${'}'.repeat(100_000)}`);
    expect(JSON.stringify(secrets.scrub(answer))).not.toContain('tok-123456');
  });

  it('replaces a foreign cause by a plain copy without its extra fields (undici keeps the raw bytes)', () => {
    const secrets = createSecrets('partner-1', 'tok-123456');
    const raw = Object.assign(new Error('Parse Error: tok-123456'), {
      code: 'HPE_INVALID',
      data: Buffer.from('Authorization: tok-123456'),
    });
    const error = new ConnectionError('Connection failed', {
      cause: new TypeError('fetch failed', { cause: raw }),
    });
    const safe = secrets.scrubError(error);
    expect(safe).toBe(error);
    const inner = (safe.cause as Error).cause as Error & { code?: string; data?: unknown };
    expect(inner.message).toBe('Parse Error: [REDACTED]');
    expect(inner.code).toBe('HPE_INVALID');
    expect(inner.data).toBeUndefined();
  });
});
