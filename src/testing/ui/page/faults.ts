/**
 * Faults waiting to hit (each removable), a form to add one, and the rate limit.
 * @module
 */
import type { LiveState } from '../../control/live-state.js';
import { OPERATIONS } from '../../backend/faults.js';
import { act } from './act.js';
import { actions } from './api.js';
import { field, h, hiddenText, setText, syncList } from './dom.js';
import { describeRate } from './format.js';

type Fault = LiveState['faults'][number];

function describeFault(fault: Fault): string {
  const what = [
    fault.status === undefined ? null : `answer ${fault.status}`,
    fault.networkError ? 'drop the connection' : null,
    fault.latencyMs > 0 ? `wait ${fault.latencyMs} ms` : null,
  ]
    .filter(Boolean)
    .join(', ');
  return `${fault.operation ?? 'any operation'}: ${what}, ${fault.phase} it takes effect, ${fault.remaining} more time${fault.remaining === 1 ? '' : 's'}`;
}

function createFaultForm(alert: HTMLElement): HTMLFormElement {
  const operation = h(
    'select',
    { name: 'operation' },
    h('option', { value: '' }, 'any operation'),
    ...OPERATIONS.map((name) => h('option', { value: name }, name)),
  );
  const phase = h(
    'select',
    { name: 'phase' },
    h('option', { value: 'before' }, 'before (nothing happens)'),
    h('option', { value: 'after' }, 'after (it took effect)'),
  );
  const form = h(
    'form',
    { className: 'fault-form', 'aria-label': 'Add a fault' },
    h(
      'fieldset',
      {},
      h('legend', {}, 'Add a fault'),
      field('Operation', operation),
      h(
        'div',
        { className: 'field-row' },
        field(
          'Status',
          h('input', {
            type: 'number',
            name: 'status',
            min: 100,
            max: 599,
            value: 503,
            inputmode: 'numeric',
          }),
        ),
        field(
          'Times',
          h('input', {
            type: 'number',
            name: 'times',
            min: 1,
            max: 1000000,
            value: 1,
            required: true,
            inputmode: 'numeric',
          }),
        ),
        field(
          'Latency (ms)',
          h('input', {
            type: 'number',
            name: 'latencyMs',
            min: 0,
            max: 600000,
            value: 0,
            inputmode: 'numeric',
          }),
        ),
      ),
      field('Phase', phase),
      h(
        'div',
        { className: 'checkbox' },
        h('input', { type: 'checkbox', name: 'networkError', id: 'fault-network-error' }),
        h('label', { for: 'fault-network-error' }, 'Drop the connection instead of answering'),
      ),
      h('div', { className: 'button-row' }, h('button', { type: 'submit' }, 'Add fault')),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const fault: Record<string, unknown> = { times: Number(data.get('times')), phase: data.get('phase') };
    if (data.get('operation')) fault.operation = data.get('operation');
    if (data.get('status')) fault.status = Number(data.get('status'));
    if (Number(data.get('latencyMs')) > 0) fault.latencyMs = Number(data.get('latencyMs'));
    if (data.get('networkError')) fault.networkError = true;
    void act(form, alert, () => actions.addFault(fault), 'Fault added.');
  });
  return form;
}

function createRateForm(alert: HTMLElement): HTMLFormElement {
  const input = h('input', {
    type: 'number',
    name: 'requestsPerSecond',
    min: 0.001,
    step: 'any',
    value: 1,
    required: true,
    inputmode: 'decimal',
  });
  const off = h('button', { type: 'button', className: 'secondary' }, 'Turn rate limit off');
  const form = h(
    'form',
    { className: 'inline-form', 'aria-label': 'Rate limit' },
    field('Requests per second', input),
    h('button', { type: 'submit' }, 'Set rate limit'),
    off,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const rate = Number(input.value);
    void act(form, alert, () => actions.setRateLimit(rate), `Rate limit set to ${describeRate(rate)}.`);
  });
  off.addEventListener(
    'click',
    () => void act(form, alert, () => actions.setRateLimit(false), 'Rate limit turned off.'),
  );
  return form;
}

export function createFaultsView(container: HTMLElement): (overview: LiveState) => void {
  const alert = h('p', { className: 'error', role: 'alert' });
  const list = h('ul', { className: 'faults', 'aria-label': 'Pending faults' });
  const empty = h('p', { className: 'muted' }, 'No faults pending: every request is served.');
  const rate = h('strong', {});
  container.append(
    h('h2', { id: 'faults-heading' }, 'Faults and rate limit'),
    h('p', {}, 'Rate limit: ', rate),
    createRateForm(alert),
    h('h3', {}, 'Pending faults'),
    empty,
    list,
    createFaultForm(alert),
    alert,
  );
  return (overview) => {
    setText(rate, describeRate(overview.rateLimit.requestsPerSecond));
    empty.hidden = overview.faults.length > 0;
    syncList(
      list,
      overview.faults,
      (fault) => String(fault.id),
      (fault) => {
        const remove = h(
          'button',
          { type: 'button', className: 'secondary' },
          'Remove',
          hiddenText(` fault ${fault.id}`),
        );
        remove.addEventListener(
          'click',
          () => void act(remove, alert, () => actions.removeFault(fault.id), `Fault ${fault.id} removed.`),
        );
        return h('li', { className: 'fault' }, h('span', { className: 'fault-text' }), remove);
      },
      (entry, fault) =>
        setText(entry.querySelector('.fault-text')!, `Fault ${fault.id}: ${describeFault(fault)}`),
    );
  };
}
