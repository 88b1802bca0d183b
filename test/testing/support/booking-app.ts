/**
 * A partner's app as apps are written: it builds its own `PartnerClient` from its configuration
 * (no way to inject a clock or a limiter), then books, lists and cancels.
 */
import { PartnerClient } from 'restaurant-partner-sdk';

export interface AppConfig {
  PARTNER_BASE_URL: string;
  PARTNER_ID: string;
  PARTNER_TOKEN: string;
}

export function createBookingApp(config: AppConfig) {
  const client = new PartnerClient({
    baseUrl: config.PARTNER_BASE_URL,
    partnerId: config.PARTNER_ID,
    apiToken: config.PARTNER_TOKEN,
    logLevel: 'off',
  });
  return {
    client,
    async restaurants() {
      return client.restaurants.list().toArray();
    },
    async book(restaurantId: number, date: string, time: string, lastName: string) {
      return client.reservations.create(restaurantId, {
        start_time: { date, time },
        adults: 2,
        first_name: 'Ada',
        last_name: lastName,
      });
    },
    async cancel(restaurantId: number, reservationId: number) {
      return client.reservations.cancel(restaurantId, reservationId);
    },
    async upcoming(restaurantId: number) {
      return client.reservations.list(restaurantId).toArray();
    },
  };
}
