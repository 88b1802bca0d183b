/**
 * A delivery attempt of the fake's log as the commands print it: one line with the event, its id,
 * the webhook and the receiver's answer.
 * @module
 */
import type { DeliveryLogEntry } from '../testing/backend/state.js';

/** Tells attempts apart (an event's attempts, and chaos's second copy, share the event id). */
export function deliveryKey(entry: DeliveryLogEntry): string {
  return `${entry.eventId} ${entry.webhookId} ${entry.attempt} ${entry.deliveredAt} ${entry.duplicate}`;
}

/** `RESERVATION_CONFIRMED evt_... #1 -> webhook 3 http://... : 200` */
export function deliveryLine(entry: DeliveryLogEntry): string {
  const answer = entry.status !== null ? `${entry.status}` : `no answer (${entry.error})`;
  const reservation = entry.reservationId === null ? '' : ` reservation ${entry.reservationId}`;
  return `delivery ${entry.event}${reservation} ${entry.eventId} #${entry.attempt}${entry.duplicate ? ' (duplicate)' : ''} -> webhook ${entry.webhookId} ${entry.url}: ${answer}`;
}
