/**
 * What a first create with the caller's own key costs, in requests, at a restaurant holding 1,000
 * of the partner's bookings, against the in-process fake (its journal counts them):
 * - create_requests_first_key_postgres: the Postgres ledger (on PGlite, in this process) never saw
 *   the key, and it is durable: the POST goes at once (goal 1);
 * - create_requests_first_key_memory: the memory ledger cannot say the key was never used, so the
 *   create reads the restaurant's list for it first, 100 a page, two reads that agree, then posts.
 */
export async function benchCreateFirstKey({ dist, record }) {
  const { PartnerClient, createMemoryBookingLedger, silentLogger } = await import(dist('index.js'));
  const { createFakeService } = await import(dist('testing/index.js'));
  const { createPostgres } = await import(dist('postgres/index.js'));
  const { PGlite } = await import('@electric-sql/pglite');
  const BOOKINGS = 1_000;
  const fake = createFakeService({ rateLimit: false, journalLimit: 10_000 });
  const lite = new PGlite();
  try {
    const partner = fake.addPartner({ name: 'Bench partner' });
    const restaurant = fake.addRestaurant({
      display_name: 'Bench Bistro',
      partnerIds: [partner.partnerId],
      availability: { capacityCovers: 100_000 },
    });
    const client = (bookingLedger) =>
      new PartnerClient({
        ...fake.clientOptions(partner),
        logger: silentLogger,
        bookingLedger,
        restaurantTimezones: { [restaurant.id]: restaurant.timezone },
      });
    const day = (offset) => new Date(fake.clock.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const input = (index) => ({
      start_time: {
        date: day(3 + Math.floor(index / 16)),
        time: `${18 + Math.floor((index % 8) / 4)}:${String((index % 4) * 15).padStart(2, '0')}`,
      },
      adults: 2,
    });
    const seeding = client(createMemoryBookingLedger());
    for (let index = 0; index < BOOKINGS; index += 1)
      await seeding.reservations.create(restaurant.id, input(index));
    const requestsOf = async (run) => {
      const before = fake.requests.length;
      await run();
      return fake.requests.length - before;
    };
    const db = createPostgres({ sql: lite });
    await db.migrate();
    // The memory ledger first, at 1,000 bookings: its look-up reads 10 pages of 100, twice.
    record(
      'create_requests_first_key_memory',
      await requestsOf(() =>
        client(createMemoryBookingLedger()).reservations.create(restaurant.id, input(BOOKINGS), {
          idempotencyKey: 'bench-first-memory',
        }),
      ),
      'requests (first create with a key, memory ledger, 1,000 bookings: two reads of 10 pages of 100, then the POST)',
    );
    record(
      'create_requests_first_key_postgres',
      await requestsOf(() =>
        client(db.bookingLedger()).reservations.create(restaurant.id, input(BOOKINGS + 1), {
          idempotencyKey: 'bench-first-postgres',
        }),
      ),
      'requests (first create with a key, Postgres ledger, 1,001 bookings: the POST alone)',
      '<= 1',
    );
  } finally {
    await lite.close();
    fake.dispose();
  }
}
