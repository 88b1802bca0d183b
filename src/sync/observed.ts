/**
 * What the sync tells observers (the `sync.read` and `sync.change` diagnostics channels) and its
 * logger of its own pace: one warning when reads of a restaurant come further apart than
 * `reconcile.intervalMs` (the sync is falling behind), and none again until it has caught up.
 * @module
 */
import type { Logger } from '../logger.js';
import { publish } from '../transport/diagnostics.js';
import type { Clock } from '../transport/clock.js';
import type { Observation, ReservationChange } from './changes.js';

/** The pace of one sync's reads. */
export interface SyncPace {
  /**
   * Tells of one restaurant's list read `lateMs` after it was due (NaN for its first read); a read
   * later than `slackMs` leaves a change waiting longer than `reconcile.intervalMs`. `callId` is
   * the read's first list call, so the warning leads to that call's lines and spans.
   */
  read(
    restaurantId: number,
    reservations: number,
    lateMs: number,
    slackMs: number,
    callId: string | undefined,
  ): void;
  /**
   * Tells of a change handed to `onChange`, with its lag: from the restaurant's previous read for
   * a change a read found (it happened since, at the latest), else from when it was observed.
   */
  changed(change: ReservationChange, observed: Observation, previousReadAt: number | undefined): void;
}

export function createSyncPace(intervalMs: number, clock: Clock, logger: Logger): SyncPace {
  let behind = false;
  return {
    read(restaurantId, reservations, late, slackMs, callId) {
      const lateMs = Number.isFinite(late) ? Math.max(0, late) : undefined;
      publish('syncRead', () => ({ restaurantId, reservations, lateMs, intervalMs, callId }));
      if (lateMs === undefined) return;
      if (lateMs <= slackMs) {
        behind = false;
        return;
      }
      if (behind) return;
      behind = true;
      logger.warn(
        `sync.read is behind: restaurant ${restaurantId} was read ${lateMs} ms after it was due, so its changes reach onChange more than reconcile.intervalMs (${intervalMs} ms) late. Raise budgetShare or intervalMs, or follow fewer restaurants`,
        { operation: 'sync.read', callId, restaurantId, lateMs, intervalMs },
      );
    },
    changed(change, observed, previousReadAt) {
      const since = observed.source === 'reconcile' ? previousReadAt : observed.observedAt;
      const lagMs = since === undefined ? undefined : clock.now() - since;
      publish('syncChange', () => ({
        kind: change.kind,
        source: change.source,
        restaurantId: change.restaurantId,
        lagMs,
      }));
    },
  };
}
