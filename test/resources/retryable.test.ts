/**
 * `error.retryable` is what a job queue acts on: retry later, or fail the job for good. Each
 * error is produced the way a partner meets it (the fake's answers, a hostile server's, a port
 * nobody listens on, the client's own checks), and each class's value is EXPECTED, the value
 * docs/errors.md states (test/docs/errors-table.test.ts reads the table, so it cannot drift).
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as core from 'restaurant-partner-sdk';
import {
  AbortError,
  AmbiguousCreateError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  DialectDriftError,
  IdempotencyKeyReuseError,
  InputValidationError,
  NoAvailabilityError,
  NotFoundError,
  PartnerApiError,
  PartnerClient,
  PartnerSdkError,
  PermissionDeniedError,
  RateLimitError,
  RateLimitQueueFullError,
  RateLimitWaitTooLongError,
  ReservationCancelledError,
  ResponseTooLargeError,
  ResponseValidationError,
  ServerError,
  silentLogger,
  TimeoutError,
  type ClientOptions,
} from 'restaurant-partner-sdk';
import * as postgres from 'restaurant-partner-sdk/postgres';
import * as redis from 'restaurant-partner-sdk/redis';
import * as sync from 'restaurant-partner-sdk/sync';
import { createClockRateLimiter, createFakeService, type FakeService } from 'restaurant-partner-sdk/testing';
import * as webhooks from 'restaurant-partner-sdk/webhooks';
import { buildDelivery, createWebhookReceiver, type WebhookError } from 'restaurant-partner-sdk/webhooks';
import { createManualClock } from '../support/manual-clock.js';
import {
  API_TOKEN,
  HOSTILE_API,
  PARTNER_ID,
  restaurantWire,
  startHostileServer,
  type HostileHandler,
  type HostileServer,
} from '../support/hostile-server.js';
import { TOKEN } from '../webhooks/helpers.js';
import { EXPECTED } from '../support/retryable.js';
import { reservation } from '../support/reservation.js';

const caught = (promise: Promise<unknown>) =>
  promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );

/** An error class, abstract ones included. */
type ErrorClass = abstract new (...args: never[]) => Error;

/** The checks every retryable value must pass: the class, the value, and `JSON.stringify` keeping it. */
function expectRetryable(error: unknown, errorClass: ErrorClass, retryable: boolean) {
  expect(error).toBeInstanceOf(errorClass);
  expect(error).toBeInstanceOf(PartnerSdkError);
  const sdkError = error as PartnerSdkError;
  expect(sdkError.name).toBe(errorClass.name);
  expect(sdkError.retryable, `${errorClass.name}: ${sdkError.message}`).toBe(retryable);
  const fixed = EXPECTED[errorClass.name];
  if (typeof fixed === 'boolean') expect(retryable, `EXPECTED.${errorClass.name}`).toBe(fixed);
  // A job queue that stores the error as JSON still knows; the token never goes with it.
  const json = JSON.stringify(error);
  expect(JSON.parse(json)).toMatchObject({ retryable });
  expect(json).not.toContain(API_TOKEN);
}

// ---- Answers of the fake ----

const fake: FakeService = createFakeService({
  clock: { frozen: true, startAt: '2026-12-01T08:00:00Z' },
  rateLimit: false,
});
const partner = fake.addPartner();
const restaurant = fake.addRestaurant({ partnerIds: [partner.partnerId], timezone: 'Europe/Brussels' });
const pending = fake.addRestaurant({
  partnerIds: [partner.partnerId],
  timezone: 'Europe/Brussels',
  confirmation_mode: 'CONFIRMATION_MODE_ASYNCHRONOUS',
});
const fakeClient = (options: Partial<ClientOptions> = {}) =>
  new PartnerClient({ ...fake.clientOptions(partner), logger: silentLogger, maxRetries: 0, ...options });
const dinner = (time = '20:00') => ({ start_time: { date: '2026-12-06', time }, adults: 2 });
afterAll(() => fake.dispose());

describe('retryable, from the answers of the fake', () => {
  const cases: {
    name: string;
    run: () => Promise<unknown>;
    errorClass: ErrorClass;
    retryable: boolean;
    then?: (error: never) => void;
  }[] = [
    {
      name: 'a 400 refusing the input',
      run: async () => {
        fake.injectFault({
          operation: 'profile.retrieve',
          status: 400,
          body: { name: ['Too long.'] },
          times: 1,
        });
        return fakeClient().profile.retrieve();
      },
      errorClass: BadRequestError,
      retryable: false,
    },
    {
      name: 'a 401 to a wrong token',
      run: () => fakeClient({ apiToken: 'tok_not_the_right_one_123' }).profile.retrieve(),
      errorClass: AuthenticationError,
      retryable: false,
    },
    {
      name: 'a 403',
      run: async () => {
        fake.injectFault({ operation: 'restaurants.list', status: 403, times: 1 });
        return fakeClient().restaurants.list().toArray();
      },
      errorClass: PermissionDeniedError,
      retryable: false,
    },
    {
      name: 'a 404 for a reservation that does not exist',
      run: () => fakeClient().reservations.retrieve(restaurant.id, 987_654),
      errorClass: NotFoundError,
      retryable: false,
    },
    {
      name: 'a 409 no_availability for a time the restaurant is closed',
      run: () => fakeClient().reservations.create(restaurant.id, dinner('04:00')),
      errorClass: NoAvailabilityError,
      retryable: false,
    },
    {
      name: 'a 409 conflict: cancelling after arrival',
      run: async () => {
        const client = fakeClient();
        const booked = await client.reservations.create(restaurant.id, dinner('19:00'));
        await client.reservations.markArrived(restaurant.id, booked.id);
        return client.reservations.cancel(restaurant.id, booked.id);
      },
      errorClass: ConflictError,
      retryable: false,
      then: (error: ConflictError) => expect(error).not.toBeInstanceOf(NoAvailabilityError),
    },
    {
      name: 'a 429 with Retry-After in seconds, after the retries ran out',
      run: async () => {
        fake.injectFault({
          operation: 'profile.retrieve',
          status: 429,
          headers: { 'retry-after': '7' },
          times: 1,
        });
        return fakeClient().profile.retrieve();
      },
      errorClass: RateLimitError,
      retryable: true,
      then: (error: RateLimitError) => expect(error.retryAfterMs).toBe(7000),
    },
    {
      name: 'a 503 with Retry-After',
      run: async () => {
        fake.injectFault({
          operation: 'profile.retrieve',
          status: 503,
          headers: { 'retry-after': '2' },
          times: 1,
        });
        return fakeClient().profile.retrieve();
      },
      errorClass: ServerError,
      retryable: true,
      then: (error: ServerError) => expect(error.retryAfterMs).toBe(2000),
    },
    {
      name: 'a create whose gateway answered 504 while the booking may still be committed',
      run: async () => {
        fake.injectFault({ operation: 'reservations.create', status: 504, times: 1 });
        return fakeClient().reservations.create(restaurant.id, dinner('21:00'), {
          idempotencyKey: 'order-504',
        });
      },
      errorClass: AmbiguousCreateError,
      retryable: true,
      then: (error: AmbiguousCreateError) => expect(error.idempotencyKey).toBe('order-504'),
    },
    {
      name: 'a key reused for another party size',
      run: async () => {
        const client = fakeClient();
        await client.reservations.create(restaurant.id, dinner('18:00'), { idempotencyKey: 'order-reuse' });
        return client.reservations.create(
          restaurant.id,
          { ...dinner('18:00'), adults: 5 },
          { idempotencyKey: 'order-reuse' },
        );
      },
      errorClass: IdempotencyKeyReuseError,
      retryable: false,
    },
    {
      name: 'a reservation cancelled by the restaurant while waiting for its confirmation',
      run: async () => {
        const client = fakeClient();
        const booked = await client.reservations.create(pending.id, dinner('19:30'));
        await fake.asRestaurant.cancel(pending.id, booked.id);
        return client.reservations.waitForConfirmation(pending.id, booked.id, { deadlineMs: 60_000 });
      },
      errorClass: ReservationCancelledError,
      retryable: false,
    },
    {
      name: 'an answer departing from the dialect file under strictDialect',
      run: () => fakeClient({ dialect: { profile: 'list' }, strictDialect: true }).profile.retrieve(),
      errorClass: DialectDriftError,
      retryable: false,
    },
    {
      name: 'a next page asked of the last page',
      run: async () => {
        const page = await fakeClient().reservations.list(restaurant.id);
        expect(page.hasNextPage()).toBe(false);
        return page.getNextPage();
      },
      errorClass: PartnerSdkError,
      retryable: false,
    },
    {
      name: 'an input refused before sending',
      run: () => fakeClient().reservations.create(restaurant.id, { ...dinner(), adults: 0 }),
      errorClass: InputValidationError,
      retryable: false,
    },
    {
      name: 'your abort',
      run: () => fakeClient().profile.retrieve({ signal: AbortSignal.abort() }),
      errorClass: AbortError,
      retryable: true,
    },
  ];

  it.each(cases)(
    '$name: $errorClass.name, retryable $retryable',
    async ({ run, errorClass, retryable, then }) => {
      const error = await caught(run());
      expectRetryable(error, errorClass, retryable);
      then?.(error as never);
    },
  );
});

// ---- Answers of a hostile server, and no server at all ----

describe('retryable, from a hostile server', () => {
  let server: HostileServer;
  const clock = createManualClock({ start: Date.UTC(2026, 11, 1, 8), autoAdvance: true });
  beforeAll(async () => {
    server = await startHostileServer(clock);
  });
  afterAll(() => server.close());

  const hostileClient = (options: Partial<ClientOptions> = {}) =>
    new PartnerClient({
      baseUrl: server.url,
      partnerId: PARTNER_ID,
      apiToken: API_TOKEN,
      rateLimit: false,
      logger: silentLogger,
      clock,
      maxRetries: 0,
      ...options,
    });
  /** Answers every request with `status` and `headers` (no automatic `Date` unless given). */
  const answer =
    (status: number, body: unknown, headers: Record<string, string>): HostileHandler =>
    (_request, tools) => {
      tools.response.sendDate = false;
      tools.json(status, body, headers);
    };

  it("a 429 whose Retry-After is an HTTP date: measured from the answer's own Date, whatever the client's clock says", async () => {
    // The service's clock is an hour behind the client's: the wait is still the 5 s it asked for.
    const serviceNow = clock.now() - 3_600_000;
    server.setHandler(
      answer(
        429,
        { detail: 'slow' },
        {
          date: new Date(serviceNow).toUTCString(),
          'retry-after': new Date(serviceNow + 5000).toUTCString(),
        },
      ),
    );
    const error = await caught(hostileClient().profile.retrieve());
    expectRetryable(error, RateLimitError, true);
    expect((error as RateLimitError).retryAfterMs).toBe(5000);
  });

  it("a 429 whose Retry-After is an HTTP date and no Date: measured from the client's clock", async () => {
    server.setHandler(
      answer(429, { detail: 'slow' }, { 'retry-after': new Date(clock.now() + 4000).toUTCString() }),
    );
    const error = await caught(hostileClient().profile.retrieve());
    expectRetryable(error, RateLimitError, true);
    expect((error as RateLimitError).retryAfterMs).toBe(4000);
  });

  it('a 429 without Retry-After: retryAfterMs undefined', async () => {
    server.setHandler(answer(429, { detail: 'slow' }, {}));
    const error = await caught(hostileClient().profile.retrieve());
    expectRetryable(error, RateLimitError, true);
    expect((error as RateLimitError).retryAfterMs).toBeUndefined();
  });

  it.each([
    [408, true],
    [418, false],
    [302, false],
  ])('a %i the client has no class for: PartnerApiError, retryable %s', async (status, retryable) => {
    server.setHandler(
      answer(status, { detail: 'odd' }, status === 302 ? { location: 'https://elsewhere.test/' } : {}),
    );
    const error = await caught(hostileClient().restaurants.list().toArray());
    expectRetryable(error, PartnerApiError, retryable);
    expect((error as PartnerApiError).status).toBe(status);
  });

  it('an answer outside the contract', async () => {
    server.setHandler((request, tools) => tools.json(200, { uuid: 42, name: ['not', 'a', 'profile'] }));
    const error = await caught(hostileClient().profile.retrieve());
    expectRetryable(error, ResponseValidationError, false);
  });

  it.each([
    [200, false],
    [502, true],
  ])('an answer of status %i larger than maxResponseBytes: retryable %s', async (status, retryable) => {
    server.setHandler((request, tools) =>
      tools.json(
        status,
        request.path === `${HOSTILE_API}/restaurants/` ? [restaurantWire()] : { pad: 'x'.repeat(4096) },
      ),
    );
    const error = await caught(hostileClient({ maxResponseBytes: 1024 }).profile.retrieve());
    expectRetryable(error, ResponseTooLargeError, retryable);
  });

  it('no answer within timeoutMs', async () => {
    // Answers nothing: the connection stays open until the server closes.
    server.setHandler(() => undefined);
    const error = await caught(hostileClient({ timeoutMs: 50 }).profile.retrieve());
    expectRetryable(error, TimeoutError, true);
  });

  it('a connection refused: nothing was sent', async () => {
    // A port that was just free: nobody listens on it.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const error = await caught(hostileClient({ baseUrl: `http://127.0.0.1:${port}` }).profile.retrieve());
    expectRetryable(error, ConnectionError, true);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect((error as ConnectionError).sent).toBe('no');
  });
});

describe('retryable, from the rate limiter', () => {
  it('a call whose place in the queue is past its deadline', async () => {
    const limiter = createClockRateLimiter({ requestsPerSecond: 1, clock: createManualClock() });
    // Five calls ahead, at one a second: the next slot is five seconds away. They stay queued on a clock nobody moves.
    for (let index = 0; index < 5; index += 1) void limiter.acquire().catch(() => undefined);
    const error = await caught(limiter.acquire({ maxWaitMs: 2000 }));
    expectRetryable(error, RateLimitWaitTooLongError, true);
  });

  it('a full queue', async () => {
    const limiter = createClockRateLimiter({ requestsPerSecond: 1, clock: createManualClock(), maxQueue: 1 });
    // One call is granted at once, one waits: the queue of one is full.
    for (let index = 0; index < 2; index += 1) void limiter.acquire().catch(() => undefined);
    const error = await caught(limiter.acquire());
    expectRetryable(error, RateLimitQueueFullError, true);
  });
});

describe('retryable, from the webhook receiver', () => {
  const delivery = () =>
    buildDelivery({ event: 'RESERVATION_CONFIRMED', reservation: reservation(), restaurantId: 7 }, TOKEN);
  const receiver = createWebhookReceiver({ tokens: [TOKEN], logger: false, maxBodyBytes: 2048 });

  it.each([
    [
      'a wrong token',
      () => ({
        ...delivery(),
        headers: { ...delivery().headers, authorization: 'Bearer whk_wrong_0123456789abcdef' },
      }),
      webhooks.WebhookVerificationError,
    ],
    ['a body that is not JSON', () => ({ ...delivery(), body: '{not json' }), webhooks.WebhookPayloadError],
    [
      'a body over maxBodyBytes',
      () => ({ ...delivery(), body: `${' '.repeat(4096)}{}` }),
      webhooks.WebhookPayloadTooLargeError,
    ],
    [
      'a parsed body instead of the raw one',
      () => ({ ...delivery(), body: { parsed: true } as never }),
      webhooks.WebhookRawBodyRequiredError,
    ],
  ])('%s: not retryable', async (_name, input, errorClass) => {
    const { body, headers } = input();
    const error = await caught(receiver.verify({ body, headers }));
    expectRetryable(error, errorClass, false);
  });

  it('a handler that throws: retryable (the redelivery runs it again)', async () => {
    const seen: WebhookError[] = [];
    const failing = createWebhookReceiver({
      tokens: [TOKEN],
      logger: false,
      onError: (error) => seen.push(error),
    }).on('*', () => {
      throw new Error('database down');
    });
    const { body, headers } = delivery();
    const response = await failing.handle(
      new Request('http://partner.test/hooks', { method: 'POST', body, headers }),
    );
    expect(response.status).toBe(500);
    expect(seen).toHaveLength(1);
    expectRetryable(seen[0], webhooks.WebhookHandlerError, true);
  });

  it('refused options: not retryable; a token provider that failed: retryable', async () => {
    let refused: unknown;
    try {
      createWebhookReceiver({ tokens: 'one-token-not-a-list' as never });
    } catch (error) {
      refused = error;
    }
    expectRetryable(refused, webhooks.WebhookConfigurationError, false);
    const flaky = createWebhookReceiver({
      tokens: () => Promise.reject(new Error('vault unreachable')),
      logger: false,
    });
    const { body, headers } = delivery();
    const error = await caught(flaky.verify({ body, headers }));
    expectRetryable(error, webhooks.WebhookConfigurationError, true);
  });
});

describe('classes whose errors need a dependency down: their fixed value', () => {
  it.each([
    [new core.BookingLedgerUnavailableError('Redis did not answer', { idempotencyKey: 'order-1' }), true],
    [new redis.RedisTimeoutError(1000), true],
    [new postgres.MigrationChangedError('edited', { migration: '0001_booking_ledger' }), false],
    [new postgres.SchemaNotMigratedError({ schema: 'restaurant_partner' }), false],
    [new sync.SyncStoppedError(), true],
    [new webhooks.WebhookBodyTimeoutError(5000), true],
    [new webhooks.WebhookDeliveryInProgressError('evt_1'), true],
    [new webhooks.WebhookUnsupportedMediaTypeError('text/plain'), false],
    [new webhooks.WebhookMethodNotAllowedError('GET'), false],
  ] as const)('%o: retryable %s', (error, retryable) => {
    expectRetryable(error, error.constructor as ErrorClass, retryable);
  });

  it('AmbiguousCreateError keeps holdUntil as a Date of its own', () => {
    const holdUntil = new Date('2026-12-01T08:15:00Z');
    const error = new AmbiguousCreateError('unknown', { idempotencyKey: 'k', restaurantId: 1, holdUntil });
    holdUntil.setTime(0);
    expect(error.holdUntil?.toISOString()).toBe('2026-12-01T08:15:00.000Z');
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({
      retryable: true,
      holdUntil: '2026-12-01T08:15:00.000Z',
    });
    expect(
      new AmbiguousCreateError('unknown', { idempotencyKey: 'k', restaurantId: 1 }).holdUntil,
    ).toBeUndefined();
  });
});
