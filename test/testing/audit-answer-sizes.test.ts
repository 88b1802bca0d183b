/**
 * The audit's findings on answer sizes at the caps: `GET /_fake/state` (the simulator page polls
 * it) stays within a byte budget however large the bookings, and one restaurant's full list comes
 * in pages, each bounded, with a `next` link, which the typed client follows.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connectFake } from 'restaurant-partner-sdk/testing';
import { API } from './helpers.js';
import { demoAuth, startAudit, type AuditServer } from './audit-support.js';
import type { RawAnswer } from './raw-http.js';

let audit: AuditServer | undefined;
afterEach(async () => {
  await audit?.server.close();
  audit = undefined;
});

const emoji = '\u{1F600}';
const bodyOf = (answer: RawAnswer) => answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4);
const header = (answer: RawAnswer, name: string) =>
  new RegExp(`\\r\\n${name}: ([^\\r]*)`, 'i').exec(
    answer.text.slice(0, answer.text.indexOf('\r\n\r\n')),
  )?.[1];

/** Books `count` bookings with 10,000-emoji comments at restaurant 1 (about 40,000 characters of JSON each). */
async function fillWithLargeBookings(server: AuditServer, count: number) {
  for (let index = 0; index < count; index += 1) {
    const answer = await server.send(
      'POST',
      `${API}/restaurants/1/reservations/`,
      { authorization: demoAuth },
      JSON.stringify({
        start_time: `2026-12-${String(2 + (index % 28)).padStart(2, '0')}T${index % 2 === 0 ? 12 : 19}:${String(15 * (Math.floor(index / 56) % 4)).padStart(2, '0')}:00`,
        adults: 1,
        comment: emoji.repeat(10_000),
        first_name: emoji.repeat(255),
      }),
    );
    expect(answer.status).toBe(201);
  }
}

// Each test books 80 to 140 bookings of 40 kB over raw sockets: seconds alone, more on a loaded machine.
describe('answers bounded in size at the caps', { timeout: 60_000 }, () => {
  it('the state answer stays within its byte budget, says what it left out, and gives more when asked', async () => {
    audit = await startAudit();
    await fillWithLargeBookings(audit, 80);
    const state = await audit.send('GET', '/_fake/state');
    expect(state.status).toBe(200);
    // 80 bookings of about 21,000 characters each would be 1.7 MB; the budget is 1 MiB.
    expect(bodyOf(state).length).toBeLessThan(1.2 * 1024 * 1024);
    const body = JSON.parse(bodyOf(state));
    expect(body.reservationsTotal).toBe(80);
    expect(body.reservations.length).toBeGreaterThan(0);
    expect(body.reservations.length + body.leftOutForSize.reservations).toBe(80);
    expect(body.leftOutForSize.reservations).toBeGreaterThan(0);
    // The newest are the ones shown.
    expect(Math.max(...body.reservations.map((row: { id: number }) => row.id))).toBe(80);
    const all = JSON.parse(bodyOf(await audit.send('GET', '/_fake/state?bytes=16777216')));
    expect(all.reservations).toHaveLength(80);
    expect(all.leftOutForSize).toEqual({ reservations: 0, deliveries: 0 });
    expect((await audit.send('GET', '/_fake/state?bytes=16777217')).status).toBe(400);
  });

  it("one restaurant's list comes in bounded pages with a next link and a total; connectFake reads them all", async () => {
    audit = await startAudit();
    await fillWithLargeBookings(audit, 140);
    const seen = new Set<number>();
    let target: string | undefined = '/_fake/restaurants/1/reservations';
    let pages = 0;
    while (target) {
      const page = await audit.send('GET', target);
      expect(page.status).toBe(200);
      expect(bodyOf(page).length).toBeLessThan(4.2 * 1024 * 1024);
      expect(header(page, 'x-total-count')).toBe('140');
      for (const row of JSON.parse(bodyOf(page)) as { id: number }[]) seen.add(row.id);
      const next = header(page, 'link');
      target =
        next === undefined
          ? undefined
          : new URL(/<([^>]+)>/.exec(next)![1]!).pathname + new URL(/<([^>]+)>/.exec(next)![1]!).search;
      pages += 1;
    }
    // About 8.8 MB in UTF-8 in all (bounded at 3 bytes a UTF-16 unit): more than one page of 4 MiB, every booking once.
    expect(pages).toBeGreaterThan(1);
    expect(seen.size).toBe(140);
    const small = await audit.send('GET', '/_fake/restaurants/1/reservations?limit=10&offset=135');
    expect(JSON.parse(bodyOf(small))).toHaveLength(5);
    expect(header(small, 'link')).toBeUndefined();
    expect((await audit.send('GET', '/_fake/restaurants/1/reservations?limit=0')).status).toBe(400);
    const fake = await connectFake(audit.server.url);
    expect((await fake.allReservations(1)).map((row) => row.id)).toHaveLength(140);
  });
});
