// The SDK's diagnostics channels as a runtime other than Node carries them (Bun, Deno): a
// subscriber of `node:diagnostics_channel` sees a booking's call, its requests and its outcome,
// and may add a traceparent to the request; hook events name the operation and the call id.
// Results as runScenario's: { check, ok, detail }, never a throw.
import { PartnerClient } from 'restaurant-partner-sdk';

const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

export async function runChannelsScenario(config) {
  const check = async (name, body) => {
    try {
      return { check: name, ok: true, detail: (await body()) ?? '' };
    } catch (error) {
      return {
        check: name,
        ok: false,
        detail: `${error?.name ?? 'Error'}: ${error?.message ?? String(error)}`,
      };
    }
  };
  return [
    await check('channels: a booking published', async () => {
      const diagnostics = globalThis.process?.getBuiltinModule?.('node:diagnostics_channel');
      expect(diagnostics, 'process.getBuiltinModule("node:diagnostics_channel") is not available');
      const seen = [];
      const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      const call = { start: (message) => seen.push(['call', message.operation, message.callId]) };
      const attempt = {
        start: (message) => {
          message.traceHeaders.traceparent = traceparent;
          seen.push(['attempt', message.method, message.callId]);
        },
        asyncEnd: (message) => seen.push(['answered', message.statusCode, message.callId]),
      };
      const outcome = (message) => seen.push(['outcome', message.outcome, message.callId]);
      diagnostics.tracingChannel('restaurant-partner-sdk:call').subscribe(call);
      diagnostics.tracingChannel('restaurant-partner-sdk:attempt').subscribe(attempt);
      diagnostics.subscribe('restaurant-partner-sdk:create.outcome', outcome);
      const hooked = [];
      const sentTraceparents = [];
      try {
        const client = new PartnerClient({
          baseUrl: config.fakeUrl,
          partnerId: config.partnerId,
          apiToken: config.apiToken,
          rateLimit: { requestsPerSecond: Math.max(1, config.requestsPerSecond - 1) },
          maxRetries: 5,
          logger: quietLogger,
          hooks: { onRequest: (event) => hooked.push(event) },
          fetch: (input, init) => {
            sentTraceparents.push(
              new Headers(input instanceof Request ? input.headers : init?.headers).get('traceparent'),
            );
            return fetch(input, init);
          },
        });
        const date = new Date(Date.now() + 4 * 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
        await client.reservations.create(config.restaurantId, {
          start_time: { date, time: '20:45' },
          adults: 2,
        });
      } finally {
        diagnostics.tracingChannel('restaurant-partner-sdk:call').unsubscribe(call);
        diagnostics.tracingChannel('restaurant-partner-sdk:attempt').unsubscribe(attempt);
        diagnostics.unsubscribe('restaurant-partner-sdk:create.outcome', outcome);
      }
      const [first] = seen;
      expect(
        first?.[0] === 'call' && first[1] === 'reservations.create',
        `first message: ${JSON.stringify(first)}`,
      );
      const callId = first[2];
      expect(
        seen.every((entry) => entry[2] === callId),
        `messages of one call: ${JSON.stringify(seen)}`,
      );
      const answered = seen.filter(([kind]) => kind === 'answered').map(([, status]) => status);
      expect(answered.at(-1) === 201 || answered.at(-1) === 200, `statuses: ${answered.join(', ')}`);
      expect(
        seen.at(-1)?.[0] === 'outcome' && seen.at(-1)[1] === 'created',
        `last: ${JSON.stringify(seen.at(-1))}`,
      );
      expect(
        sentTraceparents.length > 0 && sentTraceparents.every((value) => value === traceparent),
        'traceparent not sent',
      );
      expect(
        hooked.length > 0 &&
          hooked.every((event) => event.operation === 'reservations.create' && event.callId === callId),
        'hook events lack operation or callId',
      );
      return `${seen.length} messages, ${answered.length} requests`;
    }),
  ];
}
