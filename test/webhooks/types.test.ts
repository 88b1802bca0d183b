/**
 * The event types partners write their code against. `expectTypeOf` is checked by `tsc --noEmit`
 * (the test tree is type-checked) and the runtime part proves the narrowing matches the data.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  buildDelivery,
  createWebhookReceiver,
  type WebhookReservation,
  type WebhookEvent,
  type WebhookEventOf,
} from 'restaurant-partner-sdk/webhooks';

type WebhookEventName = WebhookEvent['type'];
type ReservationCancelledEvent = WebhookEventOf<'RESERVATION_CANCELLED'>;
type TestEvent = WebhookEventOf<'TEST'>;
type UnknownEvent = WebhookEventOf<'unknown'>;

import { TOKEN } from './helpers.js';
import { reservation } from '../support/reservation.js';

describe('event types', () => {
  it('narrow on `type` in a switch, including the unknown variant', async () => {
    expectTypeOf<WebhookEventName>().toEqualTypeOf<
      'RESERVATION_CONFIRMED' | 'RESERVATION_MODIFIED' | 'RESERVATION_CANCELLED' | 'TEST' | 'unknown'
    >();
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false });
    const describeEvent = (event: WebhookEvent): string => {
      switch (event.type) {
        case 'RESERVATION_CONFIRMED':
        case 'RESERVATION_MODIFIED':
        case 'RESERVATION_CANCELLED':
          expectTypeOf(event.reservation).toEqualTypeOf<WebhookReservation>();
          expectTypeOf(event.reservation.start_time).toEqualTypeOf<string | undefined>();
          expectTypeOf(event.id).toEqualTypeOf<string>();
          return `${event.type} ${event.reservation.id}`;
        case 'TEST':
          expectTypeOf(event).toEqualTypeOf<TestEvent>();
          return 'test';
        case 'unknown':
          expectTypeOf(event).toEqualTypeOf<UnknownEvent>();
          expectTypeOf(event.event).toEqualTypeOf<string>();
          expectTypeOf(event.reservation).toEqualTypeOf<unknown>();
          return `unknown ${event.event}`;
        default:
          expectTypeOf(event).toBeNever();
          return event;
      }
    };
    const verify = (body: string) => receiver.verify({ body, headers: { authorization: `Bearer ${TOKEN}` } });
    expect(
      describeEvent(
        await verify(
          buildDelivery({ event: 'RESERVATION_CANCELLED', reservation: reservation() }, TOKEN).body,
        ),
      ),
    ).toBe('RESERVATION_CANCELLED 41');
    expect(describeEvent(await verify(buildDelivery({ event: 'TEST' }, TOKEN).body))).toBe('test');
    expect(describeEvent(await verify(buildDelivery({ event: 'GUEST_ARRIVED' }, TOKEN).body))).toBe(
      'unknown GUEST_ARRIVED',
    );
  });

  it('give each on() handler the event of its type, and refuse names that are not event types', () => {
    const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false });
    receiver
      .on('RESERVATION_CANCELLED', (event) => expectTypeOf(event).toEqualTypeOf<ReservationCancelledEvent>())
      .on('unknown', (event) => expectTypeOf(event).toEqualTypeOf<UnknownEvent>())
      .onUnknown((event) => expectTypeOf(event).toEqualTypeOf<UnknownEvent>())
      .on('*', (event) => expectTypeOf(event).toEqualTypeOf<WebhookEvent>());
    // @ts-expect-error not an event type (a typo a partner could make)
    expect(() => receiver.on('RESERVATION_CANCELED', () => {})).toThrow(
      /not an event type; expected one of RESERVATION_CONFIRMED/,
    );
  });
});
