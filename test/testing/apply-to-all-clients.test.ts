/**
 * `fake.applyToAllClients()`: the trial of a new partner, reproduced. Their app builds its own
 * `PartnerClient` (a real-time limiter at 1 request per second, real back-off, a 10 s look-up
 * window); with MSW and this switch, its six tests run on the fake's clock: many seconds of the
 * fake's time, a fraction of a second of real time.
 */
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient } from 'restaurant-partner-sdk';
import { createFakeService } from 'restaurant-partner-sdk/testing';
import { START } from './helpers.js';
import { createBookingApp } from './support/booking-app.js';

const BASE_URL = 'https://partner-api.example.com';
const fake = createFakeService({ clock: { frozen: true, startAt: START } });
const partner = fake.addPartner();
const restaurant = fake.addRestaurant({ partnerIds: [partner.partnerId] });
const config = { PARTNER_BASE_URL: BASE_URL, PARTNER_ID: partner.partnerId, PARTNER_TOKEN: partner.apiToken };
// Built before the switch is turned on, as a module-level client of an app would be.
const app = createBookingApp(config);
const server = setupServer(...fake.handlers);
let undo: () => void;
const fakeStart = fake.clock.now();

/**
 * Real waits, counted rather than timed: every real timer of at least `LONG_WAIT_MS` that fired
 * during the trial (a budget wait or a back-off in real time would be one). Timers that are set
 * and cleared (ky's request timeout) never fire, so they do not count, nor do undici's own
 * connection ticks (a socket's housekeeping, not a wait of the call). Tests 6 and 7 are left out
 * on purpose: 6 calls another service (real time by design), and 7's first call is made before
 * the fake knows the service, so it may wait on the real clock once.
 */
const LONG_WAIT_MS = 200;
const longWaitsFired: number[] = [];
let counting = true;
const realSetTimeout = globalThis.setTimeout;
function countingSetTimeout(
  callback: (...args: unknown[]) => void,
  delay?: number,
  ...args: unknown[]
): ReturnType<typeof setTimeout> {
  const ms = delay ?? 0;
  const sdkWait = counting && ms >= LONG_WAIT_MS && !new Error().stack?.includes('undici');
  return realSetTimeout(() => {
    if (sdkWait) longWaitsFired.push(ms);
    callback(...args);
  }, ms);
}

beforeAll(() => {
  server.listen();
  undo = fake.applyToAllClients({ baseUrls: [BASE_URL] });
  globalThis.setTimeout = countingSetTimeout as typeof setTimeout;
});
afterAll(() => {
  globalThis.setTimeout = realSetTimeout;
  undo();
  server.close();
  fake.dispose();
});

/** Milliseconds the fake's clock moved during `run`. */
async function fakeTimeOf(run: () => Promise<unknown>): Promise<number> {
  const before = fake.clock.now();
  await run();
  return fake.clock.now() - before;
}

describe('an app that builds its own client, under fake.applyToAllClients()', () => {
  it('1. paces at the fake rate limit on the fake clock: six calls take five seconds of the fake time', async () => {
    const moved = await fakeTimeOf(async () => {
      for (let call = 0; call < 6; call += 1) expect(await app.restaurants()).toHaveLength(1);
    });
    expect(moved).toBeGreaterThanOrEqual(5000);
    // Paced, never refused: the fake counted no 429.
    expect(fake.requests.filter((entry) => entry.status === 429)).toHaveLength(0);
  });

  it('2. books several reservations in a row, each spaced by the limiter on the fake clock', async () => {
    const times = ['19:00', '19:30', '20:00', '20:30'];
    const moved = await fakeTimeOf(async () => {
      for (const time of times) await app.book(restaurant.id, '2026-12-05', time, `Guest ${time}`);
    });
    expect(moved).toBeGreaterThanOrEqual(3000);
    expect(fake.allReservations(restaurant.id)).toHaveLength(4);
  });

  it('3. backs off on the fake clock after a 503', async () => {
    fake.injectFault({ operation: 'restaurants.list', status: 503, times: 2 });
    const retries: number[] = [];
    const traced = app.client.withOptions({ hooks: { onRetry: (event) => retries.push(event.delayMs!) } });
    const moved = await fakeTimeOf(() => traced.restaurants.list().toArray());
    expect(retries).toHaveLength(2);
    expect(moved).toBeGreaterThanOrEqual(retries[0]! + retries[1]!);
  });

  it("4. finds a booking the service commits late within the look-up window, on the fake's clock", async () => {
    fake.injectFault({ operation: 'reservations.create', status: 504, commitDelayMs: 3000 });
    const moved = await fakeTimeOf(async () => {
      const booked = await app.book(restaurant.id, '2026-12-06', '19:30', 'Late');
      expect(booked.last_name).toBe('Late');
    });
    expect(moved).toBeGreaterThanOrEqual(3000);
    expect(
      fake.allReservations(restaurant.id).filter((booking) => booking.last_name === 'Late'),
    ).toHaveLength(1);
  });

  it('5. a client the app builds after the switch follows too, and cancels', async () => {
    const later = createBookingApp(config);
    const [first] = await later.upcoming(restaurant.id);
    const moved = await fakeTimeOf(async () => {
      await later.cancel(restaurant.id, first!.id);
      await later.cancel(restaurant.id, first!.id);
    });
    expect(moved).toBeGreaterThanOrEqual(1000);
    expect(fake.allReservations(restaurant.id).find((booking) => booking.id === first!.id)?.cancelled).toBe(
      true,
    );
  });

  it('6. never applies to another service: a client of another origin waits in real time, the fake clock stays', async () => {
    counting = false;
    // Another service (a second fake without a rate limit), reached without MSW.
    const elsewhere = createFakeService({ clock: { frozen: true, startAt: START }, rateLimit: false });
    elsewhere.link(elsewhere.addPartner(partner).partnerId, elsewhere.addRestaurant().id);
    const other = new PartnerClient({
      baseUrl: 'https://other-service.example.org',
      partnerId: partner.partnerId,
      apiToken: partner.apiToken,
      rateLimit: { requestsPerSecond: 20 },
      logLevel: 'off',
      fetch: (input, init) => elsewhere.handle(new Request(input, init)),
    });
    const before = fake.clock.now();
    const started = performance.now();
    for (let call = 0; call < 3; call += 1) await other.restaurants.list().toArray();
    expect(fake.clock.now()).toBe(before);
    // Its real-time limiter spaced three calls by about 50 ms each.
    expect(performance.now() - started).toBeGreaterThanOrEqual(80);
    elsewhere.dispose();
  });

  it("7. follows a service its MSW handlers served, from that client's next call, without being told its URL", async () => {
    const learned = createBookingApp({ ...config, PARTNER_BASE_URL: 'https://learned-host.example.net' });
    // The first call waits on the client's own limiter (nothing waits for a first slot) and
    // tells the fake, through its handlers, that it answers this service.
    await learned.restaurants();
    const moved = await fakeTimeOf(async () => {
      for (let call = 0; call < 3; call += 1) await learned.restaurants();
    });
    expect(moved).toBeGreaterThanOrEqual(2000);
  });

  it('the whole trial: many seconds of the fake time, and no real wait in tests 1 to 5', () => {
    const fakeMs = fake.clock.now() - fakeStart;
    expect(fakeMs).toBeGreaterThanOrEqual(12_000);
    // Without the switch the same trial fires a real timer for every budget wait and back-off
    // (27.9 s of real time); with it, none fires, whatever the machine's load.
    expect(longWaitsFired).toEqual([]);
  });
});

describe('undo', () => {
  it('puts the real clock back: after it, the same client leaves the fake clock where it is', async () => {
    const fakeOnly = createFakeService({ clock: { frozen: true, startAt: START }, rateLimit: 20 });
    const mine = fakeOnly.addPartner();
    fakeOnly.addRestaurant({ partnerIds: [mine.partnerId] });
    const client = new PartnerClient({
      baseUrl: fakeOnly.baseUrl,
      partnerId: mine.partnerId,
      apiToken: mine.apiToken,
      rateLimit: { requestsPerSecond: 10 },
      logLevel: 'off',
      fetch: (input, init) => fakeOnly.handle(new Request(input, init)),
    });
    const stop = fakeOnly.applyToAllClients();
    const before = fakeOnly.clock.now();
    for (let call = 0; call < 3; call += 1) await client.restaurants.list().toArray();
    // The fake's 20 per second on its clock: two spacings of 50 ms at least.
    expect(fakeOnly.clock.now() - before).toBeGreaterThanOrEqual(100);
    stop();
    stop();
    const after = fakeOnly.clock.now();
    for (let call = 0; call < 3; call += 1) await client.restaurants.list().toArray();
    expect(fakeOnly.clock.now()).toBe(after);
    fakeOnly.dispose();
  });

  it('refuses base URLs that are not absolute URLs, naming the option', () => {
    expect(() => fake.applyToAllClients({ baseUrls: ['not a url'] })).toThrow(/baseUrls/);
  });
});
