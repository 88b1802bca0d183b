/**
 * `fake_create_ms_100k_over_100`: what one partner create costs in a fake holding 100,000
 * bookings, over the same create in a fake holding 100, measured side by side in one run
 * (goal <= 2: costs stay flat as state grows). In-process (`fake.handle`), rate limit off, the
 * bookings spread over 100 restaurants and 90 days as a busy partner's would be.
 */

const RESTAURANTS = 100;
const DAYS = 90;
const SLOTS = [
  '12:00',
  '12:30',
  '13:00',
  '13:30',
  '18:00',
  '18:30',
  '19:00',
  '19:30',
  '20:00',
  '20:30',
  '21:00',
  '21:30',
];

/** A fake holding `count` bookings from other channels, with one partner linked to every restaurant. */
function filledFake(testing, count) {
  const fake = testing.createFakeService({
    rateLimit: false,
    clock: { frozen: true, startAt: '2026-12-01T08:00:00Z' },
  });
  const partner = fake.addPartner({ name: 'Bench partner' });
  // The rest of the availability is the fake's default.
  const availability = { capacityCovers: 100_000, horizonDays: DAYS + 10 };
  const restaurants = Array.from({ length: RESTAURANTS }, (_unused, index) =>
    fake.addRestaurant({ display_name: `Bench ${index}`, partnerIds: [partner.partnerId], availability }),
  );
  const start = Date.parse('2026-12-02T00:00:00Z');
  for (let index = 0; index < count; index += 1) {
    const restaurant = restaurants[index % RESTAURANTS];
    const day = new Date(start + (Math.floor(index / RESTAURANTS) % DAYS) * 86_400_000)
      .toISOString()
      .slice(0, 10);
    fake.addOtherChannelBooking(restaurant.id, {
      start_time: `${day}T${SLOTS[index % SLOTS.length]}:00`,
      adults: 2,
    });
  }
  return { fake, partner, restaurants };
}

/** Median milliseconds of one partner create through `fake.handle`, over `rounds` creates. */
async function createMs({ fake, partner, restaurants }, rounds) {
  const authorization = `Basic ${Buffer.from(`${partner.partnerId}:${partner.apiToken}`).toString('base64')}`;
  const times = [];
  for (let index = 0; index < rounds; index += 1) {
    const restaurant = restaurants[index % RESTAURANTS];
    const day = new Date(Date.parse('2026-12-02T00:00:00Z') + (index % DAYS) * 86_400_000)
      .toISOString()
      .slice(0, 10);
    const request = new Request(
      `https://partner-api.fake.invalid/api/v1/partnership/restaurants/${restaurant.id}/reservations/`,
      {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({
          start_time: `${day}T${SLOTS[index % SLOTS.length]}:00`,
          adults: 2,
          first_name: 'Ada',
        }),
      },
    );
    const started = performance.now();
    const response = await fake.handle(request);
    await response.text();
    times.push(performance.now() - started);
    if (response.status !== 201) throw new Error(`create answered ${response.status}`);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** Measures both sizes, interleaved in rounds so a busy moment of the machine hits both alike. */
export async function measureCreateGrowth(testing) {
  const small = filledFake(testing, 100);
  const large = filledFake(testing, 100_000);
  try {
    const smallTimes = [];
    const largeTimes = [];
    for (let round = 0; round < 5; round += 1) {
      smallTimes.push(await createMs(small, 100));
      largeTimes.push(await createMs(large, 100));
    }
    const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
    return {
      smallMs: median(smallTimes),
      largeMs: median(largeTimes),
      ratio: median(largeTimes) / median(smallTimes),
    };
  } finally {
    small.fake.dispose();
    large.fake.dispose();
  }
}

// `node bench/fake-growth.mjs [path of the testing entry]` prints the figure alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const entry = process.argv[2] ?? new URL('../dist/testing/index.js', import.meta.url).href;
  const testing = await import(entry);
  console.log(JSON.stringify(await measureCreateGrowth(testing)));
}
