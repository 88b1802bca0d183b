/**
 * `restaurant-partner listen --forward-to URL`: registers a webhook on the fake (or a sandbox of
 * it) pointing at a relay this command serves on loopback, and forwards every delivery to the
 * partner's receiver as it comes (same body, the partner's token), one line each with the
 * receiver's answer, which the fake gets back (so its retries follow the receiver). It exits 1 as
 * soon as its source goes away (the fake stops, the sandbox or the webhook is deleted), never
 * silently. `--poll` bridges the live service instead (listen-poll.ts).
 * @module
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PartnerClient } from '../client.js';
import { connectFake } from '../testing/remote-fake.js';
import { RESERVATION_EVENT_TYPES } from '../resources/event-names.js';
import {
  CommandFailure,
  createOutput,
  createRedactor,
  fakeUrlOf,
  httpUrl,
  list,
  pause,
  runCommand,
  stopSignal,
  text,
  UsageError,
  whole,
  type CommandDefinition,
  type OptionValues,
} from './cli-kit.js';
import { forward, forwardedLine } from './forward.js';
import { listenByPolling } from './listen-poll.js';

const usage = `Usage: restaurant-partner listen --forward-to URL [--events NAME,...] [--token T]
                                 [--url FAKE_URL] [--json]
       restaurant-partner listen --poll --forward-to URL [--interval-ms MS] [--token T] [--json]

Forwards webhook deliveries to your receiver on this machine, each with the body the service
sent and your webhook token (PARTNER_WEBHOOK_TOKEN, or --token), one line per delivery with your
receiver's answer (which the fake gets back: its retries follow your receiver).
Against the fake (or a sandbox of it: --url, else PARTNER_BASE_URL, else http://127.0.0.1:4010)
it registers a webhook pointing at a relay it serves on 127.0.0.1 (so run it on the fake's
machine), subscribed to --events (default all), and deletes it when stopped.
--poll bridges the live service instead, no public URL needed: it follows your reservations
with the reservation sync (credentials PARTNER_BASE_URL, PARTNER_ID, PARTNER_TOKEN; reads every
--interval-ms, default 15000, within a quarter of your rate limit) and sends each change to your
receiver as the service's event would be (confirmed, modified, cancelled; arrival and no-show as
modified; reservations already there when it starts are not sent).
It stops on Ctrl-C (exit 0) and exits 1 when its source goes away (the fake or the service stops
answering, the sandbox or the webhook is deleted). Exit 2: usage.

Examples:
  PARTNER_WEBHOOK_TOKEN=whk_local restaurant-partner listen --forward-to http://localhost:3000/webhooks
  restaurant-partner listen --poll --forward-to http://localhost:3000/webhooks --interval-ms 5000`;

const definition: CommandDefinition = {
  name: 'listen',
  usage,
  options: {
    'forward-to': { type: 'string' },
    events: { type: 'string', multiple: true },
    token: { type: 'string' },
    poll: { type: 'boolean', default: false },
    'interval-ms': { type: 'string' },
    url: { type: 'string' },
  },
};

/** Most bytes of one delivery the relay reads: far above any reservation event. */
const MAX_DELIVERY_BYTES = 1024 * 1024;
/** How often the source is checked; two failed checks in a row end the command. */
const WATCH_MS = 500;

async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_DELIVERY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The token the receiver checks: `--token`, else `PARTNER_WEBHOOK_TOKEN`. */
export function tokenOf(values: OptionValues): string {
  const token = text(values, 'token') ?? process.env.PARTNER_WEBHOOK_TOKEN;
  if (!token)
    throw new UsageError(
      'the token your receiver checks is needed: set PARTNER_WEBHOOK_TOKEN (or pass --token)',
    );
  return token;
}

function subscribedEvents(values: OptionValues): Record<string, boolean> | undefined {
  const events = list(values, 'events');
  if (events.length === 0) return undefined;
  for (const event of events)
    if (!(RESERVATION_EVENT_TYPES as readonly string[]).includes(event))
      throw new UsageError(
        `--events: unknown event "${event}" (known: ${RESERVATION_EVENT_TYPES.join(', ')})`,
      );
  return Object.fromEntries(RESERVATION_EVENT_TYPES.map((event) => [event, events.includes(event)]));
}

/** Serves the relay: checks the fake's token, forwards, answers the fake with the receiver's answer. */
function startRelay(
  forwardTo: string,
  token: string,
  relayToken: () => string | undefined,
  print: (record: unknown, line: string) => void,
): Server {
  return createServer((request, response) => {
    const startedAt = performance.now();
    void (async () => {
      const expected = relayToken();
      if (request.method !== 'POST' || !expected || request.headers.authorization !== `Bearer ${expected}`) {
        response
          .writeHead(401, { 'content-type': 'application/json' })
          .end('{"detail":"not a delivery of the webhook listen registered"}');
        request.resume();
        return;
      }
      const body = await readBody(request);
      if (body === undefined) {
        response.writeHead(413).end();
        return;
      }
      const result = await forward(forwardTo, body, token, startedAt);
      print(result, forwardedLine(result));
      // The fake logs the receiver's answer and retries as the receiver asks (a 5xx, no answer).
      response
        .writeHead(result.status ?? 502, { 'content-type': 'application/json' })
        .end(
          result.status === null
            ? JSON.stringify({ detail: `receiver did not answer: ${result.error}` })
            : result.answer,
        );
    })().catch(() => {
      if (!response.headersSent) response.writeHead(502).end();
    });
  });
}

/** Resolves with a reason when the source stops answering or the webhook is gone; undefined when stopped. */
async function watchSource(
  controlUrl: string,
  webhookId: number,
  signal: AbortSignal,
): Promise<string | undefined> {
  let failures = 0;
  let tag: string | null = null;
  while (!signal.aborted) {
    await pause(WATCH_MS, signal);
    if (signal.aborted) return undefined;
    try {
      const response: Response = await fetch(`${controlUrl}/state?reservations=0&deliveries=0`, {
        headers: tag ? { 'if-none-match': tag } : {},
        signal: AbortSignal.timeout(5000),
      });
      if (response.status === 404)
        return `the source at ${controlUrl} is gone (404: a deleted or expired sandbox)`;
      if (response.status === 304) {
        failures = 0;
        continue;
      }
      if (!response.ok) throw new Error(`answered ${response.status}`);
      const state = (await response.json()) as { webhooks: { id: number }[] };
      tag = response.headers.get('etag');
      failures = 0;
      if (!state.webhooks.some((webhook) => webhook.id === webhookId))
        return `webhook ${webhookId} was deleted at the source (or the fake was reset): nothing more will be delivered`;
    } catch (error) {
      failures += 1;
      if (failures >= 2)
        return `the fake at ${controlUrl.replace(/\/_fake$/, '')} went away: ${(error as Error).message}`;
    }
  }
  return undefined;
}

async function listenToFake(values: OptionValues, forwardTo: string, token: string): Promise<number> {
  const url = fakeUrlOf(values);
  const events = subscribedEvents(values);
  const fake = await connectFake(url).catch((error: unknown) => {
    throw new CommandFailure(`cannot reach the fake at ${url}: ${(error as Error).message}`);
  });
  const partnerId = process.env.PARTNER_ID;
  const apiToken = process.env.PARTNER_TOKEN;
  const credentials = partnerId && apiToken ? { baseUrl: url, partnerId, apiToken } : fake.clientOptions();
  const redactor = createRedactor([credentials.apiToken, token]);
  const print = createOutput(values.json === true, redactor.redact);
  const client = new PartnerClient({ ...credentials, logLevel: 'off', rateLimit: false, maxRetries: 2 });
  let relayToken: string | undefined;
  const relay = startRelay(forwardTo, token, () => relayToken, print);
  relay.listen(0, '127.0.0.1');
  await once(relay, 'listening');
  const relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}/deliveries`;
  const stop = stopSignal();
  try {
    const webhook = await client.webhooks.create({
      url: relayUrl,
      name: 'restaurant-partner listen',
      ...(events ? { subscribed_events: events } : {}),
    });
    relayToken = webhook.auth_token;
    redactor.add([relayToken]);
    print(
      { ready: true, webhookId: webhook.id, relayUrl, forwardTo, source: url },
      `Ready: webhook ${webhook.id} on ${url} forwards every delivery to ${forwardTo} (Ctrl-C to stop)`,
    );
    const gone = await watchSource(fake.controlUrl, webhook.id, stop.signal);
    if (gone !== undefined) throw new CommandFailure(`stopped: ${gone}`);
    // Stopped by a signal: the webhook goes with it.
    await client.webhooks.delete(webhook.id, { deadlineMs: 3000 }).catch(() => undefined);
    return 0;
  } finally {
    stop.release();
    relay.closeAllConnections();
    relay.close();
  }
}

/** Runs `restaurant-partner listen` with `args`. */
export async function run(args: string[]): Promise<void> {
  await runCommand(definition, args, async (values) => {
    const forwardTo = httpUrl(text(values, 'forward-to'), '--forward-to');
    const token = tokenOf(values);
    if (values.poll)
      return listenByPolling(
        values,
        forwardTo,
        token,
        whole(values, 'interval-ms', 15_000, 1000, 86_400_000),
      );
    if (text(values, 'interval-ms') !== undefined) throw new UsageError('--interval-ms goes with --poll');
    return listenToFake(values, forwardTo, token);
  });
}
