/**
 * "The same service" is decided in one function; the shared rate limit, the booking ledger and the
 * plain-http warning all follow it. Two spellings of one service must share one budget (else the
 * partner's calls go out at twice the rate the service allows) and one ledger (else one key could
 * book twice).
 */
import { describe, expect, it } from 'vitest';
import { PartnerClient, type Logger } from 'restaurant-partner-sdk';
import { isLoopbackHost, serviceOf, serviceOrigin } from '../../src/transport/service.js';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

describe('serviceOf: one service however its base URL is spelt', () => {
  it.each([
    ['http://localhost:8080', 'http://127.0.0.1:8080'],
    ['http://localhost:8080', 'http://[::1]:8080'],
    ['http://127.0.0.1:8080', 'http://127.1.2.3:8080'],
    ['http://localhost.:8080', 'http://[::ffff:127.0.0.1]:8080'],
    ['https://api.example.com/', 'https://api.example.com'],
    ['https://api.example.com//', 'https://API.Example.com.'],
    ['https://api.example.com:443', 'https://api.example.com'],
    ['http://api.example.com:80/', 'http://api.example.com'],
    ['http://localhost/sandbox/7/', 'http://127.0.0.1:80/sandbox/7'],
  ])('%s and %s are the same service', (a, b) => {
    expect(serviceOf(a)).toBe(serviceOf(b));
    expect(serviceOf(new URL(a))).toBe(serviceOf(b));
  });

  it.each([
    ['http://localhost:8080', 'http://localhost:8081'],
    ['http://api.example.com', 'https://api.example.com'],
    ['https://api.example.com:8443', 'https://api.example.com'],
    ['https://api.example.com', 'https://api2.example.com'],
    ['https://api.example.com', 'https://localhost'],
    ['http://localhost/sandbox/7', 'http://localhost/sandbox/8'],
    ['http://10.0.0.1:8080', 'http://127.0.0.1:8080'],
  ])('%s and %s are different services', (a, b) => {
    expect(serviceOf(a)).not.toBe(serviceOf(b));
  });

  it('serviceOrigin drops the path prefix only', () => {
    expect(serviceOrigin('http://localhost/sandbox/7')).toBe(serviceOrigin('http://[::1]:80'));
    expect(serviceOrigin('http://localhost:1/')).not.toBe(serviceOrigin('http://localhost:2/'));
  });

  it('names loopback hosts as URL spells them, and nothing else', () => {
    for (const host of ['localhost', 'LOCALHOST', 'localhost.', '127.0.0.1', '127.255.0.9', '[::1]'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['localhost.example.com', '128.0.0.1', '[::2]', 'example.com', '10.127.0.1'])
      expect(isLoopbackHost(host), host).toBe(false);
    expect(isLoopbackHost(new URL('http://[::ffff:127.0.0.1]/').hostname)).toBe(true);
  });
});

describe('every user of "the same service" agrees', () => {
  const client = (baseUrl: string, warnings: string[] = []) =>
    new PartnerClient({
      baseUrl,
      partnerId: 'same-service-partner',
      apiToken: 'token',
      logger: { ...quiet, warn: (message: string) => warnings.push(message) },
    });

  it('clients given localhost, 127.0.0.1, [::1], a trailing slash or the default port share one limiter', () => {
    const limiter = client('http://localhost:8123').rateLimiter;
    expect(limiter).toBeDefined();
    for (const baseUrl of ['http://127.0.0.1:8123/', 'http://[::1]:8123', 'HTTP://LOCALHOST:8123//'])
      expect(client(baseUrl).rateLimiter, baseUrl).toBe(limiter);
    expect(client('http://localhost:80').rateLimiter).toBe(client('http://127.0.0.1/').rateLimiter);
    expect(client('http://localhost:8124').rateLimiter).not.toBe(limiter);
  });

  it('plain http warns for a remote host and not for any loopback name', () => {
    for (const baseUrl of ['http://localhost:8123', 'http://127.0.0.1:8123', 'http://[::1]:8123']) {
      const warnings: string[] = [];
      client(baseUrl, warnings);
      expect(warnings, baseUrl).toEqual([]);
    }
    const warnings: string[] = [];
    client('http://api.example.com', warnings);
    expect(warnings.join('\n')).toMatch(/plain http/);
  });
});
