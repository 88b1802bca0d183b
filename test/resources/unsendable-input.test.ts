import { describe, expect, it } from 'vitest';
import { InputValidationError } from 'restaurant-partner-sdk';
import { mockApi, restaurantBody, json } from '../support/hostile-server.js';

const api = mockApi();
const base = { start_time: '2026-12-05T19:30:00', adults: 2 };

describe('input JSON cannot carry, refused before any request', () => {
  it('names the metadata field holding a bigint', async () => {
    api.reply(() => json([restaurantBody()]));
    const error = await api
      .client()
      .reservations.create(7, { ...base, metadata: { order: { total: 10n } } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputValidationError);
    expect((error as InputValidationError).field).toBe('metadata.order.total');
    expect(api.calls).toHaveLength(0);
  });

  it('refuses a circular value in metadata', async () => {
    api.reply(() => json([restaurantBody()]));
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    const error = await api
      .client()
      .reservations.create(7, { ...base, metadata: { loop } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputValidationError);
    expect((error as InputValidationError).field).toBe('metadata.loop.self');
    expect(api.calls).toHaveLength(0);
  });

  it('refuses an unknown field of a webhook update, naming it', async () => {
    const error = await api
      .client()
      .webhooks.update(3, { extra: 1 } as never)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputValidationError);
    expect((error as InputValidationError).field).toBe('extra');
    expect(api.calls).toHaveLength(0);
  });

  it.each(['order-42\u0000', 'line\r\nbreak', ' padded', 'é-accent', ''])(
    'refuses the idempotency key %j, which no header can carry',
    async (idempotencyKey) => {
      const error = await api
        .client()
        .reservations.create(7, base, { idempotencyKey })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InputValidationError);
      expect((error as InputValidationError).field).toBe('idempotencyKey');
      expect(api.calls).toHaveLength(0);
    },
  );

  it('sends a printable key with inner spaces unchanged', async () => {
    // The restaurants (timezone), the look-up of the caller's key (one page: one read tells), then the create.
    api.reply(
      () => json([restaurantBody({ id: 7 })]),
      () => json([]),
      (call) => json({ ...(call.body as object), id: 1 }, 201),
    );
    await api.client().reservations.create(7, base, { idempotencyKey: 'order 42 / try 1' });
    expect(api.calls.at(-1)!.headers.get('idempotency-key')).toBe('order 42 / try 1');
  });
});

describe('per-call options, checked before any request', () => {
  it.each([
    [{ maxRetries: 1.5 }, 'maxRetries'],
    [{ maxRetries: -1 }, 'maxRetries'],
    [{ timeoutMs: 0 }, 'timeoutMs'],
    [{ timeoutMs: Number.NaN }, 'timeoutMs'],
    [{ signal: 'stop' }, 'signal'],
  ])('refuses %j naming %s, even where a timezone look-up would come first', async (options, field) => {
    const error = await api
      .client()
      .reservations.create(7, base, options as never)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputValidationError);
    expect((error as InputValidationError).field).toBe(field);
    expect(api.calls).toHaveLength(0);
  });

  it('accepts a fractional timeout (rounded up to whole milliseconds)', async () => {
    api.reply(() => json([restaurantBody()]));
    await expect(api.client().restaurants.list({ timeoutMs: 2_500.5 }).toArray()).resolves.toHaveLength(1);
  });
});
