/**
 * Reservation states and transitions, written once as data: state x action -> state + event.
 * Every rule of the spec's "States and transitions" table, and the fake's documented choices where the spec
 * is silent, is one row here; the backend applies rows, it never re-states them as guards.
 * @module
 */
import {
  RESERVATION_CANCELLED,
  RESERVATION_CONFIRMED,
  RESERVATION_MODIFIED,
} from '../../resources/event-names.js';
import { invalidTransition } from './fake-error.js';
import type { WebhookEventType, ReservationRecord } from './state.js';

/** Where a reservation is, read from its booleans (spec: "States are held in the boolean fields"). */
export type ReservationState = 'created' | 'confirmed' | 'cancelled' | 'arrived' | 'no_show';

/** What can happen to an existing reservation, by the partner, the restaurant or the customer. */
export type ReservationAction = 'confirm' | 'modify' | 'cancel' | 'markArrived' | 'markNoShow';

/** One row: from a state, an action leads to a state and maybe sends an event. */
export interface Transition {
  to: ReservationState;
  /** The event sent to the partner's webhooks, if any. */
  event: WebhookEventType | null;
  /** Why, in the spec's words or the fake's documented choice. */
  because: string;
}

/** The table. A missing (state, action) pair is refused with 409 `invalid_transition`. */
export const TRANSITIONS: {
  readonly [Action in ReservationAction]: Partial<Record<ReservationState, Transition>>;
} = {
  confirm: {
    created: {
      to: 'confirmed',
      event: RESERVATION_CONFIRMED,
      because:
        'spec: "created (asynchronous) | restaurant confirms manually | confirmed | event RESERVATION_CONFIRMED is sent"',
    },
  },
  modify: {
    created: {
      to: 'created',
      event: RESERVATION_MODIFIED,
      because:
        'spec: "created or confirmed | modification by the restaurant or the customer | unchanged state"',
    },
    confirmed: {
      to: 'confirmed',
      event: RESERVATION_MODIFIED,
      because: 'spec: "created or confirmed | modification ... | unchanged state"',
    },
  },
  cancel: {
    created: {
      to: 'cancelled',
      event: RESERVATION_CANCELLED,
      because: 'spec: "It can be cancelled at any point before arrival"',
    },
    confirmed: {
      to: 'cancelled',
      event: RESERVATION_CANCELLED,
      because: 'spec: "created or confirmed | PATCH with action=cancel | cancelled"',
    },
    cancelled: {
      to: 'cancelled',
      event: null,
      because: "the fake's choice: a repeated cancel is a 200 with no second event",
    },
  },
  markArrived: {
    confirmed: {
      to: 'arrived',
      event: null,
      because: 'spec: "confirmed | PATCH setting arrived to true | arrived" (no event: the spec names none)',
    },
  },
  markNoShow: {
    created: {
      to: 'no_show',
      event: null,
      because: 'spec: "created or confirmed | PATCH setting no_show to true | no-show"',
    },
    confirmed: {
      to: 'no_show',
      event: null,
      because: 'spec: "created or confirmed | PATCH setting no_show to true | no-show"',
    },
  },
};

/** Words for refusals: "A cancelled reservation cannot be confirmed". */
const ACTION_WORDS: Record<ReservationAction, string> = {
  confirm: 'be confirmed',
  modify: 'be modified',
  cancel: 'be cancelled',
  markArrived: 'be marked as arrived',
  markNoShow: 'be marked as a no-show',
};

/** Which states allow an action, for refusal messages and the README. */
export function statesAllowing(action: ReservationAction): ReservationState[] {
  return Object.keys(TRANSITIONS[action]) as ReservationState[];
}

/** The reservation's state by its booleans (spec, States and transitions). */
export function stateOf(record: ReservationRecord): ReservationState {
  if (record.arrivedAt !== null) return 'arrived';
  if (record.noShowAt !== null) return 'no_show';
  if (record.cancelledAt !== null) return 'cancelled';
  return record.confirmedAt !== null ? 'confirmed' : 'created';
}

const STAMP: Partial<Record<ReservationState, 'confirmedAt' | 'cancelledAt' | 'arrivedAt' | 'noShowAt'>> = {
  confirmed: 'confirmedAt',
  cancelled: 'cancelledAt',
  arrived: 'arrivedAt',
  no_show: 'noShowAt',
};

/** The row for (state, action), or a 409 `invalid_transition` naming the states that allow it. */
export function transitionFor(record: ReservationRecord, action: ReservationAction): Transition {
  const from = stateOf(record);
  const row = TRANSITIONS[action][from];
  if (!row) {
    const allowed = statesAllowing(action).map((state) => state.replace('_', '-'));
    throw invalidTransition(
      `A ${from.replace('_', '-')} reservation cannot ${ACTION_WORDS[action]} (only ${allowed.join(' or ')}).`,
    );
  }
  return row;
}

/**
 * Applies a row: sets the `*_at` time of the state entered (the spec: "set automatically by the
 * server"), and returns the event to send, if any.
 */
export function applyTransition(
  record: ReservationRecord,
  action: ReservationAction,
  now: number,
): WebhookEventType | null {
  const row = transitionFor(record, action);
  const from = stateOf(record);
  const stamp = STAMP[row.to];
  if (row.to !== from && stamp) record[stamp] = now;
  return row.event;
}
