/**
 * Marks in the delivery log, so a caller that waits for a delivery reads only what is new since
 * its last look (`GET /_fake/deliveries/changes?after=MARK`) instead of the whole log again. The
 * log keeps the latest attempts only; a mark counts every attempt the state ever logged, so the
 * entries after it are found whatever was dropped from the front. A reset or a restore gives the
 * state a new epoch: a mark of the old one reads the whole log of the new.
 * @module
 */
import type { DeliveryLogEntry, FakeState } from './state.js';

interface Count {
  epoch: string;
  /** Attempts logged in this state since it was made (or restored). */
  logged: number;
}

/** What a look at the log answers: the entries after the mark, and the mark to give next time. */
export interface DeliveryChanges {
  mark: string;
  deliveries: DeliveryLogEntry[];
}

export class DeliveryCursor {
  readonly #counts = new WeakMap<FakeState, Count>();

  #count(state: FakeState): Count {
    let count = this.#counts.get(state);
    if (!count) {
      count = { epoch: crypto.randomUUID().slice(0, 8), logged: state.deliveries.length };
      this.#counts.set(state, count);
    }
    return count;
  }

  /** Counts one attempt the state just logged. */
  logged(state: FakeState): void {
    this.#count(state).logged += 1;
  }

  /** The mark of the log as it stands. */
  mark(state: FakeState): string {
    const { epoch, logged } = this.#count(state);
    return `${epoch}.${logged}`;
  }

  /** The entries logged after `after` (every entry kept when it is absent, malformed or of another epoch). */
  since(state: FakeState, after: string | null): DeliveryLogEntry[] {
    const { epoch, logged } = this.#count(state);
    const log = state.deliveries;
    const match = after === null ? null : /^([0-9a-f]{8})\.(\d{1,15})$/.exec(after);
    if (!match || match[1] !== epoch || Number(match[2]) > logged) return log;
    const newer = logged - Number(match[2]);
    return newer === 0 ? [] : log.slice(Math.max(0, log.length - newer));
  }
}
