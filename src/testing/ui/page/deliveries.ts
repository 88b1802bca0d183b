/**
 * The delivery log, newest first: every attempt with its event, target, attempt number, the
 * status the receiver answered (or why there was none) and the body sent.
 * @module
 */
import type { LiveState } from '../../control/live-state.js';
import type { DeliveryLogEntry } from '../../backend/state.js';
import { h, setText, syncList } from './dom.js';
import { formatLocalTime } from './format.js';

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function outcome(entry: DeliveryLogEntry): string {
  if (entry.status === null) return `no answer${entry.error ? `: ${entry.error}` : ''}`;
  return `status ${entry.status}${entry.ok ? '' : ' (will be retried)'}`;
}

export function createDeliveriesView(container: HTMLElement): (overview: LiveState) => void {
  const list = h('ol', { className: 'deliveries', 'aria-label': 'Delivery attempts, newest first' });
  const summary = h('p', { className: 'muted' });
  container.append(h('h2', { id: 'deliveries-heading' }, 'Webhook deliveries'), summary, list);
  return (overview) => {
    const total = overview.deliveriesTotal;
    const latest = [...overview.deliveries].reverse();
    setText(
      summary,
      total === 0
        ? 'No deliveries yet. Register a webhook and act on a reservation.'
        : total > latest.length
          ? `The latest ${latest.length} of ${total} attempts.`
          : `${total} attempt${total === 1 ? '' : 's'}.`,
    );
    syncList(
      list,
      latest,
      (entry) => `${entry.eventId} ${entry.webhookId} ${entry.attempt}`,
      (entry) =>
        h(
          'li',
          { className: `delivery card ${entry.ok ? 'delivery-ok' : 'delivery-failed'}` },
          h(
            'div',
            { className: 'delivery-head' },
            h('strong', { className: 'event' }, entry.event),
            ' ',
            h('span', { className: `outcome ${entry.ok ? 'ok' : 'failed'}` }, outcome(entry)),
          ),
          h(
            'dl',
            { className: 'facts' },
            h('dt', {}, 'Target'),
            h('dd', {}, h('code', { className: 'url' }, entry.url)),
            h('dt', {}, 'Attempt'),
            h(
              'dd',
              { className: 'attempt' },
              `${entry.attempt}${entry.nextAttemptAt ? `, next at ${formatLocalTime(entry.nextAttemptAt)}` : ''}`,
            ),
            h('dt', {}, 'Sent'),
            h('dd', {}, formatLocalTime(entry.deliveredAt)),
            entry.reservationId === null ? null : h('dt', {}, 'Reservation'),
            entry.reservationId === null
              ? null
              : h('dd', {}, `${entry.reservationId} at restaurant ${entry.restaurantId}`),
          ),
          h(
            'details',
            {},
            h('summary', {}, 'Body sent'),
            h('pre', { className: 'body' }, pretty(entry.body)),
          ),
        ),
      () => undefined,
    );
  };
}
