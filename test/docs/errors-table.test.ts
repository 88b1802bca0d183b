/**
 * docs/errors.md's table is where a partner reads what `error.retryable` will be: it must name
 * every exported error class, with the value the code gives it (the values themselves are checked
 * on real errors in test/resources/retryable.test.ts, against the same EXPECTED).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as core from 'restaurant-partner-sdk';
import * as postgres from 'restaurant-partner-sdk/postgres';
import * as redis from 'restaurant-partner-sdk/redis';
import * as sync from 'restaurant-partner-sdk/sync';
import * as testing from 'restaurant-partner-sdk/testing';
import * as webhooks from 'restaurant-partner-sdk/webhooks';
import { EXPECTED } from '../support/retryable.js';

/** An error class, abstract ones included. */
type ErrorClass = abstract new (...args: never[]) => Error;

/** Every exported class that is an Error, by name, across the entries a partner imports. */
function exportedErrorClasses(): Map<string, ErrorClass> {
  const classes = new Map<string, ErrorClass>();
  for (const entry of [core, postgres, redis, sync, testing, webhooks] as Record<string, unknown>[])
    for (const value of Object.values(entry))
      if (typeof value === 'function' && value.prototype instanceof Error)
        classes.set(value.name, value as ErrorClass);
  return classes;
}

/** docs/errors.md's table: class name to its `retryable` cell. */
function docsRetryableColumn(): Map<string, string> {
  const markdown = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const lines = markdown.split('\n');
  const header = lines.findIndex((line) => /^\| class \|.*\| `retryable` \|/.test(line));
  expect(header, 'docs/errors.md has no table with a `retryable` column').toBeGreaterThan(-1);
  const column = lines[header]!.split(' | ').findIndex((cell) => cell.trim() === '`retryable`');
  const rows = new Map<string, string>();
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const name = /^\| `(\w+)`/.exec(line)?.[1];
    if (name) rows.set(name, line.split(' | ')[column]!.trim());
  }
  return rows;
}

describe('docs/errors.md', () => {
  it('gives every exported error class its retryable value, as the code has it', () => {
    const classes = exportedErrorClasses();
    const documented = docsRetryableColumn();
    expect(classes.size).toBeGreaterThan(30);
    // A new error class must be given its value here (and so in the behaviour test) and in the docs.
    expect([...classes.keys()].sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const name of classes.keys()) {
      const cell = documented.get(name);
      expect(cell, `docs/errors.md's table lacks the row of ${name}`).toBeDefined();
      const expected = EXPECTED[name]!;
      if (typeof expected === 'boolean')
        expect(cell, name).toMatch(new RegExp(`^\`${expected}\`(?:[:;,. ]|$)`));
      else if (expected === 'none') expect(cell, name).toMatch(/^none\b/);
      else expect(cell, name).toMatch(/^`true` .*`false`|^`false` .*`true`/);
    }
  });
});
