/**
 * The audit's finding on delivery chaos over HTTP: the same seed gave a different order between
 * runs. The standalone fake's clock follows real time; frozen (`POST /_fake/clock/freeze`), a
 * seeded run makes the same draws, sends at the same fake times, and logs the same sequence,
 * however its receivers' answers race.
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

const opened: { audit: AuditServer; receivers: Receiver[] }[] = [];
afterEach(async () => {
  for (const { audit, receivers } of opened.splice(0)) {
    await audit.server.close();
    for (const receiver of receivers) await receiver.close();
  }
});

/** One run: a server on the real clock, frozen over HTTP, seeded chaos, three receivers answering after random waits. */
async function run(): Promise<string[]> {
  const audit = await startAudit({ clock: {} });
  const receivers = await Promise.all(
    [0, 1, 2].map((index) =>
      startReceiver({ status: index === 2 ? 503 : 200, delayMs: () => Math.random() * 40 }),
    ),
  );
  opened.push({ audit, receivers });
  const frozen = await audit.control('POST', 'clock/freeze', {});
  expect(frozen.body.frozen).toBe(true);
  await audit.control('POST', 'clock/set', { now: '2026-12-01T08:00:00Z' });
  for (const receiver of receivers) await subscribe(audit, receiver.url);
  await audit.control('PUT', 'delivery-chaos', { dropRate: 0.2, duplicateRate: 0.5, seed: 42 });
  for (let index = 0; index < 6; index += 1) {
    const id = await book(audit, '', `2026-12-${String(3 + index).padStart(2, '0')}T19:00:00`);
    await audit.control('POST', `restaurants/1/reservations/${id}/cancel`, {});
  }
  await audit.control('POST', 'clock/advance', { duration: 'PT3H' });
  const log = (await audit.control('GET', 'deliveries')).body as {
    event: string;
    reservationId: number;
    webhookId: number;
    attempt: number;
    duplicate: boolean;
    deliveredAt: string;
    status: number | null;
  }[];
  return log.map(
    (entry) =>
      `${entry.deliveredAt} ${entry.event} r${entry.reservationId} w${entry.webhookId} #${entry.attempt}${entry.duplicate ? ' dup' : ''} ${entry.status ?? 'dropped'}`,
  );
}

it('the same seed on a frozen clock logs the same deliveries in the same order, run after run', async () => {
  const first = await run();
  const second = await run();
  // Drops, duplicates, delays and retries all happened, and are the same.
  expect(first.some((line) => line.endsWith('dropped'))).toBe(true);
  expect(first.some((line) => line.includes(' dup '))).toBe(true);
  expect(first.some((line) => line.includes(' #2 '))).toBe(true);
  expect(second).toEqual(first);
});

it('a frozen clock can follow real time again', async () => {
  const audit = await startAudit({ clock: {} });
  opened.push({ audit, receivers: [] });
  await audit.control('POST', 'clock/freeze', { frozen: true });
  const stopped = (await audit.control('GET', 'clock')).body.now;
  await new Promise((resolve) => setTimeout(resolve, 60));
  expect((await audit.control('GET', 'clock')).body.now).toBe(stopped);
  const running = await audit.control('POST', 'clock/freeze', { frozen: false });
  expect(running.body.frozen).toBe(false);
  await new Promise((resolve) => setTimeout(resolve, 60));
  expect(Date.parse((await audit.control('GET', 'clock')).body.now)).toBeGreaterThan(Date.parse(stopped));
  expect((await audit.control('POST', 'clock/freeze', { frozen: 'yes' })).status).toBe(400);
});
