/**
 * The in-process fake with one partner linked to one restaurant (in Brussels), and a client of that
 * partner on it that logs nothing: the start of most client tests against the fake.
 */
import { PartnerClient, silentLogger, type ClientOptions } from 'restaurant-partner-sdk';
import {
  createFakeService,
  type AddPartnerInput,
  type FakeServiceOptions,
} from 'restaurant-partner-sdk/testing';

export function fakeWithClient(
  options: {
    fake?: FakeServiceOptions;
    partner?: AddPartnerInput;
    client?: Partial<ClientOptions>;
  } = {},
) {
  const fake = createFakeService({ seed: 'none', ...options.fake });
  const partner = fake.addPartner(options.partner);
  const restaurant = fake.addRestaurant({ timezone: 'Europe/Brussels' });
  fake.link(partner.partnerId, restaurant.id);
  const client = new PartnerClient({
    ...fake.clientOptions(partner),
    logger: silentLogger,
    ...options.client,
  });
  return { fake, partner, restaurant, client };
}
