/**
 * The audit's finding on idle sandboxes: one that expires while no request arrives must end then
 * (its clock, retries and deliveries with it), not when the next request happens to sweep it.
 */
import { afterEach, expect, it } from 'vitest';
import {
  book,
  startAudit,
  startReceiver,
  subscribe,
  type AuditServer,
  type Receiver,
} from './audit-support.js';

let audit: AuditServer | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await audit?.server.close();
  await receiver?.close();
  audit = receiver = undefined;
});

const IDLE_MS = 3000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('an idle sandbox stops delivering when it expires, with no request to sweep it', async () => {
  audit = await startAudit({
    // Retries every 150 ms of the sandbox's running clock, for 12 s: a sandbox left alive keeps
    // sending. The idle end is 3 s so that setting up (four requests) never outlasts it on a
    // loaded machine; the run stays well inside the retries either way.
    deliveries: { retryDelaysMs: Array.from({ length: 80 }, () => 150), timeoutMs: 1000 },
    sandboxes: { idleTimeoutMs: IDLE_MS },
  });
  receiver = await startReceiver({ status: 500 });
  const created = await audit.control('POST', 'sandboxes', { rateLimit: false });
  const prefix = `/sandboxes/${created.body.id}`;
  await subscribe(audit, receiver.url, prefix);
  const id = await book(audit, prefix);
  const cancelled = await audit.control('POST', `restaurants/1/reservations/${id}/cancel`, {}, prefix);
  expect(cancelled.status).toBe(200);
  const lastRequestAt = performance.now();
  expect(receiver.bodies.length).toBeGreaterThanOrEqual(1);
  // Well past the idle end (IDLE_MS after the last request), no request reaches the server.
  await sleep(IDLE_MS + 800);
  const afterExpiry = receiver.bodies.length;
  await sleep(1500);
  // Nothing more came after the sandbox ended, although its retries would have run every 150 ms.
  expect(receiver.bodies.length).toBe(afterExpiry);
  // At most the attempts due before the idle end (plus one in flight at it) were made.
  expect(afterExpiry).toBeLessThanOrEqual(Math.ceil((performance.now() - lastRequestAt) / 150));
  expect(afterExpiry).toBeLessThan((IDLE_MS + 800) / 150);
  const gone = await audit.control('GET', 'clock', undefined, prefix);
  expect(gone.status).toBe(404);
});
