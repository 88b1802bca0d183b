/**
 * The recovery after an ambiguous create is one recipe, read in four places: the README,
 * docs/errors.md, docs/exactly-once.md and `AmbiguousCreateError`'s own JSDoc (the editor's
 * hover). Each states every step of it in the same words, so none drifts from the others; the
 * default hold it names is the code's. test/proofs/recovery-recipe.test.ts proves the recipe.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_AMBIGUOUS_HOLD_MS } from '../../src/lib/idempotent-create.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The text as a reader takes it: no JSDoc margins, markup or line breaks; `error.` and "this error" as in the docs. */
function plain(text: string): string {
  return text
    .replace(/^\s*\* ?/gm, '')
    .replace(/[`*]/g, '')
    .replace(/\s+/g, ' ')
    .replace(/\berror\./g, '')
    .replace(/this error again/g, 'AmbiguousCreateError again')
    .toLowerCase();
}

const PLACES = {
  'README.md': plain(read('README.md')),
  'docs/errors.md': plain(read('docs/errors.md')),
  'docs/exactly-once.md': plain(read('docs/exactly-once.md')),
  'AmbiguousCreateError (src/errors/booking.ts)': plain(read('src/errors/booking.ts')),
};

const minutes = DEFAULT_AMBIGUOUS_HOLD_MS / 60_000;

/** The recipe, step by step. */
const STEPS = [
  'repeat the same create (the same restaurant, input and idempotency key) later, at or after holduntil at the latest.',
  'the key is idempotencykey: yours, or the random one a create without yours got.',
  "in a job queue, that is the job's own retry with a backoff",
  'a repeat never books twice:',
  `until holduntil (ambiguousholdms, ${minutes} minutes by default, on the client's clock), a repeat sends nothing: it looks the key up and returns the booking when it is there, or throws ambiguouscreateerror again with the same holduntil;`,
  'after it, a repeat looks the key up once more, and sends a create only when no reservation carries the key.',
  'never book again with a new key, or without one: the first create may still commit, and that books twice.',
  'reservations.findbyidempotencykey(restaurantid, key) reads the key without booking; its null means "not found yet".',
  'the hold lives in the booking ledger: with the default ledger, repeat in the same process; from another process, or after a restart, only with the redis or postgres ledger, which every process shares.',
];

describe('the recovery recipe for AmbiguousCreateError', () => {
  for (const [place, text] of Object.entries(PLACES)) {
    it(`is stated whole in ${place}`, () => {
      for (const step of STEPS) expect(text, `${place} lacks: ${step}`).toContain(step);
    });
  }
});
