import type { Clock } from '../../../src/transport/clock.js';
import type { FakeService } from 'restaurant-partner-sdk/testing';

/** A clock reading the fake's time whose sleeps end only when `advance` moves the fake's clock past them. */
export interface FollowerClock extends Clock {
  /** Moves the fake's clock forward by `ms`, waking each sleeper at its own time and letting the work it starts run. */
  advance(ms: number): Promise<void>;
  /** Lets started work run until everything waits on a sleep of this clock (or nothing moves). */
  quiet(): Promise<void>;
  readonly pendingSleeps: number;
}

export function followerClock(fake: FakeService): FollowerClock;
