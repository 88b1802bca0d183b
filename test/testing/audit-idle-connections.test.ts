/**
 * The audit's finding on idle connections: a connection that never sends a byte is closed after
 * the header time limit, while a slow but honest client is still served.
 */
import { connect } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { httpText, rawRequest } from './raw-http.js';
import { startAudit, type AuditServer } from './audit-support.js';

let audit: AuditServer | undefined;
afterEach(async () => {
  await audit?.server.close();
  audit = undefined;
});

/** Opens a connection that sends nothing; resolves with the milliseconds until the server closed it, or undefined after `waitMs`. */
function silentConnection(port: number, waitMs: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const opened = performance.now();
    const socket = connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(undefined);
    }, waitMs);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(performance.now() - opened);
    });
  });
}

it('closes a connection that never sends a byte after the header time limit', async () => {
  audit = await startAudit({ headersTimeoutMs: 400 });
  const closedAfter = await Promise.all([1, 2, 3].map(() => silentConnection(audit!.server.port, 5000)));
  for (const after of closedAfter) {
    expect(after).toBeDefined();
    expect(after!).toBeGreaterThanOrEqual(350);
    expect(after!).toBeLessThan(3000);
  }
});

it('serves a client whose first bytes come late but within the limit', async () => {
  audit = await startAudit({ headersTimeoutMs: 1500 });
  const answer = await new Promise<string>((resolve) => {
    const socket = connect(audit!.server.port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('close', () => resolve(text));
    setTimeout(
      () => socket.write(httpText('GET', '/_fake/clock', { host: audit!.host, connection: 'close' })),
      300,
    );
  });
  expect(answer).toMatch(/^HTTP\/1\.1 200/);
  // And a request sent at once is answered as ever.
  expect(
    (await rawRequest(audit.server.port, httpText('GET', '/_fake/clock', { host: audit.host }))).status,
  ).toBe(200);
});
