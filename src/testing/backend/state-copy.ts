/**
 * A copy of one world's state (`fake.snapshot()`, the named snapshots of the control API): opaque
 * to partners, and carrying the copied state itself, so a snapshot needs no table beside it.
 * @module
 */
import type { FakeState } from './state.js';

/** An opaque copy of a world's state, for `restore`. */
export class StateCopy {
  readonly kind = 'restaurant-partner-fake-snapshot';
  readonly #state: FakeState;

  constructor(state: FakeState) {
    this.#state = state;
    Object.freeze(this);
  }

  /** The copied state (for the world restoring it; never handed to a partner). */
  get state(): FakeState {
    return this.#state;
  }
}
