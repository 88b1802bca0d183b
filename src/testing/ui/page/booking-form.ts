/**
 * The booking form a restaurant uses for a reservation from another channel (phone, walk-in,
 * another platform), and the party fields (start, adults, children) it shares with a
 * reservation's modify form. It stands apart from the restaurants view because it is a form with
 * its own fields, reading and submit, where the view only places it under its restaurant.
 * @module
 */
import type { LiveState } from '../../control/live-state.js';
import { act } from './act.js';
import { actions } from './api.js';
import { fakeNow } from './clock-view.js';
import { field, h, uniqueId } from './dom.js';
import { localInputDaysAhead } from './format.js';

type Restaurant = LiveState['restaurants'][number];

/** A whole-number input of the party fields. */
export const number = (name: string, min: number, max: number, value: number) =>
  h('input', { type: 'number', name, min, max, step: 1, required: true, value, inputmode: 'numeric' });

/** A text input's value ('' when absent: these forms hold no file inputs). */
const textField = (data: FormData, name: string): string => {
  const value = data.get(name);
  return typeof value === 'string' ? value : '';
};

/** Reads the shared time and party fields of the modify and booking forms. */
export function readParty(form: HTMLFormElement): Record<string, unknown> {
  const data = new FormData(form);
  const startTime = textField(data, 'start_time');
  return {
    ...(startTime ? { start_time: startTime.length === 16 ? `${startTime}:00` : startTime } : {}),
    adults: Number(data.get('adults')),
    children: Number(data.get('children') ?? 0),
  };
}

/** The "New booking from another channel" toggle and the form it opens, for one restaurant. */
export function createBookingForm(
  restaurant: Restaurant,
  alert: HTMLElement,
): { toggle: HTMLButtonElement; form: HTMLFormElement } {
  const formId = uniqueId(`book-${restaurant.id}`);
  const toggle = h(
    'button',
    { type: 'button', className: 'secondary', 'aria-expanded': 'false', 'aria-controls': formId },
    'New booking from another channel',
  );
  const startInput = h('input', { type: 'datetime-local', name: 'start_time', required: true, step: 60 });
  const form = h(
    'form',
    {
      id: formId,
      className: 'booking-form',
      hidden: true,
      'aria-label': `Book at ${restaurant.display_name} from another channel`,
    },
    h(
      'fieldset',
      {},
      h('legend', {}, `Booking from another channel at ${restaurant.display_name}`),
      field(
        'Channel',
        h('input', { type: 'text', name: 'channel', required: true, value: 'phone', maxlength: 100 }),
        'Phone, walk-in, another platform...',
      ),
      field('Start', startInput, `Local time in ${restaurant.timezone}`),
      h(
        'div',
        { className: 'field-row' },
        field('Adults', number('adults', 1, 50, 2)),
        field('Children', number('children', 0, 50, 0)),
      ),
      h(
        'div',
        { className: 'field-row' },
        field(
          'First name',
          h('input', { type: 'text', name: 'first_name', maxlength: 255, autocomplete: 'off' }),
        ),
        field(
          'Last name',
          h('input', { type: 'text', name: 'last_name', maxlength: 255, autocomplete: 'off' }),
        ),
      ),
      h('div', { className: 'button-row' }, h('button', { type: 'submit' }, 'Book')),
    ),
  );
  toggle.addEventListener('click', () => {
    const open = form.hidden !== false;
    form.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    if (open) {
      if (!startInput.value)
        startInput.value = localInputDaysAhead(fakeNow(), restaurant.timezone, 1, '19:00');
      startInput.focus();
    }
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const booking = {
      ...readParty(form),
      channel: textField(data, 'channel'),
      first_name: textField(data, 'first_name'),
      last_name: textField(data, 'last_name'),
    };
    void act(
      form,
      alert,
      () => actions.bookFromOtherChannel(restaurant.id, booking),
      `Booked at ${restaurant.display_name} from ${booking.channel}.`,
    );
  });
  return { toggle, form };
}
