/**
 * The audit's finding on caps: they counted records, not bytes, so bookings at the largest field
 * sizes could hold gigabytes. Each world now holds a bounded number of (estimated) bytes, the
 * worlds of a server together too, and a write past either is a 409 naming the limit.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeService } from 'restaurant-partner-sdk/testing';
import { API } from './helpers.js';
import { basicAuthorization } from '../support/basic-auth.js';
import { rawJson } from './raw-http.js';
import {
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

const MiB = 1024 * 1024;
const emoji = '\u{1F600}';
/** Metadata of just under 16,384 characters of JSON in many small keys: the most heap it can take. */
const metadata = Object.fromEntries(Array.from({ length: 1700 }, (_, index) => [`k${index}`, 0]));

/** A booking at the largest field sizes, in two-byte characters. */
function largest(index: number): string {
  const day = 2 + (index % 28);
  return JSON.stringify({
    start_time: `2026-12-${String(day).padStart(2, '0')}T${index % 2 === 0 ? 12 : 19}:${String(15 * (Math.floor(index / 56) % 4)).padStart(2, '0')}:00`,
    adults: 1,
    first_name: emoji.repeat(255),
    last_name: emoji.repeat(255),
    email: `${'a'.repeat(240)}@example.com`,
    phone: `+${'1'.repeat(127)}`,
    comment: emoji.repeat(10_000),
    metadata,
  });
}

/** Books at the largest sizes under `prefix` until refused; answers how many were accepted and the refusal. */
async function fill(server: AuditServer, prefix = '', most = 200) {
  for (let index = 0; index < most; index += 1) {
    const answer = await server.send(
      'POST',
      `${prefix}${API}/restaurants/1/reservations/`,
      { authorization: demoAuth },
      largest(index),
    );
    if (answer.status !== 201)
      return { accepted: index, refusal: { status: answer.status, body: rawJson(answer) } };
  }
  return { accepted: most, refusal: undefined };
}

describe('memory bounded in bytes', () => {
  it('a world full of bookings at the largest sizes refuses the next with a 409 naming the limit', async () => {
    audit = await startAudit({ memoryLimits: { worldBytes: 8 * MiB } });
    const { accepted, refusal } = await fill(audit);
    // About 380 kB each (estimated from measured heap): some twenty fit in 8 MiB, never the record cap.
    expect(accepted).toBeGreaterThan(10);
    expect(accepted).toBeLessThan(40);
    expect(refusal?.status).toBe(409);
    expect(refusal?.body.code).toBe('limit_reached');
    expect(refusal?.body.detail).toContain('at most 8 MiB of data in one fake');
    expect(refusal?.body.detail).toContain('POST /_fake/reset');
    // A restaurant-side modification that would grow a booking is refused too; a read still answers.
    const modify = await audit.control('POST', 'restaurants/1/reservations/1/modify', { comment: 'x' });
    expect(modify.status).toBe(409);
    expect(
      (await audit.send('GET', `${API}/restaurants/1/reservations/1/`, { authorization: demoAuth })).status,
    ).toBe(200);
    // A reset frees the room.
    await audit.control('POST', 'reset');
    expect((await fill(audit, '', 1)).accepted).toBe(1);
  });

  it('the sandboxes and the server share one total; the refusal names it', async () => {
    audit = await startAudit({ memoryLimits: { worldBytes: 6 * MiB, totalBytes: 8 * MiB } });
    const own = await fill(audit);
    expect(own.refusal?.body.detail).toContain('at most 6 MiB of data in one fake');
    const sandbox = await audit.control('POST', 'sandboxes', { rateLimit: false });
    const shared = await fill(audit, `/sandboxes/${sandbox.body.id}`);
    // The server's world holds about 6 MiB of the 8: the sandbox gets the rest, far less than its own 6.
    expect(shared.accepted).toBeLessThan(own.accepted / 2);
    expect(shared.refusal?.status).toBe(409);
    expect(shared.refusal?.body.detail).toContain(
      "at most 8 MiB of data held by this server's fake and its sandboxes together",
    );
    expect(shared.refusal?.body.detail).toContain('DELETE /_fake/sandboxes/:id');
  });

  it('named snapshots count: one that would not fit is refused', async () => {
    audit = await startAudit({ memoryLimits: { worldBytes: 4 * MiB } });
    const { accepted } = await fill(audit, '', 4);
    expect(accepted).toBe(4);
    expect((await audit.control('POST', 'snapshots', { name: 'first' })).status).toBe(201);
    const second = await audit.control('POST', 'snapshots', { name: 'second' });
    expect(second.status).toBe(409);
    expect(second.body.detail).toContain('at most 4 MiB of data in one fake');
  });

  it('the delivery log keeps a share of the world in bytes, oldest attempts dropped first', async () => {
    audit = await startAudit({ memoryLimits: { worldBytes: 8 * MiB } });
    receiver = await startReceiver();
    await subscribe(audit, receiver.url);
    const { accepted } = await fill(audit, '', 12);
    for (let id = 1; id <= accepted; id += 1)
      await audit.control('POST', `restaurants/1/reservations/${id}/cancel`, {});
    expect(receiver.bodies).toHaveLength(12);
    const log = (await audit.control('GET', 'deliveries')).body as { body: string; reservationId: number }[];
    // Each attempt's body is about 38,000 two-byte characters (76 kB): 512 KiB (1/16 of 8 MiB) keeps some, not all.
    expect(log.length).toBeLessThan(12);
    expect(log.length).toBeGreaterThan(3);
    expect(log.at(-1)!.reservationId).toBe(12);
  });

  it('limits below 1 MiB, or not whole, are refused where the fake is made', () => {
    expect(() => createFakeService({ memoryLimits: { worldBytes: 1000 } })).toThrow(
      /memoryLimits.worldBytes/,
    );
    expect(() => createFakeService({ memoryLimits: { totalBytes: 3 * MiB + 0.5 } })).toThrow(
      /memoryLimits.totalBytes/,
    );
  });
});

describe('what webhooks keep counts too', () => {
  it("the answers webhooks keep as last_response count against the world's bytes", async () => {
    audit = await startAudit({ memoryLimits: { worldBytes: 1 * MiB } });
    // A receiver whose answer is 8 KiB of JSON: each webhook keeps it as last_response.
    const { createServer } = await import('node:http');
    const big = JSON.stringify({ note: 'y'.repeat(8000) });
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(big));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
    try {
      // Eight partners with twenty webhooks each: 160 answers of 8 KiB kept, over 1 MiB.
      let refusedAt: number | undefined;
      for (let partner = 0; partner < 8 && refusedAt === undefined; partner += 1) {
        const added = await audit.control('POST', 'partners', { name: `P${partner}` });
        const auth = basicAuthorization(added.body.partnerId, added.body.apiToken);
        for (let index = 0; index < 20; index += 1) {
          const created = await audit.send(
            'POST',
            `${API}/webhooks/`,
            { authorization: auth },
            JSON.stringify({ url }),
          );
          const id = rawJson(created).id as number;
          await audit.send('POST', `${API}/webhooks/${id}/test/`, { authorization: auth });
        }
        const booking = await audit.send(
          'POST',
          `${API}/restaurants/1/reservations/`,
          { authorization: demoAuth },
          JSON.stringify({
            start_time: `2026-12-${String(10 + partner).padStart(2, '0')}T19:00:00`,
            adults: 2,
          }),
        );
        if (booking.status === 409) refusedAt = partner;
      }
      expect(refusedAt).toBeDefined();
      // Counted at about three times their text (parsed JSON): some forty-three fit, not the first twenty alone.
      expect(refusedAt!).toBeGreaterThanOrEqual(1);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
