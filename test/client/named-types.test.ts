/**
 * What a method takes and returns has a name under `PartnerClient`, for a partner's own
 * signatures; the classes among them are there at run time too, as their declarations say.
 */
import { expect, expectTypeOf, it } from 'vitest';
import { PartnerClient, type PartnerProfile, type Reservation } from 'restaurant-partner-sdk';
import { fakeWithClient } from '../support/fake-client.js';

it("names what the client's methods return, and its classes answer instanceof", async () => {
  const { fake, partner, restaurant, client } = fakeWithClient();
  try {
    const listing = client.reservations.list(restaurant.id);
    expectTypeOf(listing).toEqualTypeOf<PartnerClient.ListPromise<Reservation>>();
    expect(listing).toBeInstanceOf(PartnerClient.ListPromise);
    expect(listing).toBeInstanceOf(PartnerClient.ApiPromise);
    const page = await listing;
    expectTypeOf(page).toEqualTypeOf<PartnerClient.Page<Reservation>>();
    expect(page.items).toEqual([]);

    const profile = client.profile.retrieve();
    expectTypeOf(profile).toEqualTypeOf<PartnerClient.ApiPromise<PartnerProfile>>();
    const answered = await profile.withResponse();
    expectTypeOf(answered).toEqualTypeOf<PartnerClient.WithResponse<PartnerProfile>>();
    expect(answered.data.uuid).toBe(partner.partnerId);

    type RebookOptions = Parameters<PartnerClient.Reservations['rebook']>[3];
    expectTypeOf<RebookOptions>().toEqualTypeOf<PartnerClient.RebookOptions>();
    expect(client.profile).toBeInstanceOf(PartnerClient.Profile);
    expect(client.restaurants).toBeInstanceOf(PartnerClient.Restaurants);
    expect(client.reservations).toBeInstanceOf(PartnerClient.Reservations);
    expect(client.webhooks).toBeInstanceOf(PartnerClient.Webhooks);
  } finally {
    fake.dispose();
  }
});
