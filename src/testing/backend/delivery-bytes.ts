/**
 * What one world's deliveries hold, in estimated bytes: the queue, the log and each webhook's last
 * answer. The world asks before every write (memory limits), so the sums are kept up as they grow
 * rather than recounted; apart from the queue (`deliveries.ts`), which only says what changed.
 * @module
 */
import { logEntryBytes, pendingDeliveryBytes } from './memory.js';
import type { DeliveryLogEntry, FakeState, PendingDelivery } from './state.js';

/** The sums of one world's deliveries, keyed by the state (or log) they count, so a restore starts afresh. */
export class DeliveryBytes {
  /** Estimated bytes by pending delivery and log entry (each computed once). */
  readonly #sizes = new WeakMap<object, number>();
  /** The bytes of the queue as last counted. */
  #queueBytes: { queue: PendingDelivery[]; length: number; bytes: number } | undefined;
  /** Bytes of the `last_response` each webhook keeps (up to 8 KiB of JSON each), by state. */
  readonly #lastResponses = new WeakMap<FakeState, { byWebhook: Map<number, number>; sum: number }>();
  /** The bytes of each log, kept by `append`. */
  readonly #logSums = new WeakMap<DeliveryLogEntry[], number>();

  /**
   * Bytes the state's queue, log and last answers hold: the queue only ever grows in place
   * (anything else assigns a new array), and the log's sum is kept by `append`, its one writer.
   */
  held(state: FakeState): number {
    const queue = state.pendingDeliveries;
    let memo = this.#queueBytes;
    if (memo?.queue !== queue || memo.length > queue.length)
      memo = this.#queueBytes = { queue, length: 0, bytes: 0 };
    for (; memo.length < queue.length; memo.length += 1)
      memo.bytes += this.#sizeOf(queue[memo.length]!, pendingDeliveryBytes);
    return memo.bytes + this.#logBytes(state.deliveries) + (this.#lastResponses.get(state)?.sum ?? 0);
  }

  /** Counts what a webhook's `last_response` now holds (a parsed answer: about three times its text). */
  countLastResponse(state: FakeState, webhookId: number, response: Record<string, unknown> | null): void {
    let counted = this.#lastResponses.get(state);
    if (!counted) this.#lastResponses.set(state, (counted = { byWebhook: new Map(), sum: 0 }));
    const bytes = response === null ? 0 : 3 * JSON.stringify(response).length;
    counted.sum += bytes - (counted.byWebhook.get(webhookId) ?? 0);
    counted.byWebhook.set(webhookId, bytes);
  }

  /** Appends to the log, bounded: the oldest attempts go first once it is full, in entries or in bytes. */
  append(log: DeliveryLogEntry[], entry: DeliveryLogEntry, maxEntries: number, maxBytes: number): void {
    let bytes = this.#logBytes(log) + this.#sizeOf(entry, logEntryBytes);
    log.push(entry);
    let drop = Math.max(0, log.length - maxEntries);
    for (let index = 0; index < drop; index += 1) bytes -= this.#sizeOf(log[index]!, logEntryBytes);
    while (bytes > maxBytes && drop < log.length - 1) bytes -= this.#sizeOf(log[drop++]!, logEntryBytes);
    if (drop > 0) log.splice(0, drop);
    this.#logSums.set(log, bytes);
  }

  #logBytes(log: DeliveryLogEntry[]): number {
    let bytes = this.#logSums.get(log);
    if (bytes === undefined) {
      bytes = 0;
      for (const entry of log) bytes += this.#sizeOf(entry, logEntryBytes);
      this.#logSums.set(log, bytes);
    }
    return bytes;
  }

  #sizeOf<Item extends object>(item: Item, estimate: (item: Item) => number): number {
    let bytes = this.#sizes.get(item);
    if (bytes === undefined) this.#sizes.set(item, (bytes = estimate(item)));
    return bytes;
  }
}
