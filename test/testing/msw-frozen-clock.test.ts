/**
 * MSW with a frozen fake clock and the app's own client (its own real-time limiter): the fake's
 * rate-limit window must not stay shut for ever because the fake's clock never moves.
 */
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PartnerClient } from 'restaurant-partner-sdk';
import { createFakeService } from 'restaurant-partner-sdk/testing';
import { START } from './helpers.js';

// A real-time rate limit the test can afford to wait for: 4 per second at the fake, 3 in the client.
const fake = createFakeService({ clock: { frozen: true, startAt: START }, rateLimit: 4 });
const server = setupServer(...fake.handlers);
beforeAll(() => server.listen());
afterAll(() => {
  server.close();
  fake.dispose();
});

describe("MSW, a frozen fake clock and the app's own client", () => {
  it('gets through: a caller that waits in real time is admitted when the window has moved in real time', async () => {
    const partner = fake.addPartner();
    fake.addRestaurant({ partnerIds: [partner.partnerId] });
    // The app's own client, as its production code builds it: a real-time limiter, no fake clock.
    const client = new PartnerClient({
      baseUrl: 'https://partner-api.example',
      partnerId: partner.partnerId,
      apiToken: partner.apiToken,
      rateLimit: { requestsPerSecond: 3 },
      maxRetries: 3,
    });
    for (let call = 0; call < 8; call += 1) expect(await client.restaurants.list().toArray()).toHaveLength(1);
    // The fake's own clock never moved.
    expect(fake.clock.now()).toBe(Date.parse(START));
    // Without real-time admission every call after the fourth would meet a window that never moves:
    // 429 after 429 until the client's retries ran out.
    expect(fake.requests.filter((entry) => entry.status === 200)).toHaveLength(8);
  });
});
