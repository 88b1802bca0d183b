/**
 * The diagnostics channels as any subscriber sees them (an APM agent, not only the /otel entry):
 * their names under one prefix, what each message carries (never a header, a body or the
 * token), and that a subscriber may add only trace-context headers to a request. A runtime without
 * `diagnostics_channel` is diagnostics-without-channel.test.ts (a child process: the slow lane).
 */
import diagnostics from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { PartnerClient, silentLogger } from 'restaurant-partner-sdk';
import { createFakeService } from 'restaurant-partner-sdk/testing';
import { CHANNELS } from 'restaurant-partner-sdk/otel';
import { basicAuthorization, basicCredentials } from '../support/basic-auth.js';

const undo: (() => void)[] = [];
afterEach(() => {
  for (const step of undo.splice(0)) step();
});

/** Subscribes to every channel, keeping `[channel, event, message]` in order. */
function listenToAll() {
  const seen: [string, string, Record<string, unknown>][] = [];
  for (const name of [CHANNELS.call, CHANNELS.attempt, CHANNELS.rateLimitWait]) {
    const handlers = Object.fromEntries(
      (['start', 'end', 'asyncStart', 'asyncEnd', 'error'] as const).map((event) => [
        event,
        (message: Record<string, unknown>) => seen.push([name, event, message]),
      ]),
    );
    diagnostics.tracingChannel(name).subscribe(handlers as never);
    undo.push(() => diagnostics.tracingChannel(name).unsubscribe(handlers as never));
  }
  for (const name of [CHANNELS.rateLimitPause, CHANNELS.createOutcome]) {
    const handler = (message: unknown) => seen.push([name, 'publish', message as Record<string, unknown>]);
    diagnostics.subscribe(name, handler);
    undo.push(() => diagnostics.unsubscribe(name, handler));
  }
  return seen;
}

function world() {
  const fake = createFakeService({ clock: { frozen: true } });
  undo.push(() => fake.dispose());
  const partner = fake.addPartner();
  const restaurant = fake.addRestaurant({ partnerIds: [partner.partnerId], timezone: 'Europe/Brussels' });
  const options = fake.clientOptions(partner);
  const sent: Headers[] = [];
  const fetch = ((request: Request) => {
    sent.push(new Headers(request.headers));
    return options.fetch(request);
  }) as typeof globalThis.fetch;
  const client = new PartnerClient({ ...options, fetch, logger: silentLogger });
  return { fake, partner, restaurant, client, sent };
}

describe('diagnostics channels', () => {
  it('every name is under restaurant-partner-sdk:, each written once', () => {
    const names = Object.values(CHANNELS);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^restaurant-partner-sdk:[a-z.-]+$/);
  });

  it('a create publishes its call, waits, attempts and outcome; messages carry facts, never headers, bodies or the token', async () => {
    const seen = listenToAll();
    const { client, restaurant, partner } = world();
    await client.reservations.create(restaurant.id, {
      start_time: { date: '2026-12-06', time: '20:00' },
      adults: 2,
      first_name: 'Ada',
    });
    const order = seen
      .filter(([, event]) => event !== 'end' && event !== 'asyncStart')
      .map(([name, event]) => `${name.slice(23)} ${event}`);
    expect(order).toEqual([
      'call start',
      'rate-limit.wait start',
      'rate-limit.wait asyncEnd',
      'attempt start',
      'attempt asyncEnd',
      'rate-limit.wait start',
      'rate-limit.wait asyncEnd',
      'attempt start',
      'attempt asyncEnd',
      'create.outcome publish',
      'call asyncEnd',
    ]);
    const call = seen[0]![2];
    expect(call).toMatchObject({
      operation: 'reservations.create',
      priority: 'interactive',
      restaurantId: restaurant.id,
    });
    expect(call.guest).toMatchObject({ first_name: 'Ada' });
    expect(call.result).toBeUndefined();
    const attempt = seen.find(([name, event]) => name === CHANNELS.attempt && event === 'asyncEnd')![2];
    expect(attempt.result).toBeUndefined();
    expect(
      Object.keys(attempt)
        .filter((key) => key !== 'result')
        .sort(),
    ).toEqual(
      [
        'attempt',
        'callId',
        'method',
        'operation',
        'resendCount',
        'statusCode',
        'traceHeaders',
        'url',
        'urlTemplate',
      ].sort(),
    );
    const outcome = seen.find(([name]) => name === CHANNELS.createOutcome)![2];
    expect(outcome).toEqual({
      callId: call.callId,
      operation: 'reservations.create',
      outcome: 'created',
      requests: 2,
    });
    const text = JSON.stringify(seen.map(([, , message]) => message));
    expect(text).not.toContain(partner.apiToken);
    expect(text).not.toContain(basicCredentials(partner.partnerId, partner.apiToken));
    expect(text.toLowerCase()).not.toContain('authorization');
  });

  it('a subscriber may add traceparent, tracestate and baggage to a request, and nothing else', async () => {
    const handlers = {
      start(message: { traceHeaders: Record<string, string> }) {
        Object.assign(message.traceHeaders, {
          traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
          tracestate: 'vendor=1',
          baggage: 'tenant=7',
          authorization: 'Basic stolen',
          'x-injected': 'yes',
        });
      },
    };
    diagnostics.tracingChannel(CHANNELS.attempt).subscribe(handlers as never);
    undo.push(() => diagnostics.tracingChannel(CHANNELS.attempt).unsubscribe(handlers as never));
    const { client, sent, partner } = world();
    await client.restaurants.list().toArray();
    expect(sent[0]!.get('traceparent')).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(sent[0]!.get('tracestate')).toBe('vendor=1');
    expect(sent[0]!.get('baggage')).toBe('tenant=7');
    expect(sent[0]!.get('x-injected')).toBeNull();
    expect(sent[0]!.get('authorization')).toBe(basicAuthorization(partner.partnerId, partner.apiToken));
  });
});
