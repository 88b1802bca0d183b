/**
 * The audit's finding on resets: a delivery of the old world still in flight at `POST
 * /_fake/reset` must not land in the new world (its log, or `last_use_at` / `last_response` of the
 * new webhook that carries the same id), nor hold the reset world's caller.
 */
import { afterEach, expect, it } from 'vitest';
import { API } from './helpers.js';
import { rawJson } from './raw-http.js';
import {
  book,
  demoAuth,
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('a reset ends the old world’s deliveries in flight; none is logged in, or written to, the new world', async () => {
  audit = await startAudit({ deliveries: { timeoutMs: 1500 } });
  const slow = await startReceiver({ silent: true });
  receiver = slow;
  await subscribe(audit, slow.url);
  const id = await book(audit);
  const cancelling = audit.control('POST', `restaurants/1/reservations/${id}/cancel`, {});
  while (slow.bodies.length === 0) await sleep(10);
  // The old world's delivery is in flight; the world is reset and a new webhook takes id 1.
  expect((await audit.control('POST', 'reset')).status).toBe(200);
  const fresh = await startReceiver();
  try {
    expect(await subscribe(audit, fresh.url)).toBe(1);
    const started = performance.now();
    expect((await cancelling).status).toBe(200);
    // The old attempt ended with the reset, instead of waiting out its time limit.
    expect(performance.now() - started).toBeLessThan(1000);
    await sleep(1700);
    expect((await audit.control('GET', 'deliveries')).body).toEqual([]);
    const webhook = rawJson(await audit.send('GET', `${API}/webhooks/1/`, { authorization: demoAuth }));
    expect(webhook.url).toBe(fresh.url);
    expect(webhook.last_use_at).toBeNull();
    expect(webhook.last_response_status_code).toBeNull();
    expect(fresh.bodies).toEqual([]);
  } finally {
    await fresh.close();
  }
});

it('a retry of the old world never runs after a reset', async () => {
  audit = await startAudit();
  receiver = await startReceiver({ status: 500 });
  await subscribe(audit, receiver.url);
  const id = await book(audit);
  await audit.control('POST', `restaurants/1/reservations/${id}/cancel`, {});
  expect(receiver.bodies).toHaveLength(1);
  await audit.control('POST', 'reset');
  await audit.control('POST', 'clock/advance', { duration: 'P1D' });
  expect(receiver.bodies).toHaveLength(1);
  expect((await audit.control('GET', 'deliveries')).body).toEqual([]);
});
