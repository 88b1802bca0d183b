/**
 * One process's own slots on the shared budget's lattice (`shared-budget.ts`): the slots the
 * queue would give it, worked out from Redis's last answer, which it sends in alone while Redis
 * does not answer. It stands apart because it is arithmetic on the lattice (which slot is next,
 * whether one is usable, whether an ask to Redis fits before it) with no timer, line or Redis.
 * @module
 */

/** This process's slots on the lattice (local clock): the next one, and how many slots apart they come. */
export interface OwnSlots {
  anchor: number;
  next: number;
  cycle: number;
}

/**
 * The own slots a TAKE answer implies: the first is `first` (the slot after the last reserved,
 * plus this process's place in the queue), then one every `total` slots; none without a place.
 */
export function ownSlotsFrom(
  anchor: number,
  first: number,
  position: number,
  total: number,
): OwnSlots | undefined {
  return position >= 0 ? { anchor, next: first + position, cycle: Math.max(1, total) } : undefined;
}

export const slotAt = (slots: OwnSlots, spacing: number): number => slots.anchor + slots.next * spacing;

/**
 * Alone, a process sends only in its even slots: no two processes meet, and a whole interval lies
 * between two of them however late a request leaves its process. With an even cycle and an odd
 * next slot, it has none.
 */
export const hasEvenSlot = (slots: OwnSlots | undefined): slots is OwnSlots =>
  slots !== undefined && !(slots.cycle % 2 === 0 && slots.next % 2 !== 0);

/** Moves `slots.next` on to its first even slot at or after `earliest`; answers when that is. */
export function nextEvenSlot(slots: OwnSlots, earliest: number, spacing: number): number {
  while (slotAt(slots, spacing) < earliest || slots.next % 2 !== 0) slots.next += slots.cycle;
  return slotAt(slots, spacing);
}

/**
 * Asking Redis can take up to `commandTimeoutMs`: ask when that cannot make this process miss its
 * slot at `at` (unless its slots come so often that it never could).
 */
export const askFitsBefore = (
  slots: OwnSlots,
  at: number,
  now: number,
  spacing: number,
  commandTimeoutMs: number,
): boolean => at - now > commandTimeoutMs + 50 || slots.cycle * spacing < commandTimeoutMs + 100;
