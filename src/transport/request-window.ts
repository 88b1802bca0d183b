/**
 * The requests the service may still count in its sliding window, as one client can know them.
 * The service counts a request when it receives it; the client only knows that this moment lies
 * between the grant and the answer. Counting each request from its grant (the simple rule) lets
 * a request held up on its way (a busy event loop, a new connection, a server that stalled) land
 * in the same window as requests granted a window after it: with 500 callers in one process, a
 * 30-120 ms delay of one request was enough for a 429 a second later. So a request counts from
 * its answer once the client has it, less the least time the way back can take (half the
 * shortest round trip seen): on loopback that is the answer itself; over a network it costs
 * half a round trip per window where the service allows one request per window. A request whose slot
 * is not reported on (in flight, or acquired by code that does not report) counts from its grant
 * plus a margin.
 * @module
 */
import type { RateLimiter, SlotOutcome } from './rate-limiter.js';

/**
 * How many answers the shortest round trip is learnt from before it is used. A process's first
 * seconds are slow on both sides (code not yet compiled): at 50 requests per second, the shortest
 * of the first 8 round trips was still 10-20 times the loopback's, and subtracting half of it let
 * a 429 through; 100 answers take 2 s at that rate, and at 1 request per second cost at most half
 * a round trip per window for 100 s.
 */
const TRUSTED_AFTER_ROUND_TRIPS = 100;

/** One granted request in the window: the slot its caller reports on. */
class WindowEntry implements RateLimiter.Slot {
  readonly #window: RequestWindow;
  readonly grantedAt: number;
  /** The latest moment the service may have counted it (its grant until its end is reported). */
  countsFrom: number;
  /** Whether it is in the window's list (an entry reported after it expired goes back in). */
  listed = true;
  ended = false;

  constructor(window: RequestWindow, grantedAt: number, margin: number) {
    this.#window = window;
    this.grantedAt = grantedAt;
    this.countsFrom = grantedAt + margin;
  }

  end(outcome: SlotOutcome): void {
    if (this.ended || !this.#window.followsAnswers) return;
    this.ended = true;
    this.#window.ended(this, outcome);
  }
}

/** The service's window: at most `count` requests in any `ms` milliseconds. */
export class RequestWindow {
  readonly #count: number;
  readonly #ms: number;
  readonly #unreportedMargin: number;
  readonly #entries: WindowEntry[] = [];
  #shortestRoundTrip = Number.POSITIVE_INFINITY;
  #roundTrips = 0;
  /**
   * Whether reports move requests: only where the service allows several requests per window,
   * where requests held up on their way pile up into the next windows (500 callers at 50 per
   * second). With one request per window (1 per second, the service's own limit) the pacing's
   * margin and the idle margin have kept clear of 429s, and counting from answers would cost up
   * to a round trip per request.
   */
  readonly followsAnswers: boolean;
  /** Called when a report moved a request earlier in the window (a wait for room may end sooner). */
  onMovedEarlier: () => void = () => undefined;

  /**
   * `spacingMarginMs`: how much more than one interval the pacer leaves between two grants. A
   * request not reported on counts from its grant plus that margin over a whole window, so grants
   * paced as planned never meet the window's limit, and slots made up after late ones keep the
   * margin the pacing had.
   */
  constructor(window: { count: number; ms: number }, spacingMarginMs: number) {
    this.followsAnswers = window.count > 1;
    this.#count = window.count;
    this.#ms = window.ms;
    this.#unreportedMargin = window.count * spacingMarginMs;
  }

  /**
   * Records a request granted at `at` and returns its slot. `extraMargin`: more margin while it is
   * not reported on (a request after an idle spell reaches the service later after its grant).
   */
  grant(at: number, extraMargin = 0): RateLimiter.Slot {
    const entry = new WindowEntry(this, at, this.#unreportedMargin + extraMargin);
    this.#entries.push(entry);
    return entry;
  }

  /** How many requests the service may still count at `now`. */
  size(now: number): number {
    const expiredBy = now - this.#ms;
    // The service forgets a request exactly one window after it counted it.
    let kept = 0;
    for (const entry of this.#entries) {
      if (entry.countsFrom > expiredBy) this.#entries[kept++] = entry;
      else entry.listed = false;
    }
    this.#entries.length = kept;
    return kept;
  }

  /** The moment from which a request may be granted, `now` when the window has room. */
  openAt(now: number): number {
    const kept = this.size(now);
    if (kept < this.#count) return now;
    // Room comes when all but `count - 1` of them have left the window.
    const times = this.#entries.map((entry) => entry.countsFrom).sort((a, b) => a - b);
    return times[kept - this.#count]! + this.#ms;
  }

  /** Moves an entry to where its end puts it: an answer replaces the margin with what it showed. */
  ended(entry: WindowEntry, outcome: SlotOutcome): void {
    const now = Date.now();
    const before = entry.countsFrom;
    if (outcome === 'answered') {
      // The way back takes at least half the shortest round trip (the way there may take almost
      // nothing). The first round trips of a process are slow (code not yet compiled,
      // connections being opened) and would put the shortest one far above what the way takes:
      // until a few are known, a request counts from its answer.
      const wayBack = this.#roundTrips >= TRUSTED_AFTER_ROUND_TRIPS ? this.#shortestRoundTrip / 2 : 0;
      entry.countsFrom = Math.max(entry.grantedAt, now - wayBack);
      this.#shortestRoundTrip = Math.min(this.#shortestRoundTrip, now - entry.grantedAt);
      this.#roundTrips += 1;
    } else if (outcome === 'failed') {
      // No answer: it may have arrived up to now.
      entry.countsFrom = Math.max(entry.countsFrom, now);
    }
    if (!entry.listed && entry.countsFrom > now - this.#ms) {
      entry.listed = true;
      this.#entries.push(entry);
    }
    if (entry.countsFrom < before) this.onMovedEarlier();
  }
}
