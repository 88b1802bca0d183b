/**
 * A partner's world on the in-process fake for the sync's tests: a frozen fake clock, restaurants,
 * a client on the fake's clock, a webhook whose deliveries go in-process to a receiver, and a
 * clock for the sync whose waits end only when the test moves time (so the schedule is proven on
 * the fake's clock, step by step, instead of racing ahead).
 */
import { DateTime } from 'luxon';
import { PartnerClient, type Reservation } from 'restaurant-partner-sdk';
import { createFakeService, type FakeService } from 'restaurant-partner-sdk/testing';
import { createWebhookReceiver, type WebhookReceiver } from 'restaurant-partner-sdk/webhooks';
import { followerClock, type FollowerClock } from './follower-clock.mjs';

export type { FollowerClock };

export const ZONE = 'Europe/Brussels';
export const HOOK_URL = 'https://partner.example/hooks/reservations';

export interface World {
  fake: FakeService;
  client: PartnerClient;
  restaurantIds: number[];
  receiver: WebhookReceiver;
  clock: FollowerClock;
  /** The webhook feeding the receiver, and the tokens the receiver accepts (edit them to play a rotation). */
  webhookId: number;
  tokens: string[];
  /** Books for the partner through the client, `days` ahead at `time` local. */
  book(
    restaurantId: number,
    options?: { days?: number; time?: string; adults?: number },
  ): Promise<Reservation>;
}

export async function createWorld(
  options: { restaurants?: number; confirmation?: 'sync' | 'async'; rateLimit?: number | false } = {},
): Promise<World> {
  const fake = createFakeService({
    clock: { frozen: true, startAt: '2026-12-01T08:00:00Z' },
    rateLimit: options.rateLimit ?? 1,
  });
  const partner = fake.addPartner({ name: 'Sync partner' });
  const restaurantIds: number[] = [];
  for (let index = 0; index < (options.restaurants ?? 1); index++) {
    const mode =
      options.confirmation === 'sync' ? 'CONFIRMATION_MODE_SYNCHRONOUS' : 'CONFIRMATION_MODE_ASYNCHRONOUS';
    restaurantIds.push(
      fake.addRestaurant({ confirmation_mode: mode, partnerIds: [partner.partnerId], timezone: ZONE }).id,
    );
  }
  const client = new PartnerClient({
    ...fake.clientOptions(partner),
    logLevel: 'off',
    restaurantTimezones: Object.fromEntries(restaurantIds.map((id) => [id, ZONE])),
  });
  const webhook = await client.webhooks.create({ url: HOOK_URL, name: 'sync' });
  const tokens = [webhook.auth_token!];
  const receiver = createWebhookReceiver({
    tokens: async () => tokens,
    logger: { warn: () => undefined, error: () => undefined },
  });
  fake.registerDeliveryHandler(HOOK_URL, (request) => receiver.handle(request));
  const clock = followerClock(fake);
  const book: World['book'] = (restaurantId, { days = 2, time = '19:00', adults = 2 } = {}) =>
    client.reservations.create(restaurantId, {
      start_time: {
        date: DateTime.fromMillis(fake.clock.now(), { zone: ZONE }).plus({ days }).toISODate()!,
        time,
      },
      adults,
      first_name: 'Ada',
    });
  return { fake, client, restaurantIds, receiver, clock, book, webhookId: webhook.id, tokens };
}

/** The fake's truth for the partner: its own reservations of the restaurants, as the partner API shows them (read without spending a request). */
export function truthOf(world: World): Map<string, Reservation> {
  const truth = new Map<string, Reservation>();
  for (const restaurantId of world.restaurantIds) {
    for (const { channel, partnerId, ...reservation } of world.fake.allReservations(restaurantId)) {
      if (channel === 'partner') truth.set(`${restaurantId}:${reservation.id}`, reservation);
    }
  }
  return truth;
}

/** A logger that says nothing: the sync's warnings are expected in these tests. */
export const quietLogger = { warn: () => undefined, error: () => undefined };
