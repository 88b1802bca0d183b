// What every runtime project runs: a partner's program against the standalone fake, using only the
// package's public names, imported from the packed tarball exactly as a partner imports them.
// Plain JavaScript with Web APIs only, so Node, Bun, Deno and a Cloudflare Worker run the same file.
//
// runScenario(config) never throws: it answers one result per check, { check, ok, detail }, so the
// runner can say per runtime what passed. config: { fakeUrl, partnerId, apiToken, restaurantId }.
import {
  AbortError,
  NoAvailabilityError,
  PartnerClient,
  RateLimitError,
  TimeoutError,
} from 'restaurant-partner-sdk';
import { buildDelivery, createWebhookReceiver } from 'restaurant-partner-sdk/webhooks';

/** A day far enough ahead for the fake's lead time and well inside its booking horizon. */
const bookingDate = () => new Date(Date.now() + 3 * 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

export async function runScenario(config) {
  const results = [];
  const check = async (name, body) => {
    try {
      const detail = await body();
      results.push({ check: name, ok: true, detail: detail ?? '' });
    } catch (error) {
      results.push({
        check: name,
        ok: false,
        detail: `${error?.name ?? 'Error'}: ${error?.message ?? String(error)}`,
      });
    }
  };
  const credentials = { baseUrl: config.fakeUrl, partnerId: config.partnerId, apiToken: config.apiToken };
  const restaurantId = config.restaurantId;
  const date = bookingDate();
  // The fake allows a few requests per second: this client paces itself one below that limit, so
  // network jitter bunching two requests at the fake cannot cost the single-attempt calls below a 429.
  const onRequest = new Set();
  const client = new PartnerClient({
    ...credentials,
    rateLimit: { requestsPerSecond: Math.max(1, config.requestsPerSecond - 1) },
    maxRetries: 5,
    logger: quietLogger,
    hooks: { onRequest: (event) => onRequest.forEach((listener) => listener(event)) },
  });

  const booked = [];
  await check('core: book', async () => {
    for (const time of ['19:00', '19:15', '19:30']) {
      const reservation = await client.reservations.create(restaurantId, {
        start_time: { date, time },
        adults: 2,
        first_name: 'Ada',
        last_name: 'Lovelace',
      });
      expect(
        Number.isInteger(reservation.id),
        `create answered no reservation id: ${JSON.stringify(reservation)}`,
      );
      booked.push(reservation);
    }
    return `booked #${booked.map((reservation) => reservation.id).join(', #')} on ${date}`;
  });

  await check('core: list across pages', async () => {
    expect(booked.length === 3, 'nothing to list: the bookings failed');
    const first = await client.reservations.list(restaurantId, { page_size: 2 });
    expect(
      first.items.length === 2 && first.hasNextPage(),
      `page 1 held ${first.items.length} items, next page: ${first.hasNextPage()}`,
    );
    const pages = [first];
    while (pages.at(-1).hasNextPage()) pages.push(await pages.at(-1).getNextPage());
    const listed = new Set(pages.flatMap((page) => page.items.map((reservation) => reservation.id)));
    const everything = await client.reservations.list(restaurantId, { page_size: 2 }).toArray();
    for (const reservation of booked)
      expect(listed.has(reservation.id), `reservation #${reservation.id} missing from the pages`);
    expect(
      everything.length === listed.size,
      `async iteration saw ${everything.length} reservations, the pages ${listed.size}`,
    );
    return `${listed.size} reservations over ${pages.length} pages of 2`;
  });

  await check('core: cancel', async () => {
    expect(booked.length > 0, 'nothing to cancel: the bookings failed');
    const target = booked[0];
    await client.reservations.cancel(restaurantId, target.id);
    const again = await client.reservations.retrieve(restaurantId, target.id);
    expect(again.cancelled === true, `reservation #${target.id} reads cancelled: ${again.cancelled}`);
    return `#${target.id} cancelled`;
  });

  await check('core: NoAvailabilityError', async () => {
    try {
      await client.reservations.create(restaurantId, { start_time: { date, time: '03:00' }, adults: 2 });
    } catch (error) {
      expect(
        error instanceof NoAvailabilityError,
        `expected NoAvailabilityError, got ${error?.name}: ${error?.message}`,
      );
      return `${error.name} (HTTP ${error.status})`;
    }
    throw new Error('a booking at 03:00, when the restaurant is closed, succeeded');
  });

  await check('core: timeout and abort', async () => {
    // The fake holds its next answer for a second: a 200 ms attempt times out (AbortSignal.timeout and
    // AbortSignal.any on this runtime). Then a caller's signal ends a call still waiting for its turn
    // under the rate limit. Each leaves no timer behind: the runner fails a process that does not exit.
    const slow = await fetch(new URL('/_fake/faults', config.fakeUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operation: 'profile.retrieve', latencyMs: 1000, times: 1 }),
    });
    expect(slow.ok, `the fake refused the latency fault: ${slow.status} ${await slow.text()}`);
    const timedOut = await client.profile.retrieve({ timeoutMs: 200, maxRetries: 0 }).then(
      () => undefined,
      (error) => error,
    );
    expect(
      timedOut instanceof TimeoutError,
      `expected TimeoutError, got ${timedOut?.name}: ${timedOut?.message}`,
    );
    const controller = new AbortController();
    const first = client.profile.retrieve();
    const waiting = client.profile.retrieve({ signal: controller.signal }).then(
      () => undefined,
      (error) => error,
    );
    setTimeout(() => controller.abort(), 20);
    const aborted = await waiting;
    await first;
    expect(aborted instanceof AbortError, `expected AbortError, got ${aborted?.name}: ${aborted?.message}`);
    // And a caller's signal ends a call whose request is on the wire.
    const held = await fetch(new URL('/_fake/faults', config.fakeUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operation: 'profile.retrieve', latencyMs: 1000, times: 1 }),
    });
    expect(held.ok, `the fake refused the latency fault: ${held.status}`);
    const inFlight = new AbortController();
    // Aborted 200 ms after the request left (past its rate-limit wait), while the fake holds it.
    const abortOnceSent = () => {
      onRequest.delete(abortOnceSent);
      setTimeout(() => inFlight.abort(), 200);
    };
    onRequest.add(abortOnceSent);
    const cut = await client.profile.retrieve({ signal: inFlight.signal }).then(
      () => undefined,
      (error) => error,
    );
    onRequest.delete(abortOnceSent);
    expect(cut instanceof AbortError, `expected AbortError in flight, got ${cut?.name}: ${cut?.message}`);
    return 'TimeoutError after 200 ms; AbortError while waiting for the rate limit and while on the wire';
  });

  await check('core: 429 retried', async () => {
    // No client-side limiter: the burst goes straight to the fake, which answers 429 with Retry-After.
    const retried = [];
    const eager = new PartnerClient({
      ...credentials,
      rateLimit: false,
      maxRetries: 5,
      logger: quietLogger,
      hooks: { onRetry: (event) => retried.push(event) },
    });
    const profiles = await Promise.all(
      Array.from({ length: config.requestsPerSecond + 2 }, () => eager.profile.retrieve()),
    );
    const throttled = retried.filter((event) => event.status === 429);
    expect(
      throttled.length > 0,
      `no 429 in a burst of ${profiles.length} (retries seen: ${JSON.stringify(retried)})`,
    );
    expect(
      profiles.every((profile) => typeof profile.name === 'string'),
      'a retried call answered no profile',
    );
    return `${throttled.length} answers of 429 retried after Retry-After; all ${profiles.length} calls answered`;
  });

  await check('core: RateLimitError', async () => {
    const impatient = new PartnerClient({
      ...credentials,
      rateLimit: false,
      maxRetries: 0,
      logger: quietLogger,
    });
    const outcomes = await Promise.allSettled(
      Array.from({ length: config.requestsPerSecond + 2 }, () => impatient.profile.retrieve()),
    );
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(refused.length > 0, 'a burst over the limit with retries off was never refused');
    const other = refused.find((outcome) => !(outcome.reason instanceof RateLimitError));
    expect(!other, `expected RateLimitError, got ${other?.reason?.name}: ${other?.reason?.message}`);
    return `${refused.length} of ${outcomes.length} refused as RateLimitError (retryAfterMs ${refused[0].reason.retryAfterMs})`;
  });

  const token = `whk_${crypto.randomUUID()}`;
  const handled = [];
  const receiver = createWebhookReceiver({ tokens: [token], logger: quietLogger }).on(
    'RESERVATION_CONFIRMED',
    (event) => {
      handled.push(event);
    },
  );
  const reservation = booked[1] ?? { id: 1, restaurant_id: restaurantId };
  const post = (delivery) =>
    receiver.handle(
      new Request('https://partner.example/webhooks', {
        method: 'POST',
        headers: delivery.headers,
        body: delivery.body,
      }),
    );

  await check('webhooks: good delivery accepted', async () => {
    const delivery = buildDelivery({ event: 'RESERVATION_CONFIRMED', reservation, restaurantId }, token);
    const answer = await post(delivery);
    expect(answer.status === 200, `a good delivery was answered ${answer.status}: ${await answer.text()}`);
    expect(
      handled.length === 1 && handled[0].reservation?.id === reservation.id,
      `the handler saw ${handled.length} events`,
    );
    const replay = await post(delivery);
    const replayBody = await replay.json();
    expect(
      replay.status === 200 && replayBody.duplicate === true && handled.length === 1,
      `a replayed delivery was answered ${replay.status} ${JSON.stringify(replayBody)}, handler runs: ${handled.length}`,
    );
    return `200, handler ran once for #${reservation.id}; the replay answered 200 duplicate`;
  });

  await check(
    'webhooks: a delivery with a field this version does not know is read through the schemas',
    async () => {
      // Not the common shape: the receiver loads its envelope schemas (and zod) for it, on first need.
      const delivery = buildDelivery({ event: 'RESERVATION_CONFIRMED', reservation, restaurantId }, token);
      const body = JSON.stringify({
        ...JSON.parse(delivery.body),
        id: `evt_${crypto.randomUUID()}`,
        attempt: 1,
      });
      const before = handled.length;
      const answer = await post({ ...delivery, body });
      expect(answer.status === 200, `answered ${answer.status}: ${await answer.text()}`);
      expect(
        handled.length === before + 1 && handled.at(-1).attempt === 1,
        `the handler saw ${handled.length - before} events, attempt ${handled.at(-1)?.attempt}`,
      );
      return '200, the unknown field kept on the event';
    },
  );

  await check('webhooks: forged delivery refused', async () => {
    const before = handled.length;
    const forged = buildDelivery(
      { event: 'RESERVATION_CONFIRMED', reservation, restaurantId },
      `whk_${crypto.randomUUID()}`,
    );
    const answer = await post(forged);
    expect(answer.status === 401, `a forged delivery was answered ${answer.status}`);
    const unsigned = buildDelivery({ event: 'RESERVATION_CONFIRMED', reservation, restaurantId }, token);
    delete unsigned.headers.authorization;
    const bare = await post(unsigned);
    expect(bare.status === 401, `a delivery without a token was answered ${bare.status}`);
    expect(handled.length === before, 'the handler ran for a forged delivery');
    return 'wrong token 401, no token 401, handler not run';
  });

  return results;
}

/** Prints a runtime's results as the one line the runner reads. */
export function report(runtime, results) {
  console.log(`ECOSYSTEM-RESULTS ${JSON.stringify({ runtime, results })}`);
}
