/**
 * What a partner sees of an error: a 400's message names the fields the service refused, printed
 * errors carry no empty `[cause]`, and one guard recognises the family's errors, from this copy of
 * the package or another.
 */
import { build } from 'esbuild';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import * as core from 'restaurant-partner-sdk';
import { BadRequestError, NotFoundError, isPartnerSdkError } from 'restaurant-partner-sdk';
import * as webhooks from 'restaurant-partner-sdk/webhooks';
import { json, mockApi, restaurantBody } from '../support/hostile-server.js';

const api = mockApi();
const root = fileURLToPath(new URL('../..', import.meta.url));

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
    expect(isPartnerSdkError(error, BadRequestError)).toBe(true);
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

/** A second copy of the core entry, bundled and minified, as a dependency that bundles the SDK carries it. */
async function loadSecondCopy(): Promise<typeof core> {
  const result = await build({
    stdin: {
      contents: `export * from './src/index.ts';`,
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  const directory = await mkdtemp(join(tmpdir(), 'sdk-second-copy-'));
  const file = join(directory, 'errors.mjs');
  await writeFile(file, result.outputFiles[0]!.text);
  try {
    return (await import(/* @vite-ignore */ pathToFileURL(file).href)) as typeof core;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

describe('isPartnerSdkError, the one guard', () => {
  it('is instanceof within one copy: the class and the classes beneath it', () => {
    const noTable = new core.NoAvailabilityError('HTTP 409', { status: 409 });
    expect(isPartnerSdkError(noTable)).toBe(true);
    expect(isPartnerSdkError(noTable, core.NoAvailabilityError)).toBe(true);
    expect(isPartnerSdkError(noTable, core.ConflictError)).toBe(true);
    expect(isPartnerSdkError(noTable, core.PartnerApiError)).toBe(true);
    expect(isPartnerSdkError(noTable, NotFoundError)).toBe(false);
    expect(isPartnerSdkError(new NotFoundError('HTTP 404', { status: 404 }), NotFoundError)).toBe(true);
    expect(isPartnerSdkError(new BadRequestError('HTTP 400', { status: 400 }), NotFoundError)).toBe(false);
    expect(isPartnerSdkError(new webhooks.WebhookConfigurationError('broken'))).toBe(true);
    for (const notOurs of [
      new Error('plain'),
      Object.assign(new Error('x'), { name: 'NotFoundError' }),
      null,
      'NotFoundError',
    ])
      expect(isPartnerSdkError(notOurs, NotFoundError)).toBe(false);
  });

  it('recognises the errors of another copy of the package, where instanceof fails', async () => {
    const other = await loadSecondCopy();
    const noTable = new other.NoAvailabilityError('HTTP 409', { status: 409 });
    expect(noTable instanceof core.NoAvailabilityError).toBe(false);
    expect(noTable.name).toBe('NoAvailabilityError');
    expect(isPartnerSdkError(noTable)).toBe(true);
    expect(isPartnerSdkError(noTable, core.NoAvailabilityError)).toBe(true);
    expect(isPartnerSdkError(noTable, core.ConflictError)).toBe(true);
    expect(isPartnerSdkError(noTable, core.PartnerApiError)).toBe(true);
    expect(isPartnerSdkError(noTable, core.NotFoundError)).toBe(false);
    expect(isPartnerSdkError(noTable, core.AmbiguousCreateError)).toBe(false);
    const timeout = new other.TimeoutError('slow');
    expect(isPartnerSdkError(timeout, core.ConnectionError)).toBe(true);
    expect(isPartnerSdkError(timeout, core.PartnerApiError)).toBe(false);
    // The two named guards the brief fixes work the same way.
    const reuse = new other.IdempotencyKeyReuseError({
      idempotencyKey: 'k',
      restaurantId: 1,
      fields: ['adults'],
    });
    expect(core.isIdempotencyKeyReuseError(reuse)).toBe(true);
    expect(core.isIdempotencyKeyReuseError(noTable)).toBe(false);
    const drift = new other.DialectDriftError({
      point: 'createStatus',
      expected: 201,
      received: 200,
      method: 'POST',
      url: 'https://api.example.com/x/',
      status: 200,
    });
    expect(core.isDialectDriftError(drift)).toBe(true);
    expect(core.isDialectDriftError(reuse)).toBe(false);
    // Every error class of the core entry, its parents included.
    for (const [name, value] of Object.entries(other)) {
      if (typeof value !== 'function' || !(value.prototype instanceof Error)) continue;
      const mine = (core as Record<string, unknown>)[name] as abstract new (
        ...args: never[]
      ) => core.PartnerSdkError;
      const theirs = Object.create(value.prototype) as unknown;
      expect(theirs instanceof mine, name).toBe(false);
      expect(isPartnerSdkError(theirs, mine), name).toBe(true);
      expect(isPartnerSdkError(theirs, core.PartnerSdkError), name).toBe(true);
    }
    // The other way round, too: the other copy's guard knows this copy's errors.
    expect(other.isPartnerSdkError(new core.TimeoutError('slow'), other.ConnectionError)).toBe(true);
  });

  it('keeps each error named as its class: in JSON, in its stack, in print', () => {
    const error = new core.AmbiguousCreateError('unknown', { idempotencyKey: 'k', restaurantId: 1 });
    expect(error.name).toBe('AmbiguousCreateError');
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ name: 'AmbiguousCreateError' });
    expect(error.stack).toMatch(/^AmbiguousCreateError: unknown/);
    expect(inspect(error)).toMatch(/^AmbiguousCreateError: unknown/);
    expect(new core.PartnerSdkError('x').name).toBe('PartnerSdkError');
  });

  it('is the only guard of the core entry, beside the two named ones', () => {
    const guards = Object.keys(core).filter((name) => /^is[A-Z]/.test(name));
    expect(guards.sort()).toEqual(['isDialectDriftError', 'isIdempotencyKeyReuseError', 'isPartnerSdkError']);
  });
});
