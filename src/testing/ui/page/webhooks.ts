/**
 * The webhooks partners registered: where each points, what it subscribes to, whether it is
 * enabled, and what its target answered last, so a delivery that never arrives has a visible cause.
 * @module
 */
import type { LiveState } from '../../control/live-state.js';
import { h, setText, syncList } from './dom.js';
import { formatLocalTime } from './format.js';

type Webhook = LiveState['webhooks'][number];

function subscribed(webhook: Webhook): string {
  const events = Object.entries((webhook.subscribed_events ?? {}) as Record<string, boolean>)
    .filter(([, on]) => on)
    .map(([event]) => event);
  return events.length === 0 ? 'no events' : events.join(', ');
}

function lastAnswer(webhook: Webhook): string {
  if (webhook.last_use_at === null) return 'not used yet';
  return `${webhook.last_response_status_code ?? 'no answer'} at ${formatLocalTime(String(webhook.last_use_at))}`;
}

export function createWebhooksView(container: HTMLElement): (overview: LiveState) => void {
  const list = h('ul', { className: 'cards webhooks', 'aria-label': 'Registered webhooks' });
  const empty = h(
    'p',
    { className: 'muted' },
    'No webhooks registered. A partner registers one with POST /api/v1/partnership/webhooks/.',
  );
  container.append(h('h2', { id: 'webhooks-heading' }, 'Webhooks'), empty, list);
  return (overview) => {
    const names = new Map(overview.partners.map((partner) => [partner.partnerId, partner.name]));
    empty.hidden = overview.webhooks.length > 0;
    syncList(
      list,
      overview.webhooks,
      (webhook) => String(webhook.id),
      () =>
        h(
          'li',
          { className: 'webhook card' },
          h('code', { className: 'url' }),
          h(
            'dl',
            { className: 'facts' },
            h('dt', {}, 'Partner'),
            h('dd', { className: 'partner' }),
            h('dt', {}, 'Events'),
            h('dd', { className: 'events' }),
            h('dt', {}, 'State'),
            h('dd', { className: 'enabled' }),
            h('dt', {}, 'Last answer'),
            h('dd', { className: 'last' }),
          ),
        ),
      (entry, webhook) => {
        setText(entry.querySelector('.url')!, String(webhook.url));
        setText(entry.querySelector('.partner')!, names.get(webhook.partnerId) ?? webhook.partnerId);
        setText(entry.querySelector('.events')!, subscribed(webhook));
        setText(entry.querySelector('.enabled')!, webhook.is_enabled ? 'enabled' : 'paused');
        setText(entry.querySelector('.last')!, lastAnswer(webhook));
      },
    );
  };
}
