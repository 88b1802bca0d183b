/**
 * The audit's findings on the typed client of the standalone fake: `waitForDelivery` waits on the
 * server and reads each attempt once (it re-read the whole delivery log every 25 ms), and
 * `connectFake` on a server that is not a fake fails at connect with a clear error.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { FakeError, connectFake } from 'restaurant-partner-sdk/testing';
import { API } from './helpers.js';
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
let other: Server | undefined;
const realFetch = globalThis.fetch;
afterEach(async () => {
  globalThis.fetch = realFetch;
  await audit?.server.close();
  await receiver?.close();
  other?.closeAllConnections();
  other?.close();
  audit = receiver = other = undefined;
});

/** Counts the typed client's control requests and the bytes it reads (the real fetch does the work). */
function countFetches(): { calls: number; bytes: number } {
  const counted = { calls: 0, bytes: 0 };
  globalThis.fetch = async (input, init) => {
    // The fake's own deliveries (to the receiver) go through fetch too: only control calls count.
    if (typeof input !== 'string' || !input.includes('/_fake/')) return realFetch(input, init);
    counted.calls += 1;
    const response = await realFetch(input, init);
    const text = await response.text();
    counted.bytes += Buffer.byteLength(text);
    return new Response(text, { status: response.status, headers: response.headers });
  };
  return counted;
}

it('waitForDelivery waits on the server and reads only what is new, however long the log', async () => {
  audit = await startAudit();
  receiver = await startReceiver();
  for (let index = 0; index < 10; index += 1) await subscribe(audit, receiver.url);
  // 30 cancellations to 10 webhooks: a log of 300 attempts with a 3,000-character comment each.
  const comment = 'x'.repeat(3000);
  for (let index = 0; index < 30; index += 1) {
    const answer = await audit.send(
      'POST',
      `${API}/restaurants/1/reservations/`,
      { authorization: demoAuth },
      JSON.stringify({
        start_time: `2026-12-${10 + (index % 15)}T${index < 15 ? 19 : 20}:00:00`,
        adults: 2,
        comment,
      }),
    );
    const id = JSON.parse(answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4)).id as number;
    await audit.control('POST', `restaurants/1/reservations/${id}/cancel`, {});
  }
  const log = (await audit.control('GET', 'deliveries')).body as unknown[];
  expect(log).toHaveLength(300);
  const logBytes = JSON.stringify(log).length;
  expect(logBytes).toBeGreaterThan(900_000);

  const fake = await connectFake(audit.server.url);
  const id = await book(audit, '', '2026-12-28T19:00:00');
  const counted = countFetches();
  const started = performance.now();
  const waiting = fake.waitForDelivery('RESERVATION_MODIFIED', { timeoutMs: 5000 });
  setTimeout(
    () => void audit!.control('POST', `restaurants/1/reservations/${id}/modify`, { adults: 3 }),
    600,
  );
  const delivery = await waiting;
  expect(delivery.reservationId).toBe(id);
  expect(performance.now() - started).toBeGreaterThanOrEqual(550);
  // Polling every 25 ms read the 1 MB log about 24 times; a wait on the server reads each attempt once.
  expect(counted.calls).toBeLessThanOrEqual(4);
  expect(counted.bytes).toBeLessThan(logBytes / 4);
  // The modification went to the ten webhooks: each attempt is returned once, then none is left.
  const webhooks = new Set([delivery.webhookId]);
  for (let index = 1; index < 10; index += 1)
    webhooks.add((await fake.waitForDelivery('RESERVATION_MODIFIED', { timeoutMs: 2000 })).webhookId);
  expect(webhooks.size).toBe(10);
  await expect(fake.waitForDelivery('RESERVATION_MODIFIED', { timeoutMs: 300 })).rejects.toMatchObject({
    status: 408,
    code: 'timeout',
  });
});

it('waitForDelivery still returns an attempt logged before it was called, once', async () => {
  audit = await startAudit();
  receiver = await startReceiver();
  await subscribe(audit, receiver.url);
  const fake = await connectFake(audit.server.url);
  const id = await book(audit);
  await audit.control('POST', `restaurants/1/reservations/${id}/cancel`, {});
  expect((await fake.waitForDelivery('RESERVATION_CANCELLED', { timeoutMs: 1000 })).reservationId).toBe(id);
  const second = fake.waitForDelivery('RESERVATION_CANCELLED', { timeoutMs: 400 });
  await expect(second).rejects.toBeInstanceOf(FakeError);
  await expect(second).rejects.toThrow(/RESERVATION_CANCELLED#1 -> 200/);
});

it('connectFake on a server that is not a fake fails at connect, naming the URL', async () => {
  for (const answer of [
    { status: 200, type: 'application/json', body: '{"ok":true}' },
    { status: 200, type: 'text/html', body: '<!doctype html><title>app</title>' },
    { status: 404, type: 'text/html', body: '<h1>Not Found</h1>' },
  ]) {
    other = createServer((_request, response) =>
      response.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body),
    );
    await new Promise<void>((resolve) => other!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const refused = await connectFake(url).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused, answer.body).toBeInstanceOf(FakeError);
    expect(refused).toMatchObject({ code: 'not_a_fake' });
    expect((refused as FakeError).message).toContain(`${url} is not a restaurant-partner fake`);
    // Credentials written into the URL never reach the message.
    const withSecret = await connectFake(url.replace('http://', 'http://user:s3cret-token@')).catch(
      (error: unknown) => error,
    );
    expect(withSecret).toMatchObject({ code: 'not_a_fake' });
    expect(String((withSecret as FakeError).message)).not.toContain('s3cret-token');
    other.close();
  }
});

it('GET /_fake/deliveries/changes answers what is new since a mark, waits within its bound, and refuses bad input', async () => {
  audit = await startAudit();
  receiver = await startReceiver();
  await subscribe(audit, receiver.url);
  const empty = await audit.control('GET', 'deliveries/changes');
  expect(empty.body.deliveries).toEqual([]);
  const id = await book(audit);
  await audit.control('POST', `restaurants/1/reservations/${id}/cancel`, {});
  const after = await audit.control('GET', `deliveries/changes?after=${empty.body.mark}`);
  expect(after.body.deliveries.map((entry: { event: string }) => entry.event)).toEqual([
    'RESERVATION_CANCELLED',
  ]);
  expect(after.body.mark).not.toBe(empty.body.mark);
  // Nothing new: a wait ends after waitMs with nothing, and the same mark.
  const started = performance.now();
  const none = await audit.control('GET', `deliveries/changes?after=${after.body.mark}&waitMs=300`);
  expect(performance.now() - started).toBeGreaterThanOrEqual(250);
  expect(none.body).toEqual({ mark: after.body.mark, deliveries: [] });
  for (const query of ['waitMs=30001', 'waitMs=-1', 'waitMs=soon', 'event=<script>']) {
    const refused = await audit.control('GET', `deliveries/changes?${query}`);
    expect(refused.status, query).toBe(400);
    expect(Object.keys(refused.body)).toContain(query.split('=')[0]);
  }
  // A mark of the world before a reset reads the new world's whole log (empty here).
  await audit.control('POST', 'reset');
  expect((await audit.control('GET', `deliveries/changes?after=${after.body.mark}`)).body.deliveries).toEqual(
    [],
  );
});
