/**
 * What a partner sees of an error: a 400's message names the fields the service refused, printed
 * errors carry no empty `[cause]`, and every exported error class has its type guard.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import * as core from 'restaurant-partner-sdk';
import { BadRequestError, NotFoundError, isBadRequestError, isNotFoundError } from 'restaurant-partner-sdk';
import * as testing from 'restaurant-partner-sdk/testing';
import * as webhooks from 'restaurant-partner-sdk/webhooks';
import { json, mockApi, restaurantBody } from '../support/mock-api.js';

const api = mockApi();

describe('error messages', () => {
  it("a 400's message carries the field errors of its body", async () => {
    api.reply(
      () => json([restaurantBody({ id: 7 })]),
      () =>
        json(
          {
            detail: 'Invalid input.',
            email: ['Enter a valid email address.'],
            phone: ['Too long.', 'Not a number.'],
          },
          400,
        ),
    );
    // The refusal is looked up by key before it is reported: nothing carries it.
    api.always(() => json([]));
    const error = await api
      .client()
      .reservations.create(7, { start_time: '2026-12-05T19:30:00', adults: 2, email: 'ada@' })
      .catch((caught: unknown) => caught);
    expect(isBadRequestError(error)).toBe(true);
    const badRequest = error as BadRequestError;
    expect(badRequest.message).toMatch(
      /^HTTP 400: Invalid input\. email: Enter a valid email address\.; phone: Too long\. Not a number\. \(POST /,
    );
    expect(badRequest.fieldErrors).toEqual({
      email: ['Enter a valid email address.'],
      phone: ['Too long.', 'Not a number.'],
    });
  });

  it('nested field errors are named by their dotted path', () => {
    const error = new BadRequestError('HTTP 400: Invalid input.', {
      status: 400,
      body: { description: { fr: ['Too long.'] }, detail: 'Invalid input.' },
    });
    expect(error.fieldErrors).toEqual({ 'description.fr': ['Too long.'] });
    expect(error.message).toBe('HTTP 400: Invalid input. description.fr: Too long.');
  });

  it('the field summary is bounded, whatever the body holds', () => {
    const body = Object.fromEntries(
      Array.from({ length: 500 }, (_, index) => [`field_${index}`, ['x'.repeat(100)]]),
    );
    const error = new BadRequestError('HTTP 400', { status: 400, body });
    expect(error.message.length).toBeLessThan(400);
    expect(error.message).toMatch(/^HTTP 400\. field_0: x+/);
    expect(Object.keys(error.fieldErrors)).toHaveLength(500);
    expect(new BadRequestError('HTTP 400: Bad.', { status: 400, body: { detail: 'Bad.' } }).message).toBe(
      'HTTP 400: Bad.',
    );
  });

  it('printed errors show no `[cause]: undefined`', () => {
    for (const error of [
      new NotFoundError('HTTP 404', { status: 404 }),
      new core.ConnectionError('refused'),
      new core.AmbiguousCreateError('unknown', { idempotencyKey: 'k', restaurantId: 1 }),
      new webhooks.WebhookConfigurationError('broken'),
      new webhooks.WebhookHandlerError('TEST', 'evt_1', undefined, 10),
    ]) {
      expect(inspect(error)).not.toContain('[cause]');
      expect(Object.hasOwn(error, 'cause')).toBe(false);
    }
    const withCause = new core.ConnectionError('refused', { cause: new Error('ECONNREFUSED') });
    expect(inspect(withCause)).toContain('[cause]: Error: ECONNREFUSED');
  });
});

describe('type guards', () => {
  it('exist for every exported error class, and tell them apart', () => {
    const entries = { core, testing, webhooks } as Record<string, Record<string, unknown>>;
    const classes: string[] = [];
    for (const [entryName, entry] of Object.entries(entries)) {
      for (const [name, value] of Object.entries(entry)) {
        if (typeof value !== 'function' || !(value.prototype instanceof Error)) continue;
        classes.push(name);
        const guard = entry[`is${name}`];
        expect(guard, `${entryName} exports ${name} without is${name}`).toBeTypeOf('function');
        const sample = Object.create(value.prototype) as Error;
        expect((guard as (error: unknown) => boolean)(sample), `is${name} on a ${name}`).toBe(true);
        expect((guard as (error: unknown) => boolean)(new Error('plain')), `is${name} on a plain Error`).toBe(
          false,
        );
      }
    }
    expect(classes).toEqual(
      expect.arrayContaining([
        'NotFoundError',
        'BadRequestError',
        'TimeoutError',
        'ReservationCancelledError',
        'WebhookVerificationError',
        'FakeError',
        'RateLimitQueueFullError',
      ]),
    );
    expect(isNotFoundError(new NotFoundError('HTTP 404', { status: 404 }))).toBe(true);
    expect(isNotFoundError(new BadRequestError('HTTP 400', { status: 400 }))).toBe(false);
  });
});
