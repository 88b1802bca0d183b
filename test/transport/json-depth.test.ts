/**
 * JSON nested past the SDK's bound is refused unparsed, wherever the SDK reads JSON from outside:
 * the client's answers (ResponseValidationError naming the rule, one request, no retry), webhook
 * deliveries (400) and the fake's request bodies (400). Brackets inside strings do not count, and
 * what the fake accepts reads back through the client. The memory this saves is measured in
 * deep-json.test.ts (slow lane).
 */
import { describe, expect, it } from 'vitest';
import { PartnerClient, ResponseValidationError, ServerError, silentLogger } from 'restaurant-partner-sdk';
import { createFakeService } from 'restaurant-partner-sdk/testing';
import { buildDelivery, createWebhookReceiver } from 'restaurant-partner-sdk/webhooks';
import { TOKEN } from '../webhooks/helpers.js';
import { reservation } from '../support/reservation.js';

const nestedArrays = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
/** `{"a":{"a":...{"a":1}...}}`, `depth` objects deep. */
const nestedObjects = (depth: number): unknown => {
  let value: unknown = 1;
  for (let level = 0; level < depth; level += 1) value = { a: value };
  return value;
};

/** A client whose every call is answered `status` with `body`; counts the requests. */
function clientAnswering(body: string, status = 200) {
  const calls = { count: 0 };
  const client = new PartnerClient({
    baseUrl: 'https://api.partner.test',
    partnerId: 'partner',
    apiToken: 'token-of-the-partner',
    rateLimit: false,
    logger: silentLogger,
    fetch: async () => {
      calls.count += 1;
      return new Response(body, { status, headers: { 'content-type': 'application/json' } });
    },
  });
  return { client, calls };
}

describe('the client refuses an answer nested more than 128 levels deep, unparsed', () => {
  it('129 levels: ResponseValidationError naming the rule, after one request', async () => {
    const { client, calls } = clientAnswering(nestedArrays(129));
    const error = await client.request({ method: 'GET', path: 'deep/' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues).toEqual([
      expect.objectContaining({ code: 'too_deep', message: expect.stringMatching(/more than 128 levels/) }),
    ]);
    expect((error as ResponseValidationError).sent).toBe('yes');
    expect(calls.count).toBe(1);
  });

  it('an error status keeps its class, the deep body kept as text, unparsed: a 503 is a ServerError', async () => {
    const body = nestedArrays(10_000);
    const { client } = clientAnswering(body, 503);
    const error = await client.profile.retrieve({ maxRetries: 0 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).body).toBe(body);
  });

  it('128 levels, and brackets inside strings (escaped quotes and backslashes too), read as usual', async () => {
    expect(
      await clientAnswering(nestedArrays(128)).client.request({ method: 'GET', path: 'x/' }),
    ).toHaveLength(1);
    const text = `x\\"${'['.repeat(500)}\\\\"`;
    const body = JSON.stringify({ note: text, nested: nestedObjects(10) });
    expect(await clientAnswering(body).client.request({ method: 'GET', path: 'x/' })).toEqual(
      JSON.parse(body),
    );
  });

  it('metadata the fake accepts (100 levels deep in a create) reads back inside a page of reservations', async () => {
    const fake = createFakeService({ rateLimit: false, clock: { frozen: true } });
    try {
      const partner = fake.addPartner();
      const restaurantId = fake.addRestaurant({ partnerIds: [partner.partnerId] }).id;
      const client = new PartnerClient({ ...fake.clientOptions(partner), logger: silentLogger });
      // The body `{"metadata":{"deep":{"a":...}}}` nests exactly 100 levels: the fake's limit.
      const metadata = { deep: nestedObjects(98) };
      const booking = await client.reservations.create(restaurantId, {
        start_time: { date: '2026-12-04', time: '19:00' },
        adults: 2,
        metadata: metadata,
      });
      const page = await client.reservations.list(restaurantId).toArray();
      expect(page.find((item) => item.id === booking.id)?.metadata).toMatchObject(metadata);
    } finally {
      fake.dispose();
    }
  });
});

describe('the webhook receiver refuses a delivery nested more than 128 levels deep, unparsed', () => {
  it('answers 400 naming the rule, and reads a delivery whose reservation metadata nests 100 levels', async () => {
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false }).on('*', () => {});
    const post = (body: string) =>
      receiver.handle(
        new Request('https://partner.test/hooks', {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body,
        }),
      );
    const deep = await post(`{"id":"evt_1","event":"TEST","junk":${nestedArrays(200_000)}}`);
    expect(deep.status).toBe(400);
    expect(await deep.json()).toEqual({ error: expect.stringMatching(/nested more than 128 levels deep/) });
    const metadata = { deep: nestedObjects(99) };
    const fine = buildDelivery(
      {
        event: 'RESERVATION_CONFIRMED',
        reservation: reservation({ metadata: metadata }),
      },
      TOKEN,
    );
    expect((await post(fine.body)).status).toBe(200);
  });
});
