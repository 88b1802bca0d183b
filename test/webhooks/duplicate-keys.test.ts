/**
 * What makes two deliveries "the same" for the duplicate store: the webhook they were sent for
 * and the delivery itself, never the token that happened to sign it. A retry after a token
 * rotation is still a duplicate; two webhooks whose delivery ids repeat are still two deliveries.
 */
import { describe, expect, it } from 'vitest';
import { PartnerClient } from 'restaurant-partner-sdk';
import { createFakeService } from 'restaurant-partner-sdk/testing';
import {
  buildDelivery,
  buildDeliveryRequest,
  createMemoryDuplicateStore,
  createWebhookReceiver,
  WebhookConfigurationError,
  type DeliveryContent,
  type WebhookEvent,
  type WebhookReceiver,
} from 'restaurant-partner-sdk/webhooks';
import { OTHER_TOKEN, TOKEN } from './helpers.js';
import { reservation } from '../support/reservation.js';

const URL_ = 'https://partner.test/webhooks';

const post = (receiver: WebhookReceiver, body: string, token: string) =>
  receiver.handle(
    new Request(URL_, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body,
    }),
  );

describe('a TEST delivery retried after the token was regenerated is a duplicate', () => {
  it('through the fake: the same TEST, sent again with the new token, does not run the handler again', async () => {
    const fake = createFakeService({ rateLimit: false, clock: { frozen: true } });
    try {
      const partner = fake.addPartner();
      const client = new PartnerClient(fake.clientOptions(partner));
      const accepted: string[] = [];
      const tests: WebhookEvent[] = [];
      const receiver = createWebhookReceiver({ tokens: () => accepted, logger: false }).on(
        'TEST',
        (event) => void tests.push(event),
      );
      fake.registerDeliveryHandler(URL_, (request) => receiver.handle(request));
      const webhook = await client.webhooks.create({ url: URL_ });
      accepted.push(webhook.auth_token!);

      await client.webhooks.test(webhook.id);
      expect(tests).toHaveLength(1);
      const sent = fake.deliveries.find((entry) => entry.event === 'TEST')!;
      expect(sent.status).toBe(200);

      // The service switches tokens at once; the partner swaps them in its receiver.
      const rotated = (await client.webhooks.regenerateToken(webhook.id)).auth_token!;
      accepted.splice(0, Infinity, rotated);
      // The service sends the same TEST again (its answer was lost, say), signed with the new token.
      const again = await post(receiver, sent.body, rotated);
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ received: true, duplicate: true });
      expect(tests).toHaveLength(1);
    } finally {
      fake.dispose();
    }
  });

  it('a delivery that does not name its webhook: the webhookId option keys it, whichever token signs it', async () => {
    const runs: string[] = [];
    const receiver = createWebhookReceiver({
      tokens: [TOKEN, OTHER_TOKEN],
      webhookId: 12,
      logger: false,
    })
      .on('TEST', (event) => void runs.push(event.id))
      .on('RESERVATION_CONFIRMED', (event) => void runs.push(event.id));
    for (const content of [
      { event: 'TEST', id: 'evt_test' },
      { event: 'RESERVATION_CONFIRMED', reservation: reservation(), id: 'evt_confirmed' },
    ] satisfies DeliveryContent[]) {
      expect((await receiver.handle(buildDeliveryRequest(URL_, content, TOKEN))).status).toBe(200);
      const retried = await receiver.handle(buildDeliveryRequest(URL_, content, OTHER_TOKEN));
      expect(await retried.json()).toEqual({ received: true, duplicate: true });
    }
    expect(runs).toEqual(['evt_test', 'evt_confirmed']);
  });

  it('refuses a webhookId that is not an id, naming the option', () => {
    for (const webhookId of ['', 1.5, {}, null] as unknown[])
      expect(() => createWebhookReceiver({ tokens: [TOKEN], webhookId: webhookId as string })).toThrow(
        WebhookConfigurationError,
      );
    expect(() => createWebhookReceiver({ tokens: [TOKEN], webhookId: '' })).toThrow(/webhookId/);
  });
});

describe('delivery ids that repeat across webhooks do not make a duplicate', () => {
  // Worst case: the same event about the same reservation, numbered 1 by each webhook.
  const first = (webhookId?: number): DeliveryContent => ({
    event: 'RESERVATION_CONFIRMED',
    reservation: reservation({ id: 4021 }),
    restaurantId: 7,
    id: '1',
    ...(webhookId === undefined ? {} : { webhookId }),
  });

  it("two webhooks' delivery #1 to one receiver (each names its webhook) are both handled, each once", async () => {
    const handled: unknown[] = [];
    const receiver = createWebhookReceiver({ tokens: [TOKEN, OTHER_TOKEN], logger: false }).on(
      'RESERVATION_CONFIRMED',
      (event) => void handled.push(event.webhook_id),
    );
    for (const [webhookId, token] of [
      [1, TOKEN],
      [2, OTHER_TOKEN],
    ] as const) {
      const delivery = buildDelivery(first(webhookId), token);
      expect(await (await post(receiver, delivery.body, token)).json()).toEqual({ received: true });
      // Each one's own retry is still a duplicate.
      expect(await (await post(receiver, delivery.body, token)).json()).toEqual({
        received: true,
        duplicate: true,
      });
    }
    expect(handled).toEqual([1, 2]);
  });

  it("two webhooks' delivery #1 that do not name their webhook are told apart by their tokens", async () => {
    const handled: string[] = [];
    const receiver = createWebhookReceiver({ tokens: [TOKEN, OTHER_TOKEN], logger: false }).on(
      'RESERVATION_CONFIRMED',
      () => void handled.push('confirmed'),
    );
    for (const token of [TOKEN, OTHER_TOKEN])
      expect(await (await post(receiver, buildDelivery(first(), token).body, token)).json()).toEqual({
        received: true,
      });
    expect(handled).toEqual(['confirmed', 'confirmed']);
  });

  it('two receivers of two webhooks sharing one store each handle their delivery #1', async () => {
    const duplicateStore = createMemoryDuplicateStore();
    const handled: string[] = [];
    const receiverOf = (name: string, token: string) =>
      createWebhookReceiver({ tokens: [token], duplicateStore, logger: false }).on(
        'RESERVATION_CONFIRMED',
        () => void handled.push(name),
      );
    const bookings = receiverOf('bookings', TOKEN);
    const analytics = receiverOf('analytics', OTHER_TOKEN);
    await post(bookings, buildDelivery(first(1), TOKEN).body, TOKEN);
    await post(analytics, buildDelivery(first(2), OTHER_TOKEN).body, OTHER_TOKEN);
    expect(handled).toEqual(['bookings', 'analytics']);
  });
});
