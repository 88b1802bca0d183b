/**
 * The one reservation of the tests and the bench: a confirmed dinner for two, as the service
 * answers it and as a webhook carries it. Plain JavaScript, so the bench (plain Node, no compiler)
 * loads the same object as test/support/reservation.ts, which types it and builds on it. A field
 * added to the reservation is added here once: test/house/doubles.test.ts fails when another file
 * of test/ or bench/ writes out a whole reservation again.
 */
export const RESERVATION = Object.freeze({
  id: 41,
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.com',
  phone: null,
  start_time: '2026-12-05T19:30:00+01:00',
  duration: 'PT2H',
  adults: 2,
  children: 0,
  comment: null,
  cancelled: false,
  cancelled_at: null,
  confirmed: true,
  confirmed_at: '2026-11-23T12:00:00+01:00',
  confirmation_mode: 'CONFIRMATION_MODE_SYNCHRONOUS',
  arrived: false,
  arrived_at: null,
  no_show: false,
  no_show_at: null,
  language: 'en',
  metadata: null,
});
