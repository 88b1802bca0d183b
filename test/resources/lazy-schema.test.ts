import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as zm from 'zod/mini';
import { Reservation, Webhook, WebhookCreateInput } from 'restaurant-partner-sdk';
import { LocalDateTime } from '../../src/resources/reservations.schemas.js';
import { lazySchema } from '../../src/internal/lazy-schema.js';

describe('schemas built on first use', () => {
  it('builds nothing until touched, then once', () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds += 1;
      return z.object({ id: z.int() });
    });
    expect(builds).toBe(0);
    expect(schema.parse({ id: 1 })).toEqual({ id: 1 });
    expect(schema.safeParse({ id: 'x' }).success).toBe(false);
    expect(builds).toBe(1);
  });

  it('behaves as the zod schema it stands for, for partners who use the exported schemas', () => {
    expect(Reservation).toBeInstanceOf(z.core.$ZodType);
    // The schemas are zod's tree-shakeable form: what the full form calls as methods are functions.
    const withNote = zm.extend(LocalDateTime, { note: z.string() });
    expect(withNote.parse({ date: '2026-12-05', time: '19:30', note: 'window' })).toMatchObject({
      time: '19:30',
      note: 'window',
    });
    expect(
      Reservation.parse({ id: 1, start_time: '2026-12-05T19:30:00+01:00', note: 'window' }),
    ).toMatchObject({ id: 1, note: 'window' });
    expect(z.array(Reservation).parse([{ id: 2, start_time: '2026-12-05T19:30:00+01:00' }])).toHaveLength(1);
    expect(() => z.object({ items: z.array(Webhook) }).parse({ items: [{ id: 'x' }] })).toThrow(z.ZodError);
    const jsonSchema = z.toJSONSchema(WebhookCreateInput) as {
      properties: Record<string, { maxLength?: number }>;
    };
    expect(jsonSchema.properties.url!.maxLength).toBe(500);
  });
});
