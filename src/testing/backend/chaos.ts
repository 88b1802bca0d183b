/**
 * Delivery chaos: the webhook deliveries of a real service get lost, repeated, late and out of
 * order, and a receiver (or a sync built on it) must survive that. The fake plays it on demand,
 * seeded, so a failing run replays exactly: the same seed and the same actions draw the same
 * drops, duplicates and delays.
 * @module
 */
import { FieldCollector, isPlainObject } from './validation.js';
import { invalid } from './fake-error.js';
import type { PendingDelivery } from './state.js';

/** What `fake.setDeliveryChaos(...)` and `PUT /_fake/delivery-chaos` take; every key optional. */
export interface DeliveryChaosInput {
  /** Probability (0 to 1) that a delivery is lost for good: never sent, never retried. Default 0. */
  dropRate?: number;
  /** Probability (0 to 1) that a delivery is sent once more (the same event id). Default 0. */
  duplicateRate?: number;
  /** Lets deliveries overtake each other within `maxDelayMs` (otherwise each webhook gets them in order). Default false. */
  reorder?: boolean;
  /** Delays each delivery by a draw from 0 to this many milliseconds on the fake's clock. Default 0. */
  maxDelayMs?: number;
  /** Seed of the draws (an integer from 0 to 2^32 - 1). Default: a random one, shown in the settings. */
  seed?: number;
}

/** The chaos in force, every key filled in (the seed included, so a run can be replayed). */
export type DeliveryChaosSettings = Required<DeliveryChaosInput>;

/** The longest delay chaos may add: one day on the fake's clock. */
export const MAX_CHAOS_DELAY_MS = 86_400_000;
const MAX_SEED = 2 ** 32 - 1;
const KEYS = new Set(['dropRate', 'duplicateRate', 'reorder', 'maxDelayMs', 'seed']);

/** Checks chaos settings given as JSON or from code; a bad one is a 400 naming each field. */
export function parseDeliveryChaos(input: unknown): DeliveryChaosSettings {
  if (!isPlainObject(input))
    throw invalid({ non_field_errors: ['Expected a JSON object such as {"dropRate": 0.1, "seed": 42}.'] });
  const fields = new FieldCollector();
  for (const key of Object.keys(input))
    if (!KEYS.has(key)) fields.add(key, `Unknown key; expected ${[...KEYS].join(', ')}.`);
  const rate = (field: 'dropRate' | 'duplicateRate'): number => {
    const value = input[field];
    if (value === undefined) return 0;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
      fields.add(field, 'Expected a probability from 0 to 1.');
      return 0;
    }
    return value;
  };
  const settings: DeliveryChaosSettings = {
    dropRate: rate('dropRate'),
    duplicateRate: rate('duplicateRate'),
    reorder: fields.boolean(input, 'reorder') ?? false,
    maxDelayMs: fields.integer(input, 'maxDelayMs', { min: 0, max: MAX_CHAOS_DELAY_MS }) ?? 0,
    seed:
      fields.integer(input, 'seed', { min: 0, max: MAX_SEED }) ??
      crypto.getRandomValues(new Uint32Array(1))[0]!,
  };
  fields.throwIfAny();
  return settings;
}

/** What chaos decided for one delivery. */
export interface ChaosDraw {
  dropped: boolean;
  duplicated: boolean;
  /** Delay of the delivery on the fake's clock. */
  delayMs: number;
  /** Delay of its duplicate, when there is one. */
  duplicateDelayMs: number;
}

/**
 * Draws per delivery from one seeded stream (mulberry32: small, fast, and the same on every
 * platform). Draws happen when an event is emitted, in the order of the webhooks, so concurrency
 * of the attempts never changes them.
 */
export class DeliveryChaos {
  #state: number;
  /** Without `reorder`: the latest instant a delivery to each webhook is due, so none overtakes. */
  readonly #lastDueAt = new Map<number, number>();

  constructor(readonly settings: DeliveryChaosSettings) {
    this.#state = settings.seed >>> 0;
  }

  /** A number in [0, 1). */
  #next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** Decides the fate of one delivery to `webhookId` emitted at `now`; due times come back absolute. */
  draw(webhookId: number, now: number): ChaosDraw & { dueAt: number; duplicateDueAt: number } {
    const { dropRate, duplicateRate, maxDelayMs, reorder } = this.settings;
    // Every draw is taken whatever the settings, so changing one rate leaves the others' draws alone.
    const dropped = this.#next() < dropRate;
    const duplicated = this.#next() < duplicateRate;
    const delayMs = Math.floor(this.#next() * (maxDelayMs + 1));
    const duplicateDelayMs = Math.floor(this.#next() * (maxDelayMs + 1));
    let dueAt = now + delayMs;
    let duplicateDueAt = now + duplicateDelayMs;
    if (!reorder) {
      // Forget webhooks whose last delivery is already due (deleted ones included), so the map stays small.
      if (this.#lastDueAt.size > 1000)
        for (const [id, at] of this.#lastDueAt) if (at <= now) this.#lastDueAt.delete(id);
      // In order per webhook: a delivery never goes out before one emitted earlier.
      dueAt = Math.max(dueAt, this.#lastDueAt.get(webhookId) ?? dueAt);
      duplicateDueAt = Math.max(duplicateDueAt, dueAt);
      if (!dropped) this.#lastDueAt.set(webhookId, duplicated ? duplicateDueAt : dueAt);
    }
    return {
      dropped,
      duplicated,
      delayMs: dueAt - now,
      duplicateDelayMs: duplicateDueAt - now,
      dueAt,
      duplicateDueAt,
    };
  }

  /**
   * What chaos makes of one delivery: none (dropped), itself (maybe late), or itself and a
   * duplicate (same event id, its own place in the queue from `nextSequence`).
   */
  apply(item: PendingDelivery, nextSequence: () => number): PendingDelivery[] {
    const draw = this.draw(item.webhookId, item.createdAt);
    if (draw.dropped) return [];
    const deliveries = [{ ...item, dueAt: draw.dueAt }];
    if (draw.duplicated)
      deliveries.push({ ...item, sequence: nextSequence(), dueAt: draw.duplicateDueAt, duplicate: true });
    return deliveries;
  }
}
