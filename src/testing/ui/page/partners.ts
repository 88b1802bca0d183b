/**
 * Partners with their credentials and a curl line to paste. A viewer that is not on loopback gets
 * no token from the fake, and the page shows a placeholder instead.
 * @module
 */
import type { LiveState } from '../../control/live-state.js';

type PartnerView = LiveState['partners'][number];
import { announce } from './act.js';
import { controlRoot } from './api.js';
import { h, hiddenText, setText, syncList } from './dom.js';

/** A word a POSIX shell reads back as exactly `text`: single quotes, each `'` written as `'\''`. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** A line to paste into a shell; a withheld token is `$API_TOKEN`, outside the quotes so the shell expands it. */
function curlLine(partner: PartnerView): string {
  const api = new URL('../api/v1/partnership/restaurants/', controlRoot).href;
  const credentials =
    partner.apiToken === null
      ? `${shellQuote(`${partner.partnerId}:`)}"$API_TOKEN"`
      : shellQuote(`${partner.partnerId}:${partner.apiToken}`);
  return `curl -u ${credentials} ${shellQuote(api)}`;
}

export function createPartnersView(container: HTMLElement): (overview: LiveState) => void {
  const list = h('ul', { className: 'cards', 'aria-label': 'Partners' });
  const empty = h('p', { className: 'muted' }, 'No partners. Add one with POST /_fake/partners.');
  const remoteNote = h(
    'p',
    { className: 'note' },
    'You reach the fake from outside loopback: API tokens are withheld.',
  );
  container.append(h('h2', { id: 'partners-heading' }, 'Partners'), remoteNote, empty, list);
  return (overview) => {
    remoteNote.hidden = !overview.remoteViewer;
    empty.hidden = overview.partners.length > 0;
    syncList(
      list,
      overview.partners,
      (partner) => partner.partnerId,
      (partner) => {
        const name = h('h3', {});
        const id = h('code', { className: 'partner-id' });
        const token = h('code', { className: 'partner-token' });
        const curl = h('code', { className: 'curl' });
        const copy = h('button', { type: 'button' }, 'Copy curl line', hiddenText(` for ${partner.name}`));
        const copyLine = async () => {
          try {
            await navigator.clipboard.writeText(curl.textContent ?? '');
            announce('Curl line copied.');
          } catch {
            // No clipboard permission: select the line so Ctrl+C copies it.
            getSelection()?.selectAllChildren(curl);
            announce('Curl line selected: press Ctrl+C to copy it.');
          }
        };
        // Nothing waits on a click: copyLine answers its own failure.
        copy.addEventListener('click', () => void copyLine());
        return h(
          'li',
          { className: 'card' },
          name,
          h(
            'dl',
            { className: 'facts' },
            h('dt', {}, 'Partner id'),
            h('dd', {}, id),
            h('dt', {}, 'API token'),
            h('dd', {}, token),
          ),
          h('pre', { className: 'curl-line' }, curl),
          copy,
        );
      },
      (entry, partner) => {
        setText(entry.querySelector('h3')!, partner.name);
        setText(entry.querySelector('.partner-id')!, partner.partnerId);
        setText(entry.querySelector('.partner-token')!, partner.apiToken ?? 'withheld (not on loopback)');
        setText(entry.querySelector('.curl')!, curlLine(partner));
      },
    );
  };
}
