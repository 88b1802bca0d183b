/**
 * What a repeated create with the caller's own key costs, in requests, against the in-process fake:
 * - create_repeat_requests_known_key: the booking ledger knows the key (this process booked it):
 *   one `retrieve` (goal 1);
 * - create_repeat_requests_unknown_key: the ledger does not know it (another process booked it,
 *   no shared ledger): a look-up reads the list of a restaurant with 100 reservations.
 */
export async function benchCreateRepeat({ dist, record }) {
  const { PartnerClient, silentLogger } = await import(dist('index.js'));
  const { createFakeService } = await import(dist('testing/index.js'));
  const fake = createFakeService();
  const partner = fake.addPartner({ name: 'Bench partner' });
  const restaurant = fake.addRestaurant({
    display_name: 'Bench Bistro',
    partnerIds: [partner.partnerId],
    availability: { capacityCovers: 100_000 },
  });
  const client = new PartnerClient({ ...fake.clientOptions(partner), logger: silentLogger });
  const day = (offset) => new Date(fake.clock.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const input = (index) => ({
    start_time: {
      date: day(3 + Math.floor(index / 8)),
      time: `${18 + Math.floor((index % 8) / 4)}:${String((index % 4) * 15).padStart(2, '0')}`,
    },
    adults: 2,
  });
  for (let index = 0; index < 99; index += 1) await client.reservations.create(restaurant.id, input(index));
  await client.reservations.create(restaurant.id, input(99), { idempotencyKey: 'bench-order-100' });
  const requestsOf = async (run) => {
    const before = fake.requests.length;
    await run();
    return fake.requests.length - before;
  };
  record(
    'create_repeat_requests_known_key',
    await requestsOf(() =>
      client.reservations.create(restaurant.id, input(99), { idempotencyKey: 'bench-order-100' }),
    ),
    'requests (repeat of a create the ledger knows)',
    '<= 1',
  );
  // One budget with the first client (two limiters would draw 429s and count their retries).
  // A ledger that knows nothing: a process that did not make the booking and shares no ledger.
  const forgetful = {
    claim: () => Promise.resolve(undefined),
    renew: () => Promise.resolve(true),
    settle: () => Promise.resolve(undefined),
  };
  const elsewhere = new PartnerClient({
    ...fake.clientOptions(partner),
    logger: silentLogger,
    rateLimit: client.rateLimiter,
    bookingLedger: forgetful,
    restaurantTimezones: { [restaurant.id]: restaurant.timezone },
  });
  record(
    'create_repeat_requests_unknown_key',
    await requestsOf(() =>
      elsewhere.reservations.create(restaurant.id, input(99), { idempotencyKey: 'bench-order-100' }),
    ),
    'requests (repeat the ledger does not know: list scan of 100 reservations)',
  );
  fake.dispose();
}
