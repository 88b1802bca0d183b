/**
 * The audit's finding on waits for a silent webhook: deliveries due together are attempted
 * together, so a clock move waits one time limit at most however many are due, and a call whose
 * delivery chaos duplicates waits one time limit, not two.
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

const TIME_LIMIT_MS = 1500;

it('a clock advance attempts the eight retries due to a silent webhook together: one time limit, not eight', async () => {
  audit = await startAudit({ deliveries: { timeoutMs: TIME_LIMIT_MS } });
  receiver = await startReceiver({ status: 500 });
  await subscribe(audit, receiver.url);
  for (let index = 0; index < 8; index += 1) {
    const id = await book(audit, '', `2026-12-${String(9 + index).padStart(2, '0')}T19:00:00`);
    const cancelled = await audit.control('POST', `restaurants/1/reservations/${id}/cancel`, {});
    expect(cancelled.status).toBe(200);
  }
  expect(receiver.bodies).toHaveLength(8);
  // Every first attempt failed fast (500); the retries fall due together a minute later, and the
  // receiver now never answers.
  receiver.mode.silent = true;
  const started = performance.now();
  const [first, second] = await Promise.all([
    audit.control('POST', 'clock/advance', { duration: 'PT2M' }),
    audit.control('POST', 'clock/advance', { duration: 'PT1S' }),
  ]);
  const elapsed = performance.now() - started;
  expect([first.status, second.status]).toEqual([200, 200]);
  expect(receiver.bodies).toHaveLength(16);
  // One time limit (the second advance waits behind the first, which waited once), with room for a loaded machine.
  expect(elapsed).toBeLessThan(TIME_LIMIT_MS * 2.5);
  const log = (await audit.control('GET', 'deliveries')).body as { attempt: number; error: string | null }[];
  const retries = log.filter((entry) => entry.attempt === 2);
  expect(retries).toHaveLength(8);
  for (const entry of retries) expect(entry.error).toContain('TimeoutError');
});

it('a cancel whose delivery chaos duplicates waits one time limit, not two', async () => {
  audit = await startAudit({ deliveries: { timeoutMs: TIME_LIMIT_MS } });
  receiver = await startReceiver({ silent: true });
  await subscribe(audit, receiver.url);
  const id = await book(audit);
  const chaos = await audit.control('PUT', 'delivery-chaos', { duplicateRate: 1, seed: 1 });
  expect(chaos.status).toBe(200);
  const started = performance.now();
  const cancelled = await audit.control('POST', `restaurants/1/reservations/${id}/cancel`, {});
  const elapsed = performance.now() - started;
  expect(cancelled.status).toBe(200);
  expect(receiver.bodies).toHaveLength(2);
  expect(elapsed).toBeGreaterThanOrEqual(TIME_LIMIT_MS - 50);
  expect(elapsed).toBeLessThan(TIME_LIMIT_MS * 1.8);
  const log = (await audit.control('GET', 'deliveries')).body as { duplicate: boolean }[];
  expect(log.map((entry) => entry.duplicate).sort()).toEqual([false, true]);
});
