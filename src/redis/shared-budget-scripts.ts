/**
 * What one process of the shared budget (`shared-budget.ts`) says to Redis: the keys of one
 * partner's budget, each script's arguments in the order the script reads them
 * (`rate-limiter-scripts.ts`), and the report a granted request makes when it ends. It stands
 * apart because it is the wire between the process and the scripts: the budget decides when to
 * ask and what an answer means, this file only how to ask.
 * @module
 */
import type { Logger } from '../logger.js';
import type { RateLimiter, Priority } from '../transport/rate-limiter.js';
import { createScriptRunner, type RedisClient, type ScriptRunner } from './connection.js';
import { END, GO, PAUSE, PEEK, TAKE } from './rate-limiter-scripts.js';
import type { BudgetTiming } from './shared-budget-timing.js';

/** PEEK's answer: the lattice's last slot and anchor, Redis's time, the tickets waiting, the pause. */
export interface PeekAnswer {
  last: number;
  anchor: number;
  redisNow: number;
  interactive: number;
  total: number;
  pauseMs: number;
}

/** TAKE's arguments that change from one ask to the next (the timing ones come from the budget). */
export interface TakeRequest {
  processId: string;
  priority: Priority;
  priorityAfterHead: Priority | '';
  /** The caller's deadline on the Redis clock ('' when unknown). */
  deadline: string;
  /** Pacing alone: the slot it would use next, the anchor it paced on (Redis clock), its cycle. */
  claim: { next: number; anchor: string; cycle: number } | undefined;
  /** How long ago this process last sent without Redis ('' when it has not since its last answer). */
  sinceAloneGrant: string;
}

/** A grant nobody reports on (pacing alone: Redis is not there to hear it). */
export const UNREPORTED: RateLimiter.Slot = { end: () => undefined };

export class BudgetScripts {
  readonly #timing: BudgetTiming;
  readonly #keys: string[];
  readonly #runner: ScriptRunner;

  constructor(
    settings: {
      redis: RedisClient;
      partnerId: string;
      keyPrefix: string;
      commandTimeoutMs: number;
      logger: Logger;
    },
    timing: BudgetTiming,
  ) {
    this.#timing = timing;
    // One hash tag, so the keys live on one slot of a Redis Cluster.
    const base = `${settings.keyPrefix}{${settings.partnerId}}`;
    this.#keys = [`${base}:lattice`, `${base}:interactive`, `${base}:background`, `${base}:pause`];
    this.#runner = createScriptRunner(settings.redis, settings.commandTimeoutMs, (error) =>
      settings.logger.debug?.('Redis client error (handled by the rate limiter)', {
        message: error instanceof Error ? error.message : String(error),
      }),
    );
  }

  /** Pauses every process of the partner for `ms`. */
  async pause(ms: number): Promise<void> {
    await this.#runner.run(PAUSE, [this.#keys[3]!], [Math.ceil(ms)]);
  }

  async peek(): Promise<PeekAnswer> {
    const [last, anchor, redisNow, interactive, total, pauseMs] = (
      (await this.#runner.run(PEEK, this.#keys, [])) as unknown[]
    ).map(Number) as [number, number, number, number, number, number];
    return { last, anchor, redisNow, interactive, total, pauseMs };
  }

  /** Asks for this process's turn (the answers are listed at TAKE). */
  async take(request: TakeRequest): Promise<unknown[]> {
    const { claim } = request;
    const t = this.#timing;
    return (await this.#runner.run(TAKE, this.#keys, [
      request.processId,
      request.priority,
      request.priorityAfterHead,
      t.spacing,
      request.deadline,
      claim ? claim.next : '',
      claim ? claim.anchor : '',
      claim ? claim.cycle : '',
      t.recoveryMs,
      t.tolerance,
      t.keyTtlMs,
      t.assumeOut,
      t.reserveAfter,
      request.sinceAloneGrant,
      t.window,
    ])) as unknown[];
  }

  /** At a reserved slot: asks to send once the request before has ended a window ago (see GO). */
  async go(index: number, deadline: string): Promise<unknown[]> {
    const t = this.#timing;
    return (await this.#runner.run(GO, this.#keys, [
      index,
      deadline,
      t.spacing,
      t.window,
      t.holdMax,
      t.keyTtlMs,
    ])) as unknown[];
  }

  /** Tells Redis the request of slot `index` ended (or was never sent): the next may go. */
  end(index: number, unsent: boolean): void {
    // A report that does not reach Redis holds the next request back (at most holdMax).
    void this.#runner
      .run(END, [this.#keys[0]!], [index, unsent ? 'unsent' : '', this.#timing.window])
      .catch(() => undefined);
  }

  /** The slot handed to the caller: when its request ends, Redis hears of it and the next may go. */
  reportTo(index: number): RateLimiter.Slot {
    let reported = false;
    return {
      end: (outcome) => {
        if (reported) return;
        reported = true;
        this.end(index, outcome === 'unsent');
      },
    };
  }
}
