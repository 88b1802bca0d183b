import { describe, expect, it } from 'vitest';
import { InputValidationError } from 'restaurant-partner-sdk';
import { parseRetryAfter, redactUrl, RETRY_AFTER_CAP_MS } from '../../src/transport/errors.js';
import { path } from '../../src/transport/path.js';
import { retryDelayMs } from '../../src/transport/retry.js';
import { createBasicAuth } from '../../src/transport/auth.js';

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

describe('createBasicAuth', () => {
  it('encodes uuid:token as UTF-8 base64 and exposes nothing but the header', () => {
    const auth = createBasicAuth('p', 'tökén');
    expect(auth.header()).toBe(`Basic ${Buffer.from('p:tökén', 'utf8').toString('base64')}`);
    expect(Object.keys(auth)).toEqual(['header', 'redact']);
    expect(JSON.stringify(auth)).not.toContain('tökén');
  });

  it('redacts the credentials wherever an answer echoes them, and leaves other text alone', () => {
    const auth = createBasicAuth('partner-1', 'tok-123456');
    const encoded = Buffer.from('partner-1:tok-123456', 'utf8').toString('base64');
    const answer = { detail: 'bad token tok-123456', nested: [{ header: `Basic ${encoded}` }, 'partner-1:tok-123456'], count: 3, code: 'no_availability' };
    const redacted = auth.redact(answer);
    expect(JSON.stringify(redacted)).not.toContain('tok-123456');
    expect(redacted).toEqual({ detail: 'bad token [REDACTED]', nested: [{ header: 'Basic [REDACTED]' }, '[REDACTED]'], count: 3, code: 'no_availability' });
    expect(answer.detail).toBe('bad token tok-123456');
    expect(auth.redact('plain text')).toBe('plain text');
  });

  it('redacts an answer nested far deeper than the stack allows without throwing', () => {
    const auth = createBasicAuth('partner-1', 'tok-123456');
    const answer = JSON.parse(`${'{"a":'.repeat(100_000)}"tok-123456"${'}'.repeat(100_000)}`);
    expect(JSON.stringify(auth.redact(answer))).not.toContain('tok-123456');
  });
});
