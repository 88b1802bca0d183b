/**
 * The default in-memory duplicate store answers exactly as a plain model of its promise: an id
 * added is remembered until its time to live ends or `maxEntries` newer additions pushed it out
 * (an id added again counts as new). Whatever the ids: long ones, ones past U+00FF, ones that
 * share a hash bucket, and across the store's growth past its first 1024 entries.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryDuplicateStore } from '../../src/webhooks/duplicates.js';
import { propertyRuns } from '../support/property-runs.js';

/** The promise, written plainly: a list of (id, expiry) in the order added. */
class Model {
  entries: { id: string; expiresAt: number; addedAt: number }[] = [];
  constructor(
    readonly maxEntries: number,
    readonly ttlMs: number,
  ) {}
  has(id: string, now: number): boolean {
    const index = this.entries.findIndex((entry) => entry.id === id);
    if (index === -1) return false;
    if (this.entries[index]!.expiresAt <= now) {
      this.entries.splice(index, 1);
      return false;
    }
    return true;
  }
  /** The `addition`th addition (from 0). An entry goes once `maxEntries` additions followed it. */
  add(id: string, now: number, addition: number): void {
    this.entries = this.entries.filter(
      (entry) => entry.id !== id && addition - entry.addedAt < this.maxEntries,
    );
    this.entries.push({ id, expiresAt: now + this.ttlMs, addedAt: addition });
  }
}

// A few ids of every kind, drawn often enough to repeat: short, long (past the inline size),
// with characters past U+00FF, and empty.
const idArbitrary = fc.oneof(
  fc.constantFrom('a', 'b', 'reservation-4021:evt_1', 'reservation-4021:evt_2', ''),
  fc.string({ minLength: 0, maxLength: 6 }),
  fc.string({ minLength: 90, maxLength: 140 }),
  fc.constantFrom('webhook-é:ü', 'reservation-1:évt', 'reservation-1:evt_😀'),
);

const operation = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), id: idArbitrary }),
  fc.record({ kind: fc.constant('has' as const), id: idArbitrary }),
  fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 600 }) }),
);

type Operation = { kind: 'add' | 'has'; id: string } | { kind: 'tick'; ms: number };

/** Runs `operations` on a store and on the model side by side, checking every lookup. */
function replay(maxEntries: number, ttlMs: number, operations: readonly Operation[]) {
  let now = 0;
  const store = createMemoryDuplicateStore({ maxEntries, ttlMs, now: () => now });
  const model = new Model(maxEntries, ttlMs);
  let additions = 0;
  for (const step of operations) {
    if (step.kind === 'tick') now += step.ms;
    else if (step.kind === 'add') {
      store.add(step.id);
      model.add(step.id, now, additions);
      additions += 1;
    } else expect(store.has(step.id), `has(${JSON.stringify(step.id)})`).toBe(model.has(step.id, now));
  }
  return { store, model, now };
}

describe('createMemoryDuplicateStore', () => {
  it('answers as the model for any sequence of additions, lookups and passing time', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.array(operation, { maxLength: 80 }),
        (maxEntries, operations) => void replay(maxEntries, 1000, operations),
      ),
      { numRuns: propertyRuns(400) },
    );
  });

  it('answers as the model through its growth past its first 1024 entries, with ids expired, added again and kept as strings', () => {
    // Mostly fresh ids (so the store grows), some drawn again from a small pool, some long ones.
    const growthOperation = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          kind: fc.constant('add' as const),
          id: fc.string({ minLength: 8, maxLength: 12 }),
        }),
      },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('add' as const), id: idArbitrary }) },
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('has' as const), id: idArbitrary }) },
      {
        weight: 1,
        arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 5 }) }),
      },
    );
    fc.assert(
      fc.property(
        // Past 1024 the arrays grow once; twice as many additions turn the ring over entries
        // that were emptied before the growth.
        fc.integer({ min: 1025, max: 1300 }),
        fc.array(growthOperation, { minLength: 4000, maxLength: 5000 }),
        (maxEntries, operations) => {
          // A short life, so that ids expire while the store grows.
          const { store, model, now } = replay(maxEntries, 400, operations);
          // Every id the model remembers, and none it forgot.
          for (const entry of [...model.entries]) expect(store.has(entry.id)).toBe(model.has(entry.id, now));
        },
      ),
      { numRuns: propertyRuns(15) },
    );
  });

  it('keeps exactly the newest maxEntries ids through its growth, and tells apart ids that share a bucket', () => {
    const maxEntries = 5000;
    const store = createMemoryDuplicateStore({ maxEntries });
    const ids = Array.from({ length: 12_000 }, (_, index) => `reservation-${index % 977}:evt_${index}`);
    for (const id of ids) store.add(id);
    const remembered = ids.filter((id) => store.has(id));
    expect(remembered).toEqual(ids.slice(-maxEntries));
    // Ids that differ in one character only, at every position, are not taken for one another.
    for (const id of ids.slice(-50)) {
      for (let position = 0; position < id.length; position += 1) {
        const other =
          id.slice(0, position) + String.fromCharCode(id.charCodeAt(position) ^ 1) + id.slice(position + 1);
        if (!ids.includes(other)) expect(store.has(other), other).toBe(false);
      }
    }
  });

  it('never takes one id for another that shares its hash', () => {
    // Each pair shares a 32-bit FNV-1a hash (found by search), and so a bucket and a stored hash.
    const pairs = [
      ['reservation-4021:evt_0112789', 'reservation-4021:evt_0349192'],
      ['reservation-4021:evt_194789', 'reservation-4021:evt_1239030'],
      ['reservation-4021:evtşšŢţŤeŦgŨũŪkŬŭŮopq', 'reservation-4021:evt_šbcŤefghũŪūlmnůpq'],
    ];
    for (const [first, second] of pairs) {
      const store = createMemoryDuplicateStore();
      store.add(first!);
      expect([store.has(first!), store.has(second!)]).toEqual([true, false]);
      store.add(second!);
      expect([store.has(first!), store.has(second!)]).toEqual([true, true]);
    }
  });

  it('refuses a maxEntries that is not a positive integer', () => {
    expect(() => createMemoryDuplicateStore({ maxEntries: 0 })).toThrow(
      /maxEntries must be a positive integer/,
    );
    expect(() => createMemoryDuplicateStore({ maxEntries: 2.5 })).toThrow(
      /maxEntries must be a positive integer/,
    );
  });
});
